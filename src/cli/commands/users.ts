/**
 * `bulwark users …`: accounts of the three kinds (human, api, taxii), their state, password
 * and token lifetime. Passwords go in, never out; nothing here prints a credential.
 */
import {
  type CreateAccountInput,
  createAccount,
  listAccountSummaries,
  setAccountDisabled,
  setPassword,
  setTokenLifetime,
  soleOrganizationName,
} from '../../domain/access/accounts.js'
import { invalid } from '../../core/errors.js'
import type { Services } from '../../domain/services.js'
import { isoNow } from '../../core/time.js'
import type { Store } from '../../store/connect.js'
import { wholeNumber } from './args.js'

/** The domain's account input, as it comes off the command line: kind and Organization may be left out. */
export type CreateUserArgs = Omit<CreateAccountInput, 'kind' | 'organization' | 'tokenLifetimeDays'> & {
  kind?: string
  /** The account's home Organization; may be left out when there is only one. */
  organization?: string
  tokenLifetimeDays?: string | number
}

export async function createUserCommand(store: Store, _services: Services, args: CreateUserArgs) {
  const organization = args.organization ?? (await soleOrganizationName(store.db, ' with --organization'))
  return createAccount(
    store.db,
    {
      userName: args.userName,
      kind: args.kind ?? 'api',
      organization,
      role: args.role,
      systemRole: args.systemRole,
      firstName: args.firstName,
      lastName: args.lastName,
      pseudonym: args.pseudonym,
      email: args.email,
      password: args.password,
      tokenLifetimeDays: wholeNumber(args.tokenLifetimeDays),
    },
    isoNow(),
  )
}

export async function listUsersCommand(
  store: Store,
  _services: Services,
  args: { organization?: string; kind?: string } = {},
) {
  return { users: await listAccountSummaries(store.db, args) }
}

export async function disableUserCommand(store: Store, _services: Services, args: { userName: string }) {
  return setAccountDisabled(store.db, args.userName, true, isoNow())
}

export async function enableUserCommand(store: Store, _services: Services, args: { userName: string }) {
  return setAccountDisabled(store.db, args.userName, false, isoNow())
}

export async function setUserPasswordCommand(
  store: Store,
  _services: Services,
  args: { userName: string; password?: string },
) {
  if (args.password === undefined) throw invalid('Give the new password with --password or --password-stdin')
  await setPassword(store.db, args.userName, args.password, isoNow())
  return { userName: args.userName, passwordChanged: true }
}

/** `none` (or `0`) makes new tokens of the account permanent. */
export async function setUserTokenLifetimeCommand(
  store: Store,
  _services: Services,
  args: { userName: string; days: string | number },
) {
  const days = args.days === 'none' || args.days === '0' || args.days === 0 ? null : wholeNumber(args.days)!
  await setTokenLifetime(store.db, args.userName, days, isoNow())
  return { userName: args.userName, tokenLifetimeDays: days }
}

/**
 * Administration of owners, accounts, memberships and credentials: what the admin CLI
 * and the first start do. Plaintext secrets are returned once, at creation, and never stored.
 */
import type { Kysely } from 'kysely'
import { OWNER_TYPES, type OwnerType } from '../../model/kinds.js'
import {
  ACCOUNT_KINDS,
  type AccountKind,
  COMMUNITY_ROLES,
  ORGANIZATION_ROLES,
  SYSTEM_ROLES,
} from '../../model/roles.js'
import * as accounts from '../../store/repositories/account.repository.js'
import { deleteSessionsOfUser } from '../../store/repositories/console-session.repository.js'
import type { Database } from '../../store/database.js'
import {
  generateAccessId,
  generateSecretKey,
  generateToken,
  hashPassword,
  hashToken,
  type SecretBox,
} from './credentials.js'
import { DomainError, conflict, invalid, notFound } from '../../core/errors.js'
import { DAY_MS, HOUR_MS } from '../../core/time.js'
import { isAllowed, type Membership } from '../permissions.js'
import { inTransaction } from '../transaction.js'

export const TEMPORARY_TOKEN_MS = 4 * HOUR_MS

export async function createOwner(
  db: Kysely<Database>,
  input: { name: string; type: string; description?: string },
  now: string,
) {
  const name = input.name?.trim()
  if (!name) throw invalid('An owner needs a name')
  if (!(OWNER_TYPES as readonly string[]).includes(input.type))
    throw invalid(`Owner type must be one of ${OWNER_TYPES.join(', ')}`)
  if (await accounts.findOwnerByName(db, name)) throw conflict(`An owner named '${name}' already exists`)
  const id = await accounts.insertOwner(db, {
    name,
    type: input.type as OwnerType,
    description: input.description ?? null,
    date_added: now,
  })
  return { id, name, type: input.type as OwnerType }
}

export async function requireOwner(db: Kysely<Database>, name: string) {
  const owner = await accounts.findOwnerByName(db, name)
  if (!owner) throw notFound(`No owner named '${name}'`)
  return owner
}

export async function requireAccount(db: Kysely<Database>, userName: string) {
  const account = await accounts.findAccountByUserName(db, userName)
  if (!account) throw notFound(`No account named '${userName}'`)
  return account
}

export interface CreateAccountInput {
  userName: string
  kind: string
  organization: string
  role?: string
  systemRole?: string
  firstName?: string
  lastName?: string
  pseudonym?: string
  email?: string
  password?: string
  tokenLifetimeDays?: number
}

const DEFAULT_SYSTEM_ROLE: Record<AccountKind, string> = { human: 'User', api: 'Api User', taxii: 'Taxii User' }

/** Creates an account in its Organization with an Organization role (TAXII accounts: always Standard User). */
export async function createAccount(db: Kysely<Database>, input: CreateAccountInput, now: string) {
  const userName = input.userName?.trim()
  if (!userName) throw invalid('An account needs a user name')
  if (!(ACCOUNT_KINDS as readonly string[]).includes(input.kind))
    throw invalid(`Account kind must be one of ${ACCOUNT_KINDS.join(', ')}`)
  const kind = input.kind as AccountKind
  const org = await requireOwner(db, input.organization)
  if (org.type !== 'Organization')
    throw invalid(`'${org.name}' is a ${org.type}; an account's home must be an Organization`)
  const role = kind === 'taxii' ? 'Standard User' : (input.role ?? 'Standard User')
  if (kind === 'taxii' && input.role && input.role !== 'Standard User')
    throw invalid('Standard User is the only Organization role a TAXII account may have')
  if (!(ORGANIZATION_ROLES as readonly string[]).includes(role))
    throw invalid(`Organization role must be one of ${ORGANIZATION_ROLES.join(', ')}`)
  const systemRole = input.systemRole ?? DEFAULT_SYSTEM_ROLE[kind]
  if (!(SYSTEM_ROLES as readonly string[]).includes(systemRole))
    throw invalid(`System role must be one of ${SYSTEM_ROLES.join(', ')}`)
  if (kind === 'taxii' && !input.password) throw invalid('A TAXII account needs a password')
  if (input.password !== undefined) checkPassword(input.password)
  if (
    input.tokenLifetimeDays !== undefined &&
    (!Number.isInteger(input.tokenLifetimeDays) || input.tokenLifetimeDays < 1)
  ) {
    throw invalid('Token lifetime is a whole number of days, at least 1')
  }
  if (await accounts.findAccountByUserName(db, userName))
    throw conflict(`An account named '${userName}' already exists`)
  const passwordHash = input.password ? await hashPassword(input.password) : null
  return inTransaction(db, async (trx) => {
    const id = await accounts.insertAccount(trx, {
      user_name: userName,
      kind,
      first_name: input.firstName ?? null,
      last_name: input.lastName ?? null,
      pseudonym: input.pseudonym ?? null,
      email: input.email ?? null,
      system_role: systemRole,
      organization_id: org.id,
      password_hash: passwordHash,
      token_lifetime_days: input.tokenLifetimeDays ?? null,
      tql_timeout_ms: null,
      date_added: now,
      last_modified: now,
    })
    await accounts.upsertMembership(trx, id, org.id, role, now)
    return { id, userName, kind, organization: org.name, role, systemRole }
  })
}

/** Gives an account a role in an owner; the role must belong to the owner's kind. */
export async function setMembership(
  db: Kysely<Database>,
  userName: string,
  ownerName: string,
  role: string,
  now: string,
) {
  const account = await requireAccount(db, userName)
  const owner = await requireOwner(db, ownerName)
  const roles: readonly string[] = owner.type === 'Organization' ? ORGANIZATION_ROLES : COMMUNITY_ROLES
  if (!roles.includes(role))
    throw invalid(
      `Role for ${owner.type === 'Organization' ? 'an' : 'a'} ${owner.type} must be one of ${roles.join(', ')}`,
    )
  if (owner.type === 'Organization' && owner.id !== account.organization_id) {
    throw invalid('An account belongs to one Organization; add it to Communities or Sources instead')
  }
  if (account.kind === 'taxii' && owner.type === 'Organization' && role !== 'Standard User') {
    throw invalid('Standard User is the only Organization role a TAXII account may have')
  }
  await accounts.upsertMembership(db, account.id, owner.id, role, now)
  return { userName, owner: owner.name, ownerType: owner.type, role }
}

export async function removeMembership(db: Kysely<Database>, userName: string, ownerName: string) {
  const account = await requireAccount(db, userName)
  const owner = await requireOwner(db, ownerName)
  if (owner.id === account.organization_id)
    throw invalid('An account cannot leave its own Organization; disable it instead')
  if (!(await accounts.deleteMembership(db, account.id, owner.id)))
    throw notFound(`'${userName}' is not a member of '${ownerName}'`)
}

function checkPassword(password: string) {
  if (!password || password.length < 8) throw invalid('A password must be at least 8 characters long')
}

export interface IssuedToken {
  token: string
  expiresAt: string | null
  kind: 'api' | 'temporary'
}

/**
 * A permanent API token lives for the account's token lifetime (days, set by an
 * Organization Administrator) or the given one; without either it does not expire.
 */
export async function issueApiToken(
  db: Kysely<Database>,
  userName: string,
  options: { lifetimeDays?: number; token?: string },
  nowMs: number,
): Promise<IssuedToken> {
  const account = await requireAccount(db, userName)
  if (account.kind === 'taxii') throw invalid('TAXII accounts use Basic authentication, not API tokens')
  if (options.lifetimeDays !== undefined && (!Number.isInteger(options.lifetimeDays) || options.lifetimeDays < 1)) {
    throw invalid('Token lifetime is a whole number of days, at least 1')
  }
  const days = options.lifetimeDays ?? account.token_lifetime_days
  const expiresAt = days ? new Date(nowMs + days * DAY_MS).toISOString() : null
  return insertToken(db, account.id, 'api', expiresAt, nowMs, options.token)
}

/** A temporary token (4 hours) for a member whose Organization role allows it. */
export async function issueTemporaryToken(db: Kysely<Database>, userName: string, nowMs: number): Promise<IssuedToken> {
  const account = await requireAccount(db, userName)
  const org = await accounts.findOwnerById(db, account.organization_id)
  const membership = (await accounts.listOwnerMembers(db, account.organization_id)).find((m) => m.id === account.id)
  const asMembership: Membership | undefined =
    membership && org
      ? { ownerId: org.id, ownerName: org.name, ownerType: org.type, role: membership.role as Membership['role'] }
      : undefined
  if (account.kind === 'taxii' || !asMembership || !isAllowed(asMembership, 'issueTemporaryToken')) {
    throw new DomainError(
      'forbidden',
      'Temporary tokens are for Standard User, Sharing User, Organization Administrator and App Developer roles',
    )
  }
  return insertToken(db, account.id, 'temporary', new Date(nowMs + TEMPORARY_TOKEN_MS).toISOString(), nowMs)
}

/**
 * A permanent token, or with `temporary` a 4-hour one: what `bulwark tokens create` and the admin API issue.
 * @example await issueToken(db, 'siem-feed', { lifetimeDays: 90 }, Date.now())
 */
export async function issueToken(
  db: Kysely<Database>,
  userName: string,
  options: { lifetimeDays?: number; temporary?: boolean },
  nowMs: number,
): Promise<IssuedToken> {
  if (options.temporary && options.lifetimeDays !== undefined)
    throw invalid('A temporary token always lives 4 hours: give it no lifetime')
  return options.temporary
    ? issueTemporaryToken(db, userName, nowMs)
    : issueApiToken(db, userName, { lifetimeDays: options.lifetimeDays }, nowMs)
}

async function insertToken(
  db: Kysely<Database>,
  userId: number,
  kind: 'api' | 'temporary',
  expiresAt: string | null,
  nowMs: number,
  given?: string,
): Promise<IssuedToken> {
  const token = given ?? generateToken()
  if (token.length < 16) throw invalid('A token must be at least 16 characters long')
  await accounts.insertApiToken(db, {
    user_id: userId,
    token_hash: hashToken(token),
    kind,
    expires_at: expiresAt,
    date_added: new Date(nowMs).toISOString(),
  })
  return { token, expiresAt, kind }
}

export async function revokeTokens(db: Kysely<Database>, userName: string) {
  const account = await requireAccount(db, userName)
  return accounts.deleteApiTokens(db, account.id)
}

/** Creates an access id + secret key pair; the secret is sealed at rest and returned only here. */
export async function createAccessKey(
  db: Kysely<Database>,
  box: SecretBox,
  userName: string,
  now: string,
  given: { accessId?: string; secretKey?: string } = {},
) {
  const account = await requireAccount(db, userName)
  if (account.kind !== 'api') throw invalid('Access id and secret key pairs belong to API accounts')
  const accessId = given.accessId ?? generateAccessId()
  const secretKey = given.secretKey ?? generateSecretKey()
  if (secretKey.length < 16) throw invalid('A secret key must be at least 16 characters long')
  if (await accounts.accessIdExists(db, accessId)) {
    throw conflict(`Access id '${accessId}' is already in use`)
  }
  await accounts.insertAccessKey(db, {
    user_id: account.id,
    access_id: accessId,
    secret_ciphertext: box.seal(secretKey),
    date_added: now,
  })
  return { accessId, secretKey }
}

export async function setPassword(db: Kysely<Database>, userName: string, password: string, now: string) {
  const account = await requireAccount(db, userName)
  checkPassword(password)
  await accounts.updateAccount(db, account.id, { password_hash: await hashPassword(password), last_modified: now })
  // A new password ends every console session made with the old one.
  await deleteSessionsOfUser(db, account.id)
}

export async function setAccountDisabled(db: Kysely<Database>, userName: string, disabled: boolean, now: string) {
  const account = await requireAccount(db, userName)
  await accounts.updateAccount(db, account.id, { disabled: disabled ? 1 : 0, last_modified: now })
  return { userName, disabled }
}

export async function setTokenLifetime(db: Kysely<Database>, userName: string, days: number | null, now: string) {
  const account = await requireAccount(db, userName)
  if (days !== null && (!Number.isInteger(days) || days < 1))
    throw invalid('Token lifetime is a whole number of days, at least 1')
  await accounts.updateAccount(db, account.id, { token_lifetime_days: days, last_modified: now })
}

/** Every owner, oldest first (the admin view: not limited to one caller's memberships). */
export async function listAllOwners(db: Kysely<Database>) {
  return (await accounts.listOwners(db)).map((o) => ({
    id: o.id,
    name: o.name,
    type: o.type,
    description: o.description,
    dateAdded: o.date_added,
  }))
}

/** The name of the one Organization, the home of a new account when none is named; refused when there are several. */
export async function soleOrganizationName(db: Kysely<Database>, how = ''): Promise<string> {
  const organizations = (await accounts.listOwners(db)).filter((o) => o.type === 'Organization')
  if (organizations.length !== 1)
    throw invalid(`There are ${organizations.length} Organizations; name the account's Organization${how}`)
  return organizations[0].name
}

/**
 * Accounts with their Organization and role there, optionally narrowed to one
 * Organization or kind. Carries no credential of any sort.
 */
export async function listAccountSummaries(
  db: Kysely<Database>,
  filter: { organization?: string; kind?: string } = {},
) {
  if (filter.kind && !(ACCOUNT_KINDS as readonly string[]).includes(filter.kind))
    throw invalid(`Account kind must be one of ${ACCOUNT_KINDS.join(', ')}`)
  const organization = filter.organization ? await requireOwner(db, filter.organization) : undefined
  const owners = new Map((await accounts.listOwners(db)).map((o) => [o.id, o.name]))
  const rows = await accounts.listAccounts(db, { organizationId: organization?.id, kind: filter.kind })
  const roles = new Map<number, string>()
  for (const orgId of new Set(rows.map((r) => r.organization_id))) {
    for (const member of await accounts.listOwnerMembers(db, orgId)) roles.set(member.id, member.role)
  }
  return rows.map((r) => ({
    id: r.id,
    userName: r.user_name,
    kind: r.kind,
    organization: owners.get(r.organization_id) ?? null,
    role: roles.get(r.id) ?? null,
    systemRole: r.system_role,
    firstName: r.first_name,
    lastName: r.last_name,
    pseudonym: r.pseudonym,
    email: r.email,
    disabled: !!r.disabled,
    tokenLifetimeDays: r.token_lifetime_days,
    dateAdded: r.date_added,
  }))
}

/** Memberships of one account, of one owner, or (with neither) of everyone. */
export async function listMembershipSummaries(
  db: Kysely<Database>,
  filter: { userName?: string; ownerName?: string } = {},
) {
  const account = filter.userName ? await requireAccount(db, filter.userName) : undefined
  const owners = filter.ownerName ? [await requireOwner(db, filter.ownerName)] : await accounts.listOwners(db)
  const result: { userName: string; owner: string; ownerType: OwnerType; role: string }[] = []
  for (const owner of owners) {
    for (const member of await accounts.listOwnerMembers(db, owner.id)) {
      if (!account || member.id === account.id)
        result.push({ userName: member.user_name, owner: owner.name, ownerType: owner.type, role: member.role })
    }
  }
  return result
}

/** Deletes an API account's access keys (one, when accessId is given); returns how many went. */
export async function revokeAccessKeys(db: Kysely<Database>, userName: string, accessId?: string) {
  const account = await requireAccount(db, userName)
  const removed = await accounts.deleteAccessKeys(db, account.id, accessId)
  if (accessId !== undefined && removed === 0) throw notFound(`'${userName}' has no access id '${accessId}'`)
  return removed
}

/** Row counts for the admin status report. */
export async function countRecords(db: Kysely<Database>) {
  const [owners, accountCount, indicators, groups] = await Promise.all([
    accounts.countRows(db, 'owner'),
    accounts.countRows(db, 'user_account'),
    accounts.countRows(db, 'indicator'),
    accounts.countRows(db, 'intel_group'),
  ])
  return { owners, accounts: accountCount, indicators, groups }
}

/**
 * Running the installation's owners, accounts, memberships, credentials and settings from the REST API and the
 * console: what `bulwark owners|users|memberships|tokens|keys|settings` do, for system administrators only, through
 * the same functions (accounts.ts, settings.ts). Each function first refuses anyone else, then reads its input with
 * messages naming the field. Tokens and secret keys are answered once, by the call that makes them; nothing here
 * lists or logs a credential.
 */
import { invalid } from '../../core/errors.js'
import { booleanValue, optionalInteger, optionalText, requiredText } from '../../core/input.js'
import { ACCOUNT_KINDS } from '../../model/roles.js'
import type { RequestContext } from '../context.js'
import { requirePlatformAdministrator } from '../permissions.js'
import { type SettingView, describeSettings, readSetting } from '../settings.js'
import {
  createAccessKey,
  createAccount,
  createOwner,
  issueToken,
  listAccountSummaries,
  listAllOwners,
  listMembershipSummaries,
  removeMembership,
  requireAccount,
  revokeAccessKeys,
  revokeTokens,
  setAccountDisabled,
  setMembership,
  setPassword,
  setTokenLifetime,
  soleOrganizationName,
} from './accounts.js'

type Body = Record<string, unknown>

const NAME_MAX = 255
/** Long enough for any pass phrase; short enough that scrypt is never asked to hash a megabyte. */
const PASSWORD_MAX = 1024

function bodyOf(input: unknown): Body {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw invalid('The request body must be a JSON object')
  return input as Body
}

const administer = (ctx: RequestContext, what: string) => requirePlatformAdministrator(ctx.caller.account, what)

export type AccountSummary = Awaited<ReturnType<typeof listAccountSummaries>>[number]

/** Every owner, oldest first. */
export async function adminListOwners(ctx: RequestContext) {
  administer(ctx, 'manage owners')
  return listAllOwners(ctx.store.db)
}

/**
 * Creates an Organization, Community or Source.
 * @example await adminCreateOwner(ctx, { name: 'OSINT feeds', type: 'Source' })
 */
export async function adminCreateOwner(ctx: RequestContext, input: unknown) {
  administer(ctx, 'manage owners')
  const body = bodyOf(input)
  const created = await createOwner(
    ctx.store.db,
    {
      name: requiredText(body, 'name', true, { max: NAME_MAX })!,
      type: requiredText(body, 'type', true)!,
      description: optionalText(body, 'description', { max: 4000 }) ?? undefined,
    },
    ctx.now,
  )
  return (await listAllOwners(ctx.store.db)).find((o) => o.id === created.id)!
}

/** Accounts (no credential of any sort), optionally of one kind or one Organization. */
export async function adminListAccounts(ctx: RequestContext, filter: { kind?: string; organization?: string }) {
  administer(ctx, 'manage accounts')
  if (filter.kind !== undefined && !(ACCOUNT_KINDS as readonly string[]).includes(filter.kind))
    throw invalid(`kind must be one of ${ACCOUNT_KINDS.join(', ')}; not '${filter.kind}'`)
  return listAccountSummaries(ctx.store.db, filter)
}

async function accountSummary(ctx: RequestContext, userName: string): Promise<AccountSummary> {
  const account = await requireAccount(ctx.store.db, userName)
  const summaries = await listAccountSummaries(ctx.store.db, { kind: account.kind })
  return summaries.find((a) => a.id === account.id)!
}

/**
 * Creates an account as `bulwark users create` does: kind `api` unless given, in the only Organization unless one
 * is named. A password is optional but for TAXII accounts; with it a human account signs in to the console.
 * @example await adminCreateAccount(ctx, { userName: 'ana', kind: 'human', password: 'correct horse', role: 'Standard User' })
 */
export async function adminCreateAccount(ctx: RequestContext, input: unknown): Promise<AccountSummary> {
  administer(ctx, 'manage accounts')
  const body = bodyOf(input)
  const lifetime = optionalInteger(body, 'tokenLifetimeDays', { min: 1 })
  const userName = requiredText(body, 'userName', true, { max: NAME_MAX })!
  await createAccount(
    ctx.store.db,
    {
      userName,
      kind: requiredText(body, 'kind', false) ?? 'api',
      organization:
        requiredText(body, 'organization', false, { max: NAME_MAX }) ??
        (await soleOrganizationName(ctx.store.db, ' with organization')),
      role: requiredText(body, 'role', false),
      systemRole: requiredText(body, 'systemRole', false),
      firstName: optionalText(body, 'firstName', { max: NAME_MAX }) || undefined,
      lastName: optionalText(body, 'lastName', { max: NAME_MAX }) || undefined,
      pseudonym: optionalText(body, 'pseudonym', { max: NAME_MAX }) || undefined,
      email: optionalText(body, 'email', { max: NAME_MAX }) || undefined,
      password: optionalText(body, 'password', { max: PASSWORD_MAX }) || undefined,
      tokenLifetimeDays: lifetime ?? undefined,
    },
    ctx.now,
  )
  return accountSummary(ctx, userName)
}

/**
 * Changes what `bulwark users disable|enable|set-password|set-token-lifetime` change, each only when given:
 * `disabled`, `password`, `tokenLifetimeDays` (null: new tokens do not expire). An administrator cannot disable
 * their own account: nobody would be left to enable it from the console.
 */
export async function adminUpdateAccount(ctx: RequestContext, userName: string, input: unknown) {
  administer(ctx, 'manage accounts')
  const body = bodyOf(input)
  await requireAccount(ctx.store.db, userName)
  const disabled = booleanValue(body.disabled, 'disabled')
  const password = optionalText(body, 'password', { max: PASSWORD_MAX })
  const lifetime = optionalInteger(body, 'tokenLifetimeDays', { min: 0 })
  const known = new Set(['disabled', 'password', 'tokenLifetimeDays'])
  const unknown = Object.keys(body).filter((k) => !known.has(k))
  if (unknown.length)
    throw invalid(`Only disabled, password and tokenLifetimeDays can be changed here; not ${unknown.join(', ')}`)
  if (disabled === undefined && password === undefined && lifetime === undefined)
    throw invalid('Give at least one of disabled, password, tokenLifetimeDays')
  if (disabled && userName === ctx.caller.account.userName)
    throw invalid('You cannot disable your own account; another administrator can')
  if (password === null) throw invalid('password cannot be removed, only changed')
  if (password !== undefined) await setPassword(ctx.store.db, userName, password, ctx.now)
  if (lifetime !== undefined) await setTokenLifetime(ctx.store.db, userName, lifetime || null, ctx.now)
  if (disabled !== undefined) await setAccountDisabled(ctx.store.db, userName, disabled, ctx.now)
  return accountSummary(ctx, userName)
}

/** Memberships of one account, of one owner, or of everyone. */
export async function adminListMemberships(ctx: RequestContext, filter: { userName?: string; ownerName?: string }) {
  administer(ctx, 'manage memberships')
  return listMembershipSummaries(ctx.store.db, filter)
}

/** Adds the membership or changes its role (the role must suit the owner's type). */
export async function adminSetMembership(ctx: RequestContext, userName: string, ownerName: string, input: unknown) {
  administer(ctx, 'manage memberships')
  const role = requiredText(bodyOf(input), 'role', true)!
  return setMembership(ctx.store.db, userName, ownerName, role, ctx.now)
}

export async function adminRemoveMembership(ctx: RequestContext, userName: string, ownerName: string) {
  administer(ctx, 'manage memberships')
  await removeMembership(ctx.store.db, userName, ownerName)
  return { userName, owner: ownerName, removed: true }
}

/**
 * Issues an API token, answered this once (the database keeps its hash): `lifetimeDays`, else the account's token
 * lifetime; or `temporary: true` for 4 hours.
 */
export async function adminIssueToken(ctx: RequestContext, userName: string, input: unknown) {
  administer(ctx, 'manage API tokens')
  const body = bodyOf(input ?? {})
  const issued = await issueToken(
    ctx.store.db,
    userName,
    {
      lifetimeDays: optionalInteger(body, 'lifetimeDays', { min: 1 }) ?? undefined,
      temporary: booleanValue(body.temporary, 'temporary'),
    },
    Date.parse(ctx.now),
  )
  return { userName, kind: issued.kind, token: issued.token, expiresAt: issued.expiresAt }
}

/** Revokes every token of the account. */
export async function adminRevokeTokens(ctx: RequestContext, userName: string) {
  administer(ctx, 'manage API tokens')
  return { userName, revoked: await revokeTokens(ctx.store.db, userName) }
}

/** An access id and secret key for HMAC signatures (API accounts), answered this once. */
export async function adminCreateAccessKey(ctx: RequestContext, userName: string) {
  administer(ctx, 'manage access keys')
  const key = await createAccessKey(ctx.store.db, ctx.services.secretBox, userName, ctx.now)
  return { userName, accessId: key.accessId, secretKey: key.secretKey }
}

/** Revokes one pair (`accessId`) or every pair of the account. */
export async function adminRevokeAccessKeys(ctx: RequestContext, userName: string, accessId?: string) {
  administer(ctx, 'manage access keys')
  return { userName, revoked: await revokeAccessKeys(ctx.store.db, userName, accessId) }
}

export async function adminListSettings(ctx: RequestContext): Promise<SettingView[]> {
  administer(ctx, 'manage system settings')
  return describeSettings(ctx.services.settings)
}

/**
 * Sets one setting or several, `{name: value, …}` (true/false, whole numbers, or the same as text). Every value is
 * checked before any is stored, so a refused one leaves them all as they were.
 * @example await adminSetSettings(ctx, { tqlTimeoutMs: 10000, bulkDeleteEnabled: false })
 */
export async function adminSetSettings(ctx: RequestContext, input: unknown): Promise<SettingView[]> {
  administer(ctx, 'manage system settings')
  const entries = Object.entries(bodyOf(input))
  if (!entries.length) throw invalid('Name at least one setting: {"<name>": <value>}')
  const texts = entries.map(([name, value]) => {
    if (typeof value !== 'boolean' && typeof value !== 'number' && typeof value !== 'string')
      throw invalid(`Setting '${name}' takes true, false or a whole number`)
    readSetting(name, String(value))
    return [name, String(value)] as const
  })
  for (const [name, text] of texts) await ctx.services.settings.set(name, text)
  return describeSettings(ctx.services.settings)
}

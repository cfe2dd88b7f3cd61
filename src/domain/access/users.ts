/**
 * User accounts as /v3/security/users shows them: the accounts of the caller's Organization.
 * Anyone may read them; Organization Administrators also see system role, owner roles and
 * account state, and alone may create, change and delete accounts (`manageUsers`). Nobody may
 * act on, or grant, the Administrator and Operations Administrator system roles here.
 */
import { ORGANIZATION_ROLES, SYSTEM_ROLES } from '../../model/roles.js'
import * as admin from '../../store/repositories/user-admin.repository.js'
import { createAccount, setMembership, setPassword } from './accounts.js'
import { findAccountByUserName } from '../../store/repositories/account.repository.js'
import { type RequestContext, requirePermission } from '../context.js'
import { DomainError, conflict, invalid, notFound } from '../../core/errors.js'
import { optionalBoolean, optionalInteger, optionalText, requiredText } from '../../core/input.js'
import { isAllowed } from '../permissions.js'
import { isBarredFrom } from './owner-scope.js'

const PROTECTED_SYSTEM_ROLES = ['Administrator', 'Operations Administrator']

export interface UserRecord {
  id: number
  userName: string
  firstName: string | null
  lastName: string | null
  pseudonym: string | null
  owner: string
  /** Present only for Organization Administrators. */
  details?: {
    systemRole: string
    ownerRoles: Record<string, string>
    disabled: boolean
    customTqlTimeout: number | null
    kind: string
  }
}

function orgMembership(ctx: RequestContext) {
  return ctx.caller.memberships.find((m) => m.ownerId === ctx.caller.account.organizationId)
}

function isOrgAdmin(ctx: RequestContext): boolean {
  const m = orgMembership(ctx)
  return !!m && isAllowed(m, 'manageUsers')
}

async function requireUserAdmin(ctx: RequestContext) {
  const m = orgMembership(ctx)
  if (!m) throw new DomainError('forbidden', 'You have no membership in your Organization')
  await requirePermission(ctx, 'manageUsers', m)
}

async function loadUsersOfOrg(ctx: RequestContext, ids: readonly number[]): Promise<UserRecord[]> {
  const rows = (await admin.findAccountsByIds(ctx.store, ids)).filter(
    (r) => r.organization_id === ctx.caller.account.organizationId,
  )
  const detailed = isOrgAdmin(ctx)
  const memberships = detailed
    ? await admin.listMembershipsOf(
        ctx.store,
        rows.map((r) => r.id),
      )
    : []
  const byId = new Map(rows.map((r) => [r.id, r]))
  return ids
    .map((id) => byId.get(id))
    .filter((r) => r !== undefined)
    .map((r) => ({
      id: r.id,
      userName: r.user_name,
      firstName: r.first_name,
      lastName: r.last_name,
      pseudonym: r.pseudonym,
      owner: r.organization_name,
      ...(detailed
        ? {
            details: {
              systemRole: r.system_role,
              disabled: !!r.disabled,
              customTqlTimeout: r.tql_timeout_ms,
              kind: r.kind,
              ownerRoles: Object.fromEntries(
                memberships
                  .filter((m) => m.user_id === r.id && !isBarredFrom(ctx, m.owner_id))
                  .map((m) => [m.owner_name, m.role]),
              ),
            },
          }
        : {}),
    }))
}

/** One page of the Organization's accounts, oldest first. */
export async function listUsers(ctx: RequestContext, page: { resultStart: number; resultLimit: number }) {
  const ids = (await admin.listOrganizationAccountIds(ctx.store.db, ctx.caller.account.organizationId)).map((r) => r.id)
  const slice = ids.slice(page.resultStart, page.resultStart + page.resultLimit)
  return {
    items: await loadUsersOfOrg(ctx, slice),
    hasMore: ids.length > page.resultStart + page.resultLimit,
    total: ids.length,
  }
}

export async function getUser(ctx: RequestContext, id: number): Promise<UserRecord> {
  const [user] = await loadUsersOfOrg(ctx, [id])
  if (!user) throw notFound(`User ${id} not found`)
  return user
}

function readSystemRole(body: Record<string, unknown>, required: boolean): string | undefined {
  const role = requiredText(body, 'systemRole', required)
  if (role === undefined) return undefined
  if (!(SYSTEM_ROLES as readonly string[]).includes(role))
    throw invalid(`systemRole must be one of ${SYSTEM_ROLES.join(', ')}`)
  if (PROTECTED_SYSTEM_ROLES.includes(role))
    throw new DomainError('forbidden', `The ${role} system role cannot be granted through the API`)
  return role
}

/** The Organization role out of ownerRoles; roles in Communities and Sources cannot be set here (the platform's rule). */
function readOrgRole(ctx: RequestContext, body: Record<string, unknown>, required: boolean): string | undefined {
  const roles = body.ownerRoles
  if (roles === undefined || roles === null) {
    if (required) throw invalid(`ownerRoles is required, e.g. {"${orgMembership(ctx)!.ownerName}": "Standard User"}`)
    return undefined
  }
  if (typeof roles !== 'object' || Array.isArray(roles)) throw invalid('ownerRoles must map owner names to roles')
  const orgName = orgMembership(ctx)!.ownerName
  let role: string | undefined
  for (const [owner, value] of Object.entries(roles)) {
    if (owner !== orgName)
      throw invalid(`Only the role in ${orgName} can be set here; roles in Communities and Sources cannot`)
    if (typeof value !== 'string' || !(ORGANIZATION_ROLES as readonly string[]).includes(value)) {
      throw invalid(`The role in ${orgName} must be one of ${ORGANIZATION_ROLES.join(', ')}`)
    }
    role = value
  }
  if (required && !role) throw invalid(`ownerRoles must give the role in ${orgName}`)
  return role
}

const KIND_OF_SYSTEM_ROLE: Record<string, 'api' | 'taxii' | 'human'> = {
  'Api User': 'api',
  'Exchange Admin': 'api',
  'Taxii User': 'taxii',
}

/** Creates an account in the caller's Organization (Organization Administrators only). */
export async function createUser(ctx: RequestContext, input: unknown): Promise<UserRecord> {
  await requireUserAdmin(ctx)
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw invalid('The request body must be a JSON object')
  const body = input as Record<string, unknown>
  const orgName = orgMembership(ctx)!.ownerName
  const owner = optionalText(body, 'owner')
  if (owner && owner !== orgName) throw invalid(`Users can be created only in your Organization (${orgName})`)
  const systemRole = readSystemRole(body, true)!
  const kind = KIND_OF_SYSTEM_ROLE[systemRole] ?? 'human'
  const created = await createAccount(
    ctx.store.db,
    {
      userName: requiredText(body, 'userName', true, { max: 255 })!,
      kind,
      organization: orgName,
      systemRole,
      role: readOrgRole(ctx, body, true),
      firstName: requiredText(body, 'firstName', true, { max: 255 }),
      lastName: requiredText(body, 'lastName', true, { max: 255 }),
      pseudonym: optionalText(body, 'pseudonym', { max: 255 }) ?? undefined,
      password: kind === 'api' ? undefined : requiredText(body, 'password', kind === 'taxii', { max: 255 }),
    },
    ctx.now,
  )
  const tqlTimeout = optionalInteger(body, 'customTqlTimeout', { min: 0 })
  const disabled = optionalBoolean(body, 'disabled')
  if (tqlTimeout !== undefined || disabled !== undefined) {
    await admin.updateAccount(ctx.store.db, created.id, {
      ...(tqlTimeout !== undefined ? { tql_timeout_ms: tqlTimeout } : {}),
      ...(disabled !== undefined ? { disabled: disabled ? 1 : 0 } : {}),
      last_modified: ctx.now,
    })
  }
  return getUser(ctx, created.id)
}

async function requireManageableUser(ctx: RequestContext, id: number): Promise<UserRecord> {
  await requireUserAdmin(ctx)
  const user = await getUser(ctx, id)
  if (PROTECTED_SYSTEM_ROLES.includes(user.details!.systemRole)) {
    throw new DomainError(
      'forbidden',
      `Users with the ${user.details!.systemRole} system role cannot be changed through the API`,
    )
  }
  return user
}

export async function updateUser(ctx: RequestContext, id: number, input: unknown): Promise<UserRecord> {
  const user = await requireManageableUser(ctx, id)
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw invalid('The request body must be a JSON object')
  const body = input as Record<string, unknown>
  const role = readOrgRole(ctx, body, false)
  const password = optionalText(body, 'password', { max: 255 })
  const tqlTimeout = optionalInteger(body, 'customTqlTimeout', { min: 0 })
  const disabled = optionalBoolean(body, 'disabled')
  const changes: admin.AccountChanges = {
    user_name: requiredText(body, 'userName', false, { max: 255 }),
    first_name: optionalText(body, 'firstName', { max: 255 }),
    last_name: optionalText(body, 'lastName', { max: 255 }),
    pseudonym: optionalText(body, 'pseudonym', { max: 255 }),
    system_role: readSystemRole(body, false),
    tql_timeout_ms: tqlTimeout,
    disabled: disabled === undefined ? undefined : disabled ? 1 : 0,
    last_modified: ctx.now,
  }
  if (
    changes.user_name &&
    changes.user_name !== user.userName &&
    (await findAccountByUserName(ctx.store.db, changes.user_name))
  ) {
    throw conflict(`An account named '${changes.user_name}' already exists`)
  }
  if (id === ctx.caller.account.id && (disabled || (role && role !== 'Organization Administrator'))) {
    throw invalid('You cannot disable yourself or give up your own administrator role')
  }
  await admin.updateAccount(
    ctx.store.db,
    id,
    Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)) as admin.AccountChanges,
  )
  if (role)
    await setMembership(ctx.store.db, changes.user_name ?? user.userName, orgMembership(ctx)!.ownerName, role, ctx.now)
  if (password) await setPassword(ctx.store.db, changes.user_name ?? user.userName, password, ctx.now)
  return getUser(ctx, id)
}

export async function deleteUser(ctx: RequestContext, id: number): Promise<void> {
  await requireManageableUser(ctx, id)
  if (id === ctx.caller.account.id) throw invalid('You cannot delete your own account')
  if ((await admin.countBatchJobsOf(ctx.store.db, id)) > 0)
    throw invalid(`User ${id} has batch jobs on record; disable the account instead`)
  await admin.deleteAccount(ctx.store.db, id)
}

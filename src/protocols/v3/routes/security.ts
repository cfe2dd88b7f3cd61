/** /v3/security/owners (the caller's owners with their permission vector) and /v3/security/users. */
import { invalid } from '../../../domain/errors.js'
import { type OwnerPermissions, getOwnerPermissions, listOwnerPermissions } from '../../../domain/access/owner-permissions.js'
import { type UserRecord, createUser, deleteUser, getUser, listUsers, updateUser } from '../../../domain/access/users.js'
import type { FieldSpec, V3Endpoint } from '../endpoint.js'
import { compact } from '../present-metadata.js'

const OWNER_FIELDS: FieldSpec[] = [
  { name: 'id', type: 'Integer', description: 'The ID of the owner', readOnly: true },
  { name: 'name', type: 'String', description: 'The name of the owner', readOnly: true },
  { name: 'type', type: 'String', description: 'Organization, Community or Source', readOnly: true },
  { name: 'ownerRole', type: 'String', description: 'Your role in the owner', readOnly: true },
  { name: 'perm*', type: 'String', description: 'Your permission per area: FULL, READ, BUILD or NONE', readOnly: true },
]

export const OWNERS: V3Endpoint<OwnerPermissions> = {
  path: 'security/owners', word: 'Owner', fields: OWNER_FIELDS, options: [],
  present: (o) => ({ ...o }),
  async list(ctx, query) {
    if (query.tql?.trim()) throw invalid('TQL is not available on /v3/security/owners')
    const all = listOwnerPermissions(ctx)
    const items = all.slice(query.resultStart, query.resultStart + query.resultLimit)
    return { items, hasMore: all.length > query.resultStart + query.resultLimit, total: all.length }
  },
  async load(ctx, ids) {
    return ids.flatMap((id) => { try { return [getOwnerPermissions(ctx, id)] } catch { return [] } })
  },
}

const USER_FIELDS: FieldSpec[] = [
  { name: 'id', type: 'Integer', description: 'The ID of the user', readOnly: true },
  { name: 'userName', type: 'String', description: 'The user name', required: true },
  { name: 'firstName', type: 'String', description: 'First name', required: true },
  { name: 'lastName', type: 'String', description: 'Last name', required: true },
  { name: 'pseudonym', type: 'String', description: 'Pseudonym' },
  { name: 'password', type: 'String', description: 'Password (not for API users)', required: true },
  { name: 'owner', type: 'String', description: 'The Organization of the user (yours)', required: true, updatable: false },
  { name: 'ownerRoles', type: 'Object', description: 'The user\'s role in your Organization: {"<Organization>": "<role>"}', required: true },
  { name: 'systemRole', type: 'String', description: 'System role (not Administrator or Operations Administrator)', required: true },
  { name: 'disabled', type: 'Boolean', description: 'Whether the account is disabled' },
  { name: 'customTqlTimeout', type: 'Integer', description: 'TQL timeout for the user in milliseconds' },
  { name: 'locked', type: 'Boolean', description: 'Whether the account is locked (always false here)', readOnly: true },
]

function presentUserRecord(u: UserRecord): Record<string, unknown> {
  return compact({
    id: u.id, userName: u.userName, firstName: u.firstName, lastName: u.lastName, pseudonym: u.pseudonym, owner: u.owner,
    ...(u.details ? {
      systemRole: u.details.systemRole, ownerRoles: u.details.ownerRoles, disabled: u.details.disabled, locked: false,
      customTqlTimeout: u.details.customTqlTimeout,
    } : {}),
  })
}

export const USERS: V3Endpoint<UserRecord> = {
  path: 'security/users', word: 'User', fields: USER_FIELDS, options: [],
  present: presentUserRecord,
  list(ctx, query) {
    if (query.tql?.trim()) throw invalid('TQL is not available on /v3/security/users')
    return listUsers(ctx, query)
  },
  async load(ctx, ids) {
    return (await Promise.all(ids.map((id) => getUser(ctx, id).catch(() => undefined)))).filter((u): u is UserRecord => !!u)
  },
  create: createUser, update: updateUser, remove: deleteUser,
}

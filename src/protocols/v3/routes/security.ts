/** /v3/security/owners (the caller's owners with their permission vector) and /v3/security/users. */
import { invalid } from '../../../core/errors.js'
import {
  type OwnerPermissions,
  getOwnerPermissions,
  listOwnerPermissions,
} from '../../../domain/access/owner-permissions.js'
import {
  type UserRecord,
  createUser,
  deleteUser,
  getUser,
  listUsers,
  updateUser,
} from '../../../domain/access/users.js'
import { OWNER } from '../../../model/owner.js'
import { USER } from '../../../model/user.js'
import { type V3Endpoint, declaredBodyFields } from '../endpoint.js'
import { compact } from '../present-metadata.js'

export const OWNERS: V3Endpoint<OwnerPermissions> = {
  path: 'security/owners',
  word: 'Owner',
  fields: declaredBodyFields(OWNER),
  options: [],
  present: (o) => ({ ...o }),
  async list(ctx, query) {
    if (query.tql?.trim()) throw invalid('TQL is not available on /v3/security/owners')
    const all = listOwnerPermissions(ctx)
    const items = all.slice(query.resultStart, query.resultStart + query.resultLimit)
    return { items, hasMore: all.length > query.resultStart + query.resultLimit, total: all.length }
  },
  async load(ctx, ids) {
    return ids.flatMap((id) => {
      try {
        return [getOwnerPermissions(ctx, id)]
      } catch {
        return []
      }
    })
  },
}

function presentUserRecord(u: UserRecord): Record<string, unknown> {
  return compact({
    id: u.id,
    userName: u.userName,
    firstName: u.firstName,
    lastName: u.lastName,
    pseudonym: u.pseudonym,
    owner: u.owner,
    ...(u.details
      ? {
          systemRole: u.details.systemRole,
          ownerRoles: u.details.ownerRoles,
          disabled: u.details.disabled,
          locked: false,
          customTqlTimeout: u.details.customTqlTimeout,
        }
      : {}),
  })
}

export const USERS: V3Endpoint<UserRecord> = {
  path: 'security/users',
  word: 'User',
  fields: declaredBodyFields(USER),
  options: [],
  present: presentUserRecord,
  list(ctx, query) {
    if (query.tql?.trim()) throw invalid('TQL is not available on /v3/security/users')
    return listUsers(ctx, query)
  },
  async load(ctx, ids) {
    return (await Promise.all(ids.map((id) => getUser(ctx, id).catch(() => undefined)))).filter(
      (u): u is UserRecord => !!u,
    )
  },
  create: createUser,
  update: updateUser,
  remove: deleteUser,
}

/** How records show an account (`createdBy`, `assignee`, `caseOpenUser`). */
import type { Store } from '../../store/connect.js'
import { type UserRefRow, findOrganizationUser, loadUserRefs } from '../../store/repositories/user-ref.repository.js'
import type { RequestContext } from '../context.js'
import { invalid } from '../../core/errors.js'

export interface UserRef {
  id: number
  userName: string
  firstName?: string
  lastName?: string
  pseudonym?: string
  owner: string
}

function toUserRef(row: UserRefRow): UserRef {
  return {
    id: row.id,
    userName: row.user_name,
    firstName: row.first_name ?? undefined,
    lastName: row.last_name ?? undefined,
    pseudonym: row.pseudonym ?? undefined,
    owner: row.owner_name,
  }
}

/** User refs for many account ids at once. */
export async function loadUsers(store: Store, ids: readonly (number | null)[]): Promise<Map<number, UserRef>> {
  const rows = await loadUserRefs(store, ids)
  return new Map([...rows].map(([id, row]) => [id, toUserRef(row)]))
}

/**
 * Reads an assignee in the platform's shape: `{type: "User", data: {userName}|{id}}`, or
 * `{type: "None"}` (or null) to unassign. The user must belong to the caller's Organization.
 * Returns the account id, null to clear, undefined when not given.
 */
export async function parseAssignee(ctx: RequestContext, value: unknown): Promise<number | null | undefined> {
  if (value === undefined) return undefined
  if (value === null) return null
  if (typeof value !== 'object' || Array.isArray(value))
    throw invalid('assignee must be an object like {"type": "User", "data": {"userName": "…"}}')
  const { type, data } = value as { type?: unknown; data?: unknown }
  if (typeof type === 'string' && type.toLowerCase() === 'none') return null
  if (type !== 'User') throw invalid("assignee type must be 'User' or 'None' (user groups are not supported)")
  if (typeof data !== 'object' || data === null) throw invalid('assignee data must name the user by userName or id')
  const { id, userName } = data as { id?: unknown; userName?: unknown }
  const by =
    typeof id === 'number' || (typeof id === 'string' && /^\d+$/.test(id))
      ? { id: Number(id) }
      : typeof userName === 'string' && userName
        ? { userName }
        : undefined
  if (!by) throw invalid('assignee data must name the user by userName or id')
  const user = await findOrganizationUser(ctx.store.db, ctx.caller.account.organizationId, by)
  if (!user) throw invalid(`assignee '${by.userName ?? by.id}' is not a user of your Organization`)
  return user.id
}

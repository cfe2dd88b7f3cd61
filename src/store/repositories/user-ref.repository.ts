/** The few account fields other records show about their author or assignee (`createdBy`, `assignee`). */
import type { Kysely } from 'kysely'
import type { Store } from '../connect.js'
import type { Database } from '../database.js'
import { preparedByIds } from '../engine/prepared-read.js'

export interface UserRefRow {
  id: number
  user_name: string
  first_name: string | null
  last_name: string | null
  pseudonym: string | null
  owner_name: string
}

const findUserRefs = preparedByIds('user_refs_by_id', (db, idIn) =>
  db
    .selectFrom('user_account')
    .innerJoin('owner', 'owner.id', 'user_account.organization_id')
    .select([
      'user_account.id',
      'user_account.user_name',
      'user_account.first_name',
      'user_account.last_name',
      'user_account.pseudonym',
      'owner.name as owner_name',
    ])
    .where(idIn('user_account.id')),
)

export async function loadUserRefs(store: Store, ids: readonly (number | null)[]): Promise<Map<number, UserRefRow>> {
  const rows = await findUserRefs(store, [...new Set(ids.filter((id): id is number => typeof id === 'number'))])
  return new Map(rows.map((r) => [r.id, r]))
}

/** An account of the Organization by user name or id, for assigning work. */
export function findOrganizationUser(
  db: Kysely<Database>,
  organizationId: number,
  by: { id?: number; userName?: string },
) {
  let q = db.selectFrom('user_account').select(['id', 'user_name']).where('organization_id', '=', organizationId)
  if (by.id !== undefined) q = q.where('id', '=', by.id)
  if (by.userName !== undefined) q = q.where('user_name', '=', by.userName)
  return q.executeTakeFirst()
}

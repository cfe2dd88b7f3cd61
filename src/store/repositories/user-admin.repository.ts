/** Account changes made through /v3/security/users (the admin CLI uses account.repository directly). */
import { type Kysely, sql } from 'kysely'
import type { Store } from '../connect.js'
import type { Database } from '../database.js'
import { preparedByIds } from '../engine/prepared-read.js'

export interface AccountChanges {
  user_name?: string
  first_name?: string | null
  last_name?: string | null
  pseudonym?: string | null
  system_role?: string
  disabled?: number
  tql_timeout_ms?: number | null
  last_modified: string
}

export async function updateAccount(db: Kysely<Database>, id: number, changes: AccountChanges): Promise<void> {
  if (Object.keys(changes).length === 0) return
  await db.updateTable('user_account').set(changes).where('id', '=', id).execute()
}

export function listOrganizationAccountIds(db: Kysely<Database>, organizationId: number) {
  return db
    .selectFrom('user_account')
    .select('id')
    .where('organization_id', '=', organizationId)
    .orderBy('id')
    .execute()
}

export const findAccountsByIds = preparedByIds('accounts_by_id', (db, idIn) =>
  db
    .selectFrom('user_account')
    .innerJoin('owner', 'owner.id', 'user_account.organization_id')
    .selectAll('user_account')
    .select('owner.name as organization_name')
    .where(idIn('user_account.id')),
)

export const listMembershipsOf = preparedByIds('memberships_of_users', (db, idIn) =>
  db
    .selectFrom('membership')
    .innerJoin('owner', 'owner.id', 'membership.owner_id')
    .select(['membership.user_id', 'membership.role', 'owner.name as owner_name', 'owner.id as owner_id'])
    .where(idIn('membership.user_id'))
    .orderBy('owner.id'),
)

export async function countBatchJobsOf(db: Kysely<Database>, userId: number): Promise<number> {
  const row = await db
    .selectFrom('batch_job')
    .select(sql<number>`count(*)`.as('n'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** Removes the account; its tokens, keys and memberships go with it (foreign keys cascade). */
export async function deleteAccount(db: Kysely<Database>, id: number): Promise<void> {
  await db.deleteFrom('user_account').where('id', '=', id).execute()
}

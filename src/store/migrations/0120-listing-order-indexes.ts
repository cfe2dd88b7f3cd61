/**
 * Listings read one owner's rows in id order (`… WHERE owner_id = ? ORDER BY id LIMIT n`). An index on
 * (owner_id, id) hands them over in that order, so a page is a seek and a short range scan and no
 * planner, with or without statistics, has a reason to sort the owner's rows. Tasks, Victims and Cases
 * have had such an index from the start; Indicators and Groups only had (owner_id, <other column>, id).
 */
import type { Kysely } from 'kysely'

const INDEXES = [
  ['indicator_owner_id', 'indicator'],
  ['intel_group_owner_id', 'intel_group'],
] as const

export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, table] of INDEXES) await db.schema.createIndex(name).on(table).columns(['owner_id', 'id']).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [name] of INDEXES) await db.schema.dropIndex(name).execute()
}

/**
 * An index on indicator.date_added alone: TQL's dateAdded filters span owners, and the
 * existing (owner_id, date_added, id) index serves them only behind an owner condition.
 */
import type { Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('indicator_date_added').on('indicator').columns(['date_added', 'id']).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('indicator_date_added').execute()
}

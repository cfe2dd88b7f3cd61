/**
 * Intelligence Requirements show who created them (v3 `createdBy`), like Cases and Groups;
 * the initial schema had no column for it.
 */
import type { Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('intel_requirement').addColumn('created_by', 'integer').execute()
  await db.schema.createIndex('intel_requirement_owner').on('intel_requirement').columns(['owner_id', 'id']).execute()
  await db.schema.createIndex('note_case').on('note').columns(['case_id']).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('note_case').execute()
  await db.schema.dropIndex('intel_requirement_owner').execute()
  await db.schema.alterTable('intel_requirement').dropColumn('created_by').execute()
}

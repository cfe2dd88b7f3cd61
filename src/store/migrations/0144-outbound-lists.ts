/**
 * Outbound lists (domain/lists/, docs/lists.md): a named TQL query over Indicators, saved by an
 * administrator, that firewalls and other consumers read as plain text or CSV at a stable URL.
 * `types` (JSON array of Indicator type names) and `owner_ids` (JSON array of owner ids) narrow
 * it; null means every type, and every owner the reader may read.
 */
import type { Kysely } from 'kysely'
import { withId } from './schema-helpers.js'

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('outbound_list'))
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('tql', 'text', (c) => c.notNull())
    .addColumn('types', 'text')
    .addColumn('owner_ids', 'text')
    .addColumn('created_by', 'integer')
    .addColumn('date_added', 'text', (c) => c.notNull())
    .addColumn('last_modified', 'text', (c) => c.notNull())
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('outbound_list').ifExists().execute()
}

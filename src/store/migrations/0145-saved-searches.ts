/**
 * Saved searches (domain/saved-searches/, docs/console.md): a named TQL query over Indicators or Groups,
 * private to its creator (`owner_id` null) or shared with the members of one owner. Pins are per person
 * (`saved_search_pin`): a member pins a shared search to their own dashboard without changing it for the
 * others. An outbound list may follow a saved search (`outbound_list.saved_search_id`) instead of its own TQL;
 * the search cannot be deleted while a list follows it (no cascade: the list would silently serve nothing).
 */
import type { Kysely } from 'kysely'
import { withId } from './schema-helpers.js'

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('saved_search'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('tql', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('owner_id', 'integer', (c) => c.references('owner.id').onDelete('cascade'))
    .addColumn('created_by', 'integer', (c) => c.notNull().references('user_account.id').onDelete('cascade'))
    .addColumn('date_added', 'text', (c) => c.notNull())
    .addColumn('last_modified', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('saved_search_creator').on('saved_search').columns(['created_by', 'id']).execute()
  await db.schema.createIndex('saved_search_owner').on('saved_search').columns(['owner_id', 'id']).execute()
  await db.schema
    .createTable('saved_search_pin')
    .addColumn('saved_search_id', 'integer', (c) => c.notNull().references('saved_search.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('user_account.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('saved_search_pin_key', ['user_id', 'saved_search_id'])
    .execute()
  await db.schema.createIndex('saved_search_pin_search').on('saved_search_pin').columns(['saved_search_id']).execute()
  await db.schema
    .alterTable('outbound_list')
    .addColumn('saved_search_id', 'integer', (c) => c.references('saved_search.id').onDelete('set null'))
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('outbound_list').dropColumn('saved_search_id').execute()
  await db.schema.dropTable('saved_search_pin').ifExists().execute()
  await db.schema.dropTable('saved_search').ifExists().execute()
}

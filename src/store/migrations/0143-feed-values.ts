/**
 * Mirror mode of CSV and text feeds (domain/feeds/mirror.ts): the values each list brought, with
 * the last run that brought them, so the values that left the list can be found once a run has
 * stored the whole list. A File is held by each of its hashes (the batch writer matches Files by
 * any hash). Rows go with their feed.
 */
import type { Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('feed_value')
    .addColumn('feed_id', 'integer', (c) => c.notNull().references('feed.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('summary', 'text', (c) => c.notNull())
    .addColumn('last_run_id', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('feed_value_pk', ['feed_id', 'type', 'summary'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('feed_value').ifExists().execute()
}

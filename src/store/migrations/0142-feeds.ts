/**
 * Feeds Bulwark pulls on a schedule (docs/feeds.md) and the record of each run. A feed's
 * credentials are sealed under the server key (domain/access/credentials.ts SecretBox), as HMAC
 * secrets are, because a node must present them; its cursor is what the next pull starts from,
 * written in the transaction that stores the items it covers. A due feed is taken under a lease
 * (store/repositories/lease.repository.ts), so one node runs it.
 */
import type { Kysely } from 'kysely'
import { withId } from './schema-helpers.js'

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('feed'))
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('owner.id').onDelete('cascade'))
    .addColumn('credentials_sealed', 'text')
    .addColumn('ca_pem', 'text')
    .addColumn('interval_seconds', 'integer', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('defaults', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('import_from', 'text')
    .addColumn('max_objects_per_run', 'integer')
    .addColumn('cursor', 'text')
    .addColumn('next_run_at', 'text', (c) => c.notNull())
    .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_success_at', 'text')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires', 'text')
    .addColumn('created_by', 'integer')
    .addColumn('date_added', 'text', (c) => c.notNull())
    .addColumn('last_modified', 'text', (c) => c.notNull())
    .execute()
  // The scheduler's question: which enabled feeds are due.
  await db.schema.createIndex('feed_due').on('feed').columns(['enabled', 'next_run_at']).execute()

  await withId(db, db.schema.createTable('feed_run'))
    .addColumn('feed_id', 'integer', (c) => c.notNull().references('feed.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('worker', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .addColumn('pages', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('fetched', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('unchanged', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('refused', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('refusals', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('error', 'text')
    .execute()
  await db.schema.createIndex('feed_run_feed').on('feed_run').columns(['feed_id', 'id']).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('feed_run').ifExists().execute()
  await db.schema.dropTable('feed').ifExists().execute()
}

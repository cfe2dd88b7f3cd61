/**
 * Multi-part feed results (TAXII 1.1 Poll_Fulfillment): where each part of a result starts,
 * kept in the database so that any node can serve any part. A row per part; the first row of
 * a result is written when the result is created, each later one when the part before it is
 * served. Rows are pruned by age (created_at).
 */
import type { Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('feed_result_part')
    .addColumn('result_id', 'text', (c) => c.notNull())
    .addColumn('part_number', 'integer', (c) => c.notNull())
    .addColumn('account_id', 'integer', (c) => c.notNull())
    .addColumn('owner_id', 'integer', (c) => c.notNull())
    .addColumn('since', 'text')
    .addColumn('until', 'text', (c) => c.notNull())
    .addColumn('record_count', 'integer', (c) => c.notNull())
    .addColumn('after_last_modified', 'text')
    .addColumn('after_id', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('feed_result_part_pk', ['result_id', 'part_number'])
    .execute()
  await db.schema.createIndex('feed_result_part_created').on('feed_result_part').column('created_at').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('feed_result_part').execute()
}

/**
 * Imports uploaded through the API (POST /v3/imports, domain/imports/import-jobs.ts): the job, its
 * file in parts of a megabyte (so no node holds a whole upload in memory, and any node's worker can
 * read it), and the refusals it found, each with its place in the file.
 */
import type { Kysely } from 'kysely'
import { blobType, withId } from './schema-helpers.js'

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('import_job'))
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('owner.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('user_account.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('request', 'text', (c) => c.notNull())
    .addColumn('bytes', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('format', 'text')
    .addColumn('items', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('jobs', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('success_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('error_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('message', 'text')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires', 'text')
    .addColumn('date_added', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('completed_at', 'text')
    .execute()
  await db.schema.createIndex('import_job_status').on('import_job').columns(['status', 'id']).execute()
  await db.schema.createIndex('import_job_user').on('import_job').columns(['user_id', 'id']).execute()
  await db.schema
    .createTable('import_input_part')
    .addColumn('job_id', 'integer', (c) => c.notNull().references('import_job.id').onDelete('cascade'))
    .addColumn('part', 'integer', (c) => c.notNull())
    .addColumn('content', blobType(db), (c) => c.notNull())
    .addPrimaryKeyConstraint('import_input_part_pk', ['job_id', 'part'])
    .execute()
  await withId(db, db.schema.createTable('import_error'))
    .addColumn('job_id', 'integer', (c) => c.notNull().references('import_job.id').onDelete('cascade'))
    .addColumn('item', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('import_error_job').on('import_error').columns(['job_id', 'id']).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('import_error').execute()
  await db.schema.dropTable('import_input_part').execute()
  await db.schema.dropTable('import_job').execute()
}

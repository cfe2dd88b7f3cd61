/**
 * Durable batch jobs: batch_job.progress holds the resume point (phase, offset within the
 * phase) and the per-kind counts, committed with each chunk's writes, so a job taken over
 * by another node continues exactly where the last commit left it. batch_error.source names
 * the input item an error is about (e.g. `indicator[12]`).
 */
import type { Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('batch_job').addColumn('progress', 'text').execute()
  await db.schema.alterTable('batch_error').addColumn('source', 'text').execute()
  await db.schema.createIndex('batch_job_user').on('batch_job').columns(['user_id']).execute()
  await db.schema
    .createTable('batch_input')
    .addColumn('job_id', 'integer', (c) => c.primaryKey().references('batch_job.id').onDelete('cascade'))
    .addColumn('content', 'text', (c) => c.notNull())
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('batch_input').execute()
  await db.schema.dropIndex('batch_job_user').execute()
  await db.schema.alterTable('batch_error').dropColumn('source').execute()
  await db.schema.alterTable('batch_job').dropColumn('progress').execute()
}

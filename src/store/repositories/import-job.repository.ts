/**
 * Import jobs (domain/imports/import-jobs.ts): the job row, its uploaded file in parts, its refusals,
 * and the compare-and-set lease by which one worker at a time runs it (as batch jobs are claimed).
 */
import type { Kysely, Selectable } from 'kysely'
import type { Database, ImportJobTable } from '../database.js'
import { leaseOf } from './lease.repository.js'

export type ImportJobRow = Selectable<ImportJobTable>

export async function insertImportJob(
  db: Kysely<Database>,
  job: { ownerId: number; userId: number; request: string; now: string },
): Promise<number> {
  const row = await db
    .insertInto('import_job')
    .values({
      owner_id: job.ownerId,
      user_id: job.userId,
      status: 'Receiving',
      request: job.request,
      date_added: job.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

export async function insertImportPart(db: Kysely<Database>, jobId: number, part: number, content: Buffer) {
  await db.insertInto('import_input_part').values({ job_id: jobId, part, content }).execute()
}

/** The parts in order, one at a time: `after` is the last part read (-1 before the first). */
export async function findImportPart(db: Kysely<Database>, jobId: number, after: number) {
  return db
    .selectFrom('import_input_part')
    .select(['part', 'content'])
    .where('job_id', '=', jobId)
    .where('part', '>', after)
    .orderBy('part')
    .limit(1)
    .executeTakeFirst()
}

export async function queueImportJob(db: Kysely<Database>, jobId: number, bytes: number) {
  await db
    .updateTable('import_job')
    .set({ status: 'Queued', bytes })
    .where('id', '=', jobId)
    .where('status', '=', 'Receiving')
    .execute()
}

export async function deleteImportJob(db: Kysely<Database>, jobId: number) {
  await db.deleteFrom('import_job').where('id', '=', jobId).execute()
}

export function findImportJob(db: Kysely<Database>, jobId: number) {
  return db.selectFrom('import_job').selectAll().where('id', '=', jobId).executeTakeFirst()
}

/** A user's jobs, newest first. */
export function listImportJobs(db: Kysely<Database>, userId: number, limit: number) {
  return db
    .selectFrom('import_job')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute()
}

/**
 * How import jobs are claimed: Queued, or Running under a lease that ran out (its node died), as batch
 * jobs are (lease.repository.ts).
 */
export const importJobLease = leaseOf({
  table: 'import_job',
  key: 'id',
  status: { waiting: 'Queued', running: 'Running' },
})

/** Claims a job; a job claimed again after its node died runs from the start, so it starts again. */
export function claimImportJob(
  db: Kysely<Database>,
  jobId: number,
  workerId: string,
  now: string,
  leaseUntil: string,
): Promise<boolean> {
  return importJobLease.claim(db, jobId, { workerId, now, leaseUntil }, { started_at: now })
}

/** Records progress and extends the lease; false when another worker holds the job now. */
export async function recordImportProgress(
  db: Kysely<Database>,
  jobId: number,
  workerId: string,
  leaseUntil: string,
  progress: { format?: string; items: number; jobs: number; successCount: number; errorCount: number },
): Promise<boolean> {
  return importJobLease.renew(db, jobId, workerId, {
    lease_expires: leaseUntil,
    ...(progress.format ? { format: progress.format } : {}),
    items: progress.items,
    jobs: progress.jobs,
    success_count: progress.successCount,
    error_count: progress.errorCount,
  })
}

/** Ends the job (Completed or Failed) with its refusals, and lets go of its file. */
export async function finishImportJob(
  db: Kysely<Database>,
  jobId: number,
  workerId: string,
  outcome: {
    status: 'Completed' | 'Failed'
    now: string
    message?: string
    errors: readonly { item: string; message: string }[]
  },
): Promise<boolean> {
  const done = await importJobLease.finish(db, jobId, workerId, {
    status: outcome.status,
    completed_at: outcome.now,
    message: outcome.message ?? null,
  })
  if (!done) return false
  await db.deleteFrom('import_error').where('job_id', '=', jobId).execute()
  for (let i = 0; i < outcome.errors.length; i += 500) {
    await db
      .insertInto('import_error')
      .values(outcome.errors.slice(i, i + 500).map((e) => ({ job_id: jobId, item: e.item, message: e.message })))
      .execute()
  }
  await db.deleteFrom('import_input_part').where('job_id', '=', jobId).execute()
  return true
}

export function listImportErrors(db: Kysely<Database>, jobId: number, offset: number, limit: number) {
  return db
    .selectFrom('import_error')
    .select(['item', 'message'])
    .where('job_id', '=', jobId)
    .orderBy('id')
    .offset(offset)
    .limit(limit)
    .execute()
}

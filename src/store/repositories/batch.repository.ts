/**
 * Batch jobs and their errors. A job is claimed with a lease by one compare-and-set UPDATE,
 * so two nodes never run one job; every progress commit re-checks the lease (fencing), so a
 * node that lost its lease cannot write progress over the new holder's.
 */
import { type Kysely, sql } from 'kysely'
import { BATCH_CHANNEL } from '../batch-wakeups.js'
import type { Database, Row } from '../database.js'
import { leaseOf } from './lease.repository.js'

export type BatchJobRow = Row<'batch_job'>
export type BatchErrorRow = Row<'batch_error'>
export type BatchStatus = BatchJobRow['status']

export interface NewBatchError {
  code: string
  severity: string
  reason: string
  message: string
  source: string | null
}

export async function insertBatchJob(
  db: Kysely<Database>,
  values: { ownerId: number; userId: number; options: string; now: string },
): Promise<number> {
  const row = await db
    .insertInto('batch_job')
    .values({
      owner_id: values.ownerId,
      user_id: values.userId,
      status: 'Created',
      options: values.options,
      input: null,
      date_added: values.now,
      started_at: null,
      completed_at: null,
      lease_owner: null,
      lease_expires: null,
      progress: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

/** The job without its (possibly large) input. */
export function findBatchJob(db: Kysely<Database>, id: number) {
  return db
    .selectFrom('batch_job')
    .select([
      'id',
      'owner_id',
      'user_id',
      'status',
      'options',
      'error_count',
      'success_count',
      'unprocess_count',
      'date_added',
      'started_at',
      'completed_at',
      'lease_owner',
      'lease_expires',
      'progress',
    ])
    .where('id', '=', id)
    .executeTakeFirst()
}

export async function findBatchInput(db: Kysely<Database>, id: number): Promise<string | null> {
  const row = await db.selectFrom('batch_input').select('content').where('job_id', '=', id).executeTakeFirst()
  return row?.content ?? null
}

/**
 * Stores the input and queues the job, only while it is still Created. `notify` (PostgreSQL)
 * sends NOTIFY on BATCH_CHANNEL with the commit, waking the workers of every node.
 */
export function queueBatchJob(db: Kysely<Database>, id: number, input: string, notify = false): Promise<boolean> {
  // Joins the caller's transaction when there is one: a feed's run queues a page's jobs with its cursor.
  const inTransaction = <T>(work: (trx: Kysely<Database>) => Promise<T>) =>
    db.isTransaction ? work(db) : db.transaction().execute(work)
  return inTransaction(async (trx) => {
    const r = await trx
      .updateTable('batch_job')
      .set({ status: 'Queued' })
      .where('id', '=', id)
      .where('status', '=', 'Created')
      .executeTakeFirst()
    if (Number(r.numUpdatedRows) !== 1) return false
    await trx.insertInto('batch_input').values({ job_id: id, content: input }).execute()
    if (notify) await sql`select pg_notify(${BATCH_CHANNEL}, ${String(id)})`.execute(trx)
    return true
  })
}

/** How batch jobs are claimed, renewed and handed back (lease.repository.ts). */
export const batchJobLease = leaseOf({
  table: 'batch_job',
  key: 'id',
  status: { waiting: 'Queued', running: 'Running' },
})

/** Compare-and-set claim: true for exactly one of any number of racing workers. */
export function claimBatchJob(
  db: Kysely<Database>,
  id: number,
  workerId: string,
  now: string,
  leaseUntil: string,
): Promise<boolean> {
  // A job resumed on another node keeps the time it first started.
  return batchJobLease.claim(db, id, { workerId, now, leaseUntil }, { started_at: sql`coalesce(started_at, ${now})` })
}

/**
 * Whether a job of the same owner that was queued before this one is still being run by a live worker (its lease
 * not run out): its Indicators and Groups may not all be written yet. A running job whose node died is not waited
 * for: its lease runs out and whoever claims it next writes them.
 */
export async function hasEarlierJobRunning(
  db: Kysely<Database>,
  job: { id: number; owner_id: number },
  now: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('batch_job')
    .select('id')
    .where('status', '=', 'Running')
    .where('id', '<', job.id)
    .where('owner_id', '=', job.owner_id)
    .where('lease_expires', '>', now)
    .limit(1)
    .executeTakeFirst()
  return row !== undefined
}

export interface ProgressCommit {
  progress: string
  successCount: number
  errorCount: number
  leaseUntil: string
}

/** Writes progress and renews the lease; false when the lease now belongs to someone else. */
export async function commitBatchProgress(
  db: Kysely<Database>,
  id: number,
  workerId: string,
  commit: ProgressCommit,
): Promise<boolean> {
  return batchJobLease.renew(db, id, workerId, {
    progress: commit.progress,
    success_count: commit.successCount,
    error_count: commit.errorCount,
    lease_expires: commit.leaseUntil,
  })
}

export async function completeBatchJob(
  db: Kysely<Database>,
  id: number,
  workerId: string,
  final: { progress: string; successCount: number; errorCount: number; unprocessCount: number; now: string },
): Promise<boolean> {
  const done = await batchJobLease.finish(db, id, workerId, {
    status: 'Completed',
    progress: final.progress,
    success_count: final.successCount,
    error_count: final.errorCount,
    unprocess_count: final.unprocessCount,
    completed_at: final.now,
  })
  if (!done) return false
  // A completed job never reads its input again.
  await db.deleteFrom('batch_input').where('job_id', '=', id).execute()
  return true
}

export async function insertBatchErrors(
  db: Kysely<Database>,
  jobId: number,
  errors: readonly NewBatchError[],
): Promise<void> {
  for (let i = 0; i < errors.length; i += 1000) {
    await db
      .insertInto('batch_error')
      .values(errors.slice(i, i + 1000).map((e) => ({ job_id: jobId, ...e })))
      .execute()
  }
}

export interface BatchErrorFilter {
  code?: string
  severities?: string[]
}

export function listBatchErrors(
  db: Kysely<Database>,
  jobId: number,
  filter: BatchErrorFilter = {},
): Promise<BatchErrorRow[]> {
  let q = db.selectFrom('batch_error').selectAll().where('job_id', '=', jobId)
  if (filter.code) q = q.where(sql<string>`upper(code)`, '=', filter.code.toUpperCase())
  if (filter.severities?.length) q = q.where('severity', 'in', filter.severities)
  return q.orderBy('id').execute()
}

export async function countBatchErrors(db: Kysely<Database>, jobId: number): Promise<number> {
  const row = await db
    .selectFrom('batch_error')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('job_id', '=', jobId)
    .executeTakeFirst()
  return Number(row?.n ?? 0)
}

/** Removes a job that never got going (its definition was accepted but its input refused). */
export async function deleteBatchJob(db: Kysely<Database>, id: number): Promise<void> {
  await db.deleteFrom('batch_job').where('id', '=', id).execute()
}

/** How many jobs are in each state, for metrics. */
export async function batchJobCounts(db: Kysely<Database>): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('batch_job')
    .select((eb) => ['status', eb.fn.countAll<number>().as('n')])
    .groupBy('status')
    .execute()
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]))
}

/** When the longest-waiting queued job was added, or undefined when none waits. */
export async function oldestQueuedJobAdded(db: Kysely<Database>): Promise<string | undefined> {
  const row = await db
    .selectFrom('batch_job')
    .select('date_added')
    .where('status', '=', 'Queued')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst()
  return row?.date_added
}

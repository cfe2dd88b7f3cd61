/**
 * Every account's batch and import jobs, for the system administrators' view of them
 * (domain/batch/every-job.ts, domain/imports/every-import.ts): pages newest first with the owner's
 * and the account's names, and a page of a batch job's errors. Who may read them is the domain's.
 * The jobs' own life (claims, progress, completion) stays in batch.repository.ts and
 * import-job.repository.ts.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../database.js'
import type { BatchErrorRow } from './batch.repository.js'
import type { ImportJobRow } from './import-job.repository.js'

export interface Page {
  offset: number
  limit: number
}

export interface BatchJobAdminRow {
  id: number
  owner_name: string | null
  user_name: string | null
  status: string
  options: string
  error_count: number
  success_count: number
  unprocess_count: number
  date_added: string
  started_at: string | null
  completed_at: string | null
}

export type ImportJobAdminRow = ImportJobRow & { owner_name: string | null; user_name: string | null }

/** Batch jobs of every account, newest first, without their (possibly large) input. */
export function listBatchJobPage(db: Kysely<Database>, page: Page): Promise<BatchJobAdminRow[]> {
  return db
    .selectFrom('batch_job')
    .leftJoin('owner', 'owner.id', 'batch_job.owner_id')
    .leftJoin('user_account', 'user_account.id', 'batch_job.user_id')
    .select([
      'batch_job.id',
      'owner.name as owner_name',
      'user_account.user_name',
      'batch_job.status',
      'batch_job.options',
      'batch_job.error_count',
      'batch_job.success_count',
      'batch_job.unprocess_count',
      'batch_job.date_added',
      'batch_job.started_at',
      'batch_job.completed_at',
    ])
    .orderBy('batch_job.id', 'desc')
    .offset(page.offset)
    .limit(page.limit)
    .execute()
}

export async function countBatchJobs(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('batch_job')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirst()
  return Number(row?.n ?? 0)
}

/** A page of a batch job's errors and warnings, in the order they were recorded. */
export function listBatchErrorPage(db: Kysely<Database>, jobId: number, page: Page): Promise<BatchErrorRow[]> {
  return db
    .selectFrom('batch_error')
    .selectAll()
    .where('job_id', '=', jobId)
    .orderBy('id')
    .offset(page.offset)
    .limit(page.limit)
    .execute()
}

/** Import jobs of every account, newest first. */
export function listImportJobPage(db: Kysely<Database>, page: Page): Promise<ImportJobAdminRow[]> {
  return db
    .selectFrom('import_job')
    .leftJoin('owner', 'owner.id', 'import_job.owner_id')
    .leftJoin('user_account', 'user_account.id', 'import_job.user_id')
    .selectAll('import_job')
    .select(['owner.name as owner_name', 'user_account.user_name'])
    .orderBy('import_job.id', 'desc')
    .offset(page.offset)
    .limit(page.limit)
    .execute()
}

export async function countImportJobs(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('import_job')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirst()
  return Number(row?.n ?? 0)
}

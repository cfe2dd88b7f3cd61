/**
 * Batch jobs of every account, for system administrators: the v2 API's jobs, and those imports and
 * feed runs make. Creators and owner administrators read their own through /v2/batch (jobs.ts); this
 * is the installation's view, which only the system roles that run it may have.
 */
import { invalid, notFound } from '../../core/errors.js'
import { countBatchErrors, findBatchJob } from '../../store/repositories/batch.repository.js'
import {
  type BatchJobAdminRow,
  type Page,
  countBatchJobs,
  listBatchErrorPage,
  listBatchJobPage,
} from '../../store/repositories/job-admin.repository.js'
import type { RequestContext } from '../context.js'
import { requirePlatformAdministrator } from '../permissions.js'
import type { BatchErrorLine, BatchJobAdminView } from './every-job-view.js'

export const requireJobAdministrator = (ctx: Pick<RequestContext, 'caller'>) =>
  requirePlatformAdministrator(ctx.caller.account, 'see every job')

/** Jobs or errors asked for a page at a time: `offset` from 0, `limit` from 1 to 100 (default 20). */
export interface PageRequest {
  offset?: number
  limit?: number
}

export const MAX_JOB_PAGE = 100

export function readJobPage(request: PageRequest): Page {
  const offset = request.offset ?? 0
  const limit = request.limit ?? 20
  if (!Number.isSafeInteger(offset) || offset < 0) throw invalid('resultStart must be a whole number from 0')
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_JOB_PAGE)
    throw invalid(`resultLimit must be a whole number from 1 to ${MAX_JOB_PAGE}`)
  return { offset, limit }
}

function actionOf(options: string): string | undefined {
  try {
    const action = (JSON.parse(options) as { action?: unknown }).action
    return typeof action === 'string' ? action : undefined
  } catch {
    return undefined
  }
}

function viewOf(row: BatchJobAdminRow): BatchJobAdminView {
  const action = actionOf(row.options)
  return {
    id: row.id,
    ...(row.owner_name !== null ? { owner: row.owner_name } : {}),
    ...(row.user_name !== null ? { userName: row.user_name } : {}),
    status: row.status,
    ...(action ? { action } : {}),
    successCount: row.success_count,
    errorCount: row.error_count,
    unprocessCount: row.unprocess_count,
    dateAdded: row.date_added,
    ...(row.started_at ? { startedAt: row.started_at } : {}),
    ...(row.completed_at ? { completedAt: row.completed_at } : {}),
  }
}

/**
 * Every account's batch jobs, newest first, and how many there are.
 * @example const { jobs, count } = await listEveryBatchJob(ctx, { offset: 0, limit: 20 })
 */
export async function listEveryBatchJob(
  ctx: RequestContext,
  request: PageRequest,
): Promise<{ jobs: BatchJobAdminView[]; count: number }> {
  requireJobAdministrator(ctx)
  const page = readJobPage(request)
  const rows = await listBatchJobPage(ctx.store.db, page)
  return { jobs: rows.map(viewOf), count: await countBatchJobs(ctx.store.db) }
}

/** A page of any batch job's errors and warnings, as its error file has them, and how many it has. */
export async function listAnyBatchJobErrors(
  ctx: RequestContext,
  id: number,
  request: PageRequest,
): Promise<{ errors: BatchErrorLine[]; count: number }> {
  requireJobAdministrator(ctx)
  const page = readJobPage(request)
  if (!(await findBatchJob(ctx.store.db, id))) throw notFound(`Batch job ${id} not found`)
  const rows = await listBatchErrorPage(ctx.store.db, id, page)
  return {
    errors: rows.map((r) => ({
      code: r.code,
      severity: r.severity,
      errorReason: r.reason,
      errorMessage: r.message,
      ...(r.source ? { errorSource: r.source } : {}),
    })),
    count: await countBatchErrors(ctx.store.db, id),
  }
}

/**
 * Import jobs of every account, for system administrators: what anyone uploaded through
 * /api/v3/imports, with its counts and refusals. Uploaders and owner administrators read their own
 * there (import-jobs.ts); this is the installation's view.
 */
import { notFound } from '../../core/errors.js'
import { findImportJob, listImportErrors } from '../../store/repositories/import-job.repository.js'
import { countImportJobs, listImportJobPage } from '../../store/repositories/job-admin.repository.js'
import { type PageRequest, readJobPage, requireJobAdministrator } from '../batch/every-job.js'
import type { ImportJobAdminView } from '../batch/every-job-view.js'
import type { RequestContext } from '../context.js'
import type { ImportRefusal } from './import-job-view.js'
import { importJobView } from './import-jobs.js'

/**
 * Every account's imports, newest first, and how many there are.
 * @example const { jobs, count } = await listEveryImportJob(ctx, { offset: 0, limit: 20 })
 */
export async function listEveryImportJob(
  ctx: RequestContext,
  request: PageRequest,
): Promise<{ jobs: ImportJobAdminView[]; count: number }> {
  requireJobAdministrator(ctx)
  const rows = await listImportJobPage(ctx.store.db, readJobPage(request))
  return {
    jobs: rows.map((row) => ({
      ...importJobView(row),
      // The owner as it is named now; the request keeps the name it had when uploaded.
      ...(row.owner_name !== null ? { owner: row.owner_name } : {}),
      ...(row.user_name !== null ? { userName: row.user_name } : {}),
    })),
    count: await countImportJobs(ctx.store.db),
  }
}

/** A page of any import's refusals, and how many it lists (the first 10,000 are kept by place). */
export async function listAnyImportJobErrors(
  ctx: RequestContext,
  id: number,
  request: PageRequest,
): Promise<{ errors: ImportRefusal[]; count: number }> {
  requireJobAdministrator(ctx)
  const page = readJobPage(request)
  const job = await findImportJob(ctx.store.db, id)
  if (!job) throw notFound(`Import ${id} not found`)
  return {
    errors: await listImportErrors(ctx.store.db, id, page.offset, page.limit),
    count: importJobView(job).errorsListed,
  }
}

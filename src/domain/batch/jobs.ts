/**
 * The batch job lifecycle as the API sees it: define (Created), upload the input (Queued),
 * then read status, errors and results. The worker does the rest. A job is visible only to
 * its creator and to the owner's administrators (Organization Administrator, or Director of
 * a Community or Source); to anyone else it does not exist.
 */
import { gzipSync } from 'node:zlib'
import {
  type BatchErrorRow,
  deleteBatchJob,
  findBatchJob,
  insertBatchJob,
  listBatchErrors,
  queueBatchJob,
} from '../../store/repositories/batch.repository.js'
import { announceBatchQueued } from '../../store/batch-wakeups.js'
import type { RequestContext } from '../context.js'
import { membershipFor, selectOwner } from '../access/owner-scope.js'
import { DomainError, invalid, notFound } from '../../core/errors.js'
import { type Action, isAllowed } from '../permissions.js'
import { type BatchOptions, parseBatchDefinition } from './definition.js'
import { type BatchCounts, type OutcomeKind, type WriteOutcome, readProgress } from './progress.js'

export const BATCH_DISABLED_MESSAGE =
  'Batch job api is not available.  Ensure that batchJobEnabled is true and document storage is enabled and configured;'

const ACTION_NOUNS: Partial<Record<Action, string>> = {
  batch: 'run batch jobs',
  create: 'create Indicators; Groups; Attributes; Tags',
  update: 'update Indicators; Groups; Attributes; Tags',
  delete: 'delete Indicators; Groups',
}

async function requireEnabled(ctx: RequestContext) {
  if (!(await ctx.services.settings.getBoolean('batchJobEnabled')))
    throw new DomainError('unavailable', BATCH_DISABLED_MESSAGE)
}

/**
 * Validates the definition and records a job in state Created. The owner is named in the body;
 * the caller needs `batch` there, and `create`+`update` (action Create) or `delete` (action Delete).
 * @example await createBatchJob(ctx, { owner: 'Acme', haltOnError: false, action: 'Create', attributeWriteType: 'Append' })
 */
export async function createBatchJob(
  ctx: RequestContext,
  body: unknown,
  internal: Pick<BatchOptions, 'sourceVersions' | 'observations'> = {},
): Promise<number> {
  await requireEnabled(ctx)
  const options: BatchOptions = { ...parseBatchDefinition(body), ...internal }
  const membership = selectOwner(ctx.caller, options.owner)
  const needed: Action[] = [
    'batch',
    ...(options.action === 'Create' ? (['create', 'update'] as const) : (['delete'] as const)),
  ]
  const missing = needed.filter((a) => !isAllowed(membership, a))
  if (missing.length) {
    throw new DomainError(
      'forbidden',
      `Unable to perform the requested operation due to the following error(s): ${missing
        .map((a) => `You do not have permission to ${ACTION_NOUNS[a]};`)
        .join(' ')} (owner ${membership.ownerName}, role ${membership.role})`,
    )
  }
  return insertBatchJob(ctx.store.db, {
    ownerId: membership.ownerId,
    userId: ctx.caller.account.id,
    options: JSON.stringify(options),
    now: ctx.now,
  })
}

async function requireVisibleJob(ctx: RequestContext, id: number) {
  const job = Number.isSafeInteger(id) && id > 0 ? await findBatchJob(ctx.store.db, id) : undefined
  if (job && job.user_id === ctx.caller.account.id) return job
  const membership = job && membershipFor(ctx, job.owner_id)
  if (job && membership && (membership.role === 'Organization Administrator' || membership.role === 'Director'))
    return job
  throw notFound(`Batch job ${id} not found`)
}

/** Reported the platform's way by the v2 route: 400 {status: 'Invalid', description}. */
export class BatchInvalidError extends DomainError {
  constructor(message: string) {
    super('invalid', message)
  }
}

/** Stores the input file and queues the job. Only a Created job takes an input, once. */
export async function uploadBatchInput(ctx: RequestContext, id: number, content: Buffer | string): Promise<void> {
  await requireEnabled(ctx)
  const job = await requireVisibleJob(ctx, id)
  const limit = Number(await ctx.services.settings.get('batchMaxUploadBytes'))
  const size = typeof content === 'string' ? Buffer.byteLength(content) : content.length
  if (size > limit) throw new BatchInvalidError(`File size greater than allowable limit of ${limit}`)
  if (size === 0) throw invalid('The batch input file is empty')
  const text = typeof content === 'string' ? content : content.toString('utf8')
  if (job.status !== 'Created' || !(await queueBatchJob(ctx.store.db, id, text, ctx.store.dialect === 'postgres'))) {
    throw invalid(`Batch job ${id} already has its input file (status ${job.status})`)
  }
  announceBatchQueued(ctx.store)
}

/**
 * The platform's one-call form (tcex's default `submit`): define the job and upload its input
 * together. A refused input leaves no job behind.
 */
export async function createAndUploadBatchJob(
  ctx: RequestContext,
  definition: unknown,
  content: Buffer | string,
): Promise<BatchStatusView> {
  const id = await createBatchJob(ctx, definition)
  try {
    await uploadBatchInput(ctx, id, content)
  } catch (error) {
    await deleteBatchJob(ctx.store.db, id)
    throw error
  }
  return getBatchStatus(ctx, id, true)
}

export interface BatchStatusView {
  id: number
  status: string
  errorCount: number
  successCount: number
  unprocessCount: number
  [additional: string]: number | string
}

/** The job's status; `additional` adds the per-kind counts. */
export async function getBatchStatus(ctx: RequestContext, id: number, additional: boolean): Promise<BatchStatusView> {
  const job = await requireVisibleJob(ctx, id)
  const view: BatchStatusView = {
    id: job.id,
    status: job.status,
    errorCount: job.error_count,
    successCount: job.success_count,
    unprocessCount: job.unprocess_count,
  }
  if (!additional) return view
  const { counts: c } = readProgress(job.progress)
  // The spec's counts only: an import's observations are beyond it.
  return {
    ...view,
    successIndicatorCount: c.successIndicatorCount,
    errorIndicatorCount: c.errorIndicatorCount,
    successGroupCount: c.successGroupCount,
    errorGroupCount: c.errorGroupCount,
    successAssociationCount: c.successAssociationCount,
    errorAssociationCount: c.errorAssociationCount,
    warningCount: c.warningCount,
  }
}

export interface BatchResult {
  code: string
  severity: string
  errorReason: string
  errorMessage: string
  errorSource?: string
}

const toResult = (row: BatchErrorRow): BatchResult => ({
  code: row.code,
  severity: row.severity,
  errorReason: row.reason,
  errorMessage: row.message,
  ...(row.source ? { errorSource: row.source } : {}),
})

/** The error file: the job's errors and warnings as gzip-compressed JSON. Only once the job completed. */
export async function getBatchErrorFile(ctx: RequestContext, id: number): Promise<Buffer> {
  const job = await requireVisibleJob(ctx, id)
  if (job.status !== 'Completed') throw new BatchInvalidError(`Batch still in ${job.status} state`)
  const rows = await listBatchErrors(ctx.store.db, id)
  if (rows.length === 0) throw notFound(`Batch job ${id} has no errors`)
  return gzipSync(JSON.stringify(rows.map(toResult)))
}

export interface BatchOutcome {
  successCount: number
  errorCount: number
  /** Successes and errors per kind. */
  counts: BatchCounts
  /** Of the successes per kind: created, updated, unchanged. */
  outcomes: Record<OutcomeKind, WriteOutcome>
  results: BatchResult[]
}

/** A job's counts and all its errors and warnings in one read, for a caller that ran the job itself (the CLI import). */
export async function readBatchOutcome(ctx: RequestContext, id: number): Promise<BatchOutcome> {
  const job = await requireVisibleJob(ctx, id)
  const { counts, outcomes } = readProgress(job.progress)
  return {
    successCount: job.success_count,
    errorCount: job.error_count,
    counts,
    outcomes,
    results: (await listBatchErrors(ctx.store.db, id)).map(toResult),
  }
}

const SEVERITIES: Record<string, string> = {
  err: 'Error',
  error: 'Error',
  warn: 'Warning',
  warning: 'Warning',
  info: 'Info',
}

export interface ResultFilter {
  code?: string
  contains?: string
  severity?: string[]
}

/** Errors and warnings as JSON, filtered by code (`0x…`), text they contain, and severity. */
export async function listBatchResults(ctx: RequestContext, id: number, filter: ResultFilter): Promise<BatchResult[]> {
  await requireVisibleJob(ctx, id)
  if (filter.code !== undefined && !/^0x[0-9a-f]{1,8}$/i.test(filter.code))
    throw invalid(`code must be a hexadecimal error code such as 0x1005, not '${filter.code}'`)
  const severities = filter.severity
    ?.flatMap((s) => s.split(','))
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean)
  for (const s of severities ?? [])
    if (!SEVERITIES[s]) throw invalid(`severity accepts err, error, info, warn, warning; not '${s}'`)
  const all = await listBatchErrors(ctx.store.db, id)
  if (all.length === 0) throw notFound(`Batch job ${id} has no errors`)
  const wanted = severities?.length ? new Set(severities.map((s) => SEVERITIES[s])) : undefined
  const needle = filter.contains?.toLowerCase()
  return all
    .filter(
      (r) =>
        (!filter.code || r.code.toLowerCase() === filter.code.toLowerCase()) &&
        (!wanted || wanted.has(r.severity)) &&
        (!needle || r.reason.toLowerCase().includes(needle) || r.message.toLowerCase().includes(needle)),
    )
    .map(toResult)
}

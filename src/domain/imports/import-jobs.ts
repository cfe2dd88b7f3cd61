/**
 * Imports uploaded through the API (POST /v3/imports, beyond the spec): the file is stored as it
 * arrives, in parts of a megabyte, and a worker of any node runs it (runImport, as `bulwark import`
 * does) under a lease, recording its progress as it goes and its refusals at the end. A job is
 * visible to its creator and to the owner's administrators, as batch jobs are; to anyone else it
 * does not exist. A node that dies while running one lets go of it when its lease runs out, and
 * another runs it again from the start: items already written come back unchanged (STIX, MISP) or
 * are written again with the same values.
 */
import { EventEmitter } from 'node:events'
import { StringDecoder } from 'node:string_decoder'
import { DomainError, invalid, notFound } from '../../core/errors.js'
import type { Store } from '../../store/connect.js'
import {
  type ImportJobRow,
  claimImportJob,
  deleteImportJob,
  findImportJob,
  findImportPart,
  finishImportJob,
  importJobLease,
  insertImportJob,
  insertImportPart,
  listImportErrors,
  listImportJobs,
  queueImportJob,
  recordImportProgress,
} from '../../store/repositories/import-job.repository.js'
import { callerOf, contextOutsideRequest } from '../access/callers.js'
import { membershipFor } from '../access/owner-scope.js'
import type { RequestContext } from '../context.js'
import type { Services } from '../services.js'
import type { ImportJobView, ImportRefusal } from './import-job-view.js'
import { type ImportRequest, type ImportTally, importFormat, requireImportable, runImport } from './run-import.js'

const PART_BYTES = 1024 * 1024
/** Refusals a job keeps by place; the rest are counted. */
export const IMPORT_JOB_MAX_ERRORS = 10_000
const LEASE_MS = 60_000
/** How often a running job writes its progress (and renews its lease). */
const PROGRESS_EVERY_MS = 1_000

/** Wakes this process's import worker when a job is queued here; other nodes find it by polling. */
export const importQueued = new EventEmitter()

export type { ImportJobView } from './import-job-view.js'

export type ImportOptions = Pick<ImportRequest, 'owner' | 'name' | 'format' | 'type' | 'map'>

function view(job: ImportJobRow): ImportJobView {
  const request = JSON.parse(job.request) as ImportOptions
  return {
    id: job.id,
    owner: request.owner,
    status: job.status,
    fileName: request.name,
    format: job.format,
    bytes: job.bytes,
    items: job.items,
    jobs: job.jobs,
    successCount: job.success_count,
    errorCount: job.error_count,
    errorsListed: Math.min(job.error_count, IMPORT_JOB_MAX_ERRORS),
    ...(job.message ? { message: job.message } : {}),
    dateAdded: job.date_added,
    ...(job.started_at ? { startedAt: job.started_at } : {}),
    ...(job.completed_at ? { completedAt: job.completed_at } : {}),
  }
}

/**
 * Stores an upload as it arrives and queues its import. The format is checked against the first
 * part (named, or found from the name and the content), so a file no reader takes is refused at once.
 */
export async function createImportJob(
  ctx: RequestContext,
  options: ImportOptions,
  body: AsyncIterable<Buffer>,
): Promise<ImportJobView> {
  if (!(await ctx.services.settings.getBoolean('batchJobEnabled')))
    throw new DomainError('unavailable', 'Imports run as batch jobs, and batchJobEnabled is false')
  const membership = requireImportable(ctx.caller, options.owner)
  const maxBytes = Number(await ctx.services.settings.get('importMaxBytes'))
  const request: ImportOptions = { ...options, owner: membership.ownerName }
  const id = await insertImportJob(ctx.store.db, {
    ownerId: membership.ownerId,
    userId: ctx.caller.account.id,
    request: JSON.stringify(request),
    now: ctx.now,
  })
  let bytes = 0
  try {
    let part = 0
    let held: Buffer[] = []
    let heldBytes = 0
    const store = async () => {
      const content = Buffer.concat(held)
      if (part === 0) importFormat({ ...request, head: () => content.subarray(0, 4096).toString('utf8') })
      await insertImportPart(ctx.store.db, id, part++, content)
      held = []
      heldBytes = 0
    }
    for await (const chunk of body) {
      bytes += chunk.length
      if (bytes > maxBytes)
        throw new DomainError('too_large', `The file is larger than ${maxBytes} bytes (setting importMaxBytes)`)
      held.push(chunk)
      heldBytes += chunk.length
      if (heldBytes >= PART_BYTES) await store()
    }
    if (bytes === 0) throw invalid('The file is empty')
    if (heldBytes) await store()
    await queueImportJob(ctx.store.db, id, bytes)
  } catch (error) {
    await deleteImportJob(ctx.store.db, id)
    throw error
  }
  importQueued.emit('queued')
  return view((await findImportJob(ctx.store.db, id))!)
}

async function requireVisibleImport(ctx: RequestContext, id: number): Promise<ImportJobRow> {
  const job = Number.isSafeInteger(id) && id > 0 ? await findImportJob(ctx.store.db, id) : undefined
  if (job && job.user_id === ctx.caller.account.id) return job
  const membership = job && membershipFor(ctx, job.owner_id)
  if (job && membership && (membership.role === 'Organization Administrator' || membership.role === 'Director'))
    return job
  throw notFound(`Import ${id} not found`)
}

/** A job's row as the API shows it (also to system administrators, domain/imports/every-import.ts). */
export { view as importJobView }

export async function getImportJob(ctx: RequestContext, id: number): Promise<ImportJobView> {
  return view(await requireVisibleImport(ctx, id))
}

/** The caller's own imports, newest first. */
export async function listOwnImportJobs(ctx: RequestContext, limit = 100): Promise<ImportJobView[]> {
  return (await listImportJobs(ctx.store.db, ctx.caller.account.id, limit)).map(view)
}

/** A page of a job's refusals, in the order they were found. */
export async function listImportJobErrors(
  ctx: RequestContext,
  id: number,
  start: number,
  limit: number,
): Promise<ImportRefusal[]> {
  await requireVisibleImport(ctx, id)
  return listImportErrors(ctx.store.db, id, start, limit)
}

/** The uploaded file again, part after part, as text. */
async function* storedText(store: Store, jobId: number): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8')
  for (let last = -1; ;) {
    const part = await findImportPart(store.db, jobId, last)
    if (!part) break
    last = part.part
    yield decoder.write(Buffer.from(part.content))
  }
  const rest = decoder.end()
  if (rest) yield rest
}

class LeaseLost extends Error {}

/**
 * Claims and runs every import job that can be claimed now, one after another; how many it ran.
 * Tests call it to drive jobs synchronously.
 */
export async function runPendingImports(
  store: Store,
  services: Services,
  workerId: string,
  stopping = () => false,
): Promise<number> {
  let ran = 0
  for (;;) {
    if (stopping()) return ran
    let claimed: number | undefined
    const now = new Date()
    for (const id of await importJobLease.claimable(store.db, now.toISOString(), 10)) {
      if (await claimImportJob(store.db, id, workerId, now.toISOString(), leaseFrom(now.getTime()))) {
        claimed = id
        break
      }
    }
    if (claimed === undefined) return ran
    await runImportJob(store, services, claimed, workerId)
    ran++
  }
}

const leaseFrom = (ms: number) => new Date(ms + LEASE_MS).toISOString()

async function runImportJob(store: Store, services: Services, id: number, workerId: string) {
  const job = (await findImportJob(store.db, id))!
  const request = JSON.parse(job.request) as ImportOptions
  const finish = (outcome: { status: 'Completed' | 'Failed'; message?: string; errors: ImportTally['errors'] }) =>
    finishImportJob(store.db, id, workerId, { ...outcome, now: new Date().toISOString() })
  try {
    const caller = await callerOf(store, services, { id: job.user_id })
    if (!caller) throw invalid('The account that uploaded the file is disabled or gone')
    const ctx = contextOutsideRequest(store, services, caller, requireImportable(caller, request.owner))
    let format: string | undefined
    let written = 0
    const record = async (tally: ImportTally) => {
      if (Date.now() - written < PROGRESS_EVERY_MS) return
      written = Date.now()
      if (!(await recordImportProgress(store.db, id, workerId, leaseFrom(written), { format, ...tally })))
        throw new LeaseLost()
    }
    const first = await findImportPart(store.db, id, -1)
    const head = first ? Buffer.from(first.content).subarray(0, 4096).toString('utf8') : ''
    format = importFormat({ ...request, head: () => head }).name
    const tally = await runImport(
      ctx,
      storedText(store, id),
      { ...request, format, maxErrors: IMPORT_JOB_MAX_ERRORS },
      record,
    )
    await recordImportProgress(store.db, id, workerId, leaseFrom(Date.now()), tally)
    await finish({ status: 'Completed', errors: tally.errors })
  } catch (error) {
    if (error instanceof LeaseLost) return
    const message = error instanceof DomainError ? error.message : `The import stopped: ${(error as Error).message}`
    await finish({ status: 'Failed', message, errors: [] })
  }
}

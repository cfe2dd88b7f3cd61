/**
 * An import: the items a format's reader finds in a text (formats/), written by the batch machinery
 * in jobs of at most IMPORT_CHUNK items and batchMaxUploadBytes, so the rules, merging and per-item
 * errors are the API's own. The text is read as it streams: memory holds one job's items, never the
 * input. A bad item is reported by its place in the input and the run goes on. A reader whose items
 * carry their source's versions (STIX) runs its jobs with sourceVersions, so a version already held is
 * not written again. `bulwark import` and the upload endpoint's jobs (import-jobs.ts) both run here.
 */
import { randomUUID } from 'node:crypto'
import { invalid } from '../../core/errors.js'
import { isoNow } from '../../core/time.js'
import type { DirectoryFiles, Format, ReadOptions, TextChunks } from '../../formats/format.js'
import { READ_FORMATS, detectDirectoryFormat, detectFormat, findFormat } from '../../formats/index.js'
import { createBatchJob, getBatchStatus, readBatchOutcome, uploadBatchInput } from '../batch/jobs.js'
import { claimJob } from '../batch/leases.js'
import { runBatchJob } from '../batch/run-job.js'
import type { RequestContext } from '../context.js'

/** Items per batch job at most, below the default batchMaxIndicators (25,000); fewer when they would pass batchMaxUploadBytes. */
export const IMPORT_CHUNK = 5_000
/** Refusals listed by place; the rest are counted. */
export const MAX_REPORTED_ERRORS = 100

export const IMPORT_FORMATS = READ_FORMATS

/** The batch file's arrays, in the order a job writes them. */
const KINDS = ['indicator', 'group', 'association'] as const
type Kind = (typeof KINDS)[number]

export interface ImportError {
  item: string
  message: string
}

export interface ImportTally {
  items: number
  jobs: number
  successCount: number
  errorCount: number
  errors: ImportError[]
}

export interface ImportRequest {
  owner: string
  /** What refusals call the input (a file's path or name). */
  name: string
  format?: string
  type?: string
  map?: string
  /** The first 4 KB of the input, when the format is to be found from the content too. */
  head?: () => string
  /** Refusals listed by place (default MAX_REPORTED_ERRORS); the rest are counted. */
  maxErrors?: number
  /**
   * A directory's files, for a format published as a directory (a MISP feed): read instead of the
   * input, the format found by the index file the directory holds.
   */
  files?: DirectoryFiles & { holds(fileName: string): boolean }
}

/** The format of an input: `format` when given, else found from its name and its first 4 KB. */
export function importFormat(request: ImportRequest): Format & Required<Pick<Format, 'reader'>> {
  const files = request.files
  const format =
    request.format !== undefined
      ? findFormat(request.format)
      : files
        ? detectDirectoryFormat((name) => files.holds(name))
        : detectFormat(request.name, request.head ?? (() => ''))
  if (files && !format?.reader?.directory)
    throw invalid(`${request.name} is a directory that no format reads (a MISP feed holds a manifest.json)`)
  if (!format?.reader) throw invalid(`format must be ${IMPORT_FORMATS.join(', ')}, not '${request.format}'`)
  const options: ReadOptions = { name: request.name, type: request.type, map: request.map }
  format.reader.check?.(options)
  return format as Format & Required<Pick<Format, 'reader'>>
}

/**
 * Batch items waiting for their job, as JSON text, each with the place in the input its errors are
 * reported by; `bytes` is the size of the job's file they make.
 */
type Pending = Record<Kind, { texts: string[]; sources: string[] }> & { bytes: number }

const EMPTY_JOB_FILE_BYTES = '{"indicator":[],"group":[],"association":[]}'.length

const nothingPending = (): Pending => ({
  indicator: { texts: [], sources: [] },
  group: { texts: [], sources: [] },
  association: { texts: [], sources: [] },
  bytes: EMPTY_JOB_FILE_BYTES,
})

const pendingCount = (pending: Pending) => KINDS.reduce((n, kind) => n + pending[kind].texts.length, 0)

/**
 * Reads `input` with the request's format and writes what it holds into the request's owner, as
 * `ctx`'s account; `progress` is called (and awaited) as the run goes: every thousand elements and after each job.
 */
export async function runImport(
  ctx: RequestContext,
  input: TextChunks,
  request: ImportRequest,
  progress?: (tally: ImportTally) => void | Promise<void>,
): Promise<ImportTally & { format: string }> {
  const format = importFormat(request)
  const reader = format.reader
  // A job's file must fit the batch upload limit as much as its item count does.
  const maxBytes = Number(await ctx.services.settings.get('batchMaxUploadBytes'))
  const maxErrors = request.maxErrors ?? MAX_REPORTED_ERRORS
  const tally: ImportTally = { items: 0, jobs: 0, successCount: 0, errorCount: 0, errors: [] }
  let pending = nothingPending()
  const flush = async () => {
    if (pendingCount(pending)) await runChunk(ctx, request.owner, pending, tally, reader.sourceVersions, maxErrors)
    pending = nothingPending()
    await progress?.(tally)
  }
  const options: ReadOptions = { name: request.name, type: request.type, map: request.map }
  const events = request.files ? reader.directory!.read(request.files, options) : reader.read(input, options)
  for await (const event of events) {
    if (event.kind === 'input') {
      addError(tally, { item: '(file)', message: event.error }, maxErrors)
      continue
    }
    if (++tally.items % 1000 === 0) await progress?.(tally)
    if (event.error !== undefined) addError(tally, { item: event.where, message: event.error }, maxErrors)
    const items: [Kind, { where: string; item: unknown }[]][] = [
      ['group', event.groups ?? []],
      ['indicator', event.indicators.map(({ where, indicator }) => ({ where, item: indicator }))],
      ['association', event.associations ?? []],
    ]
    // An element's items stay in one job, so its associations find its Groups and Indicators written.
    const texts = items.map(
      ([kind, list]) => [kind, list.map(({ where, item }) => [where, JSON.stringify(item)] as const)] as const,
    )
    const bytes = texts.reduce((n, [, list]) => list.reduce((m, [, text]) => m + Buffer.byteLength(text) + 1, n), 0)
    if (EMPTY_JOB_FILE_BYTES + bytes > maxBytes) {
      addError(
        tally,
        {
          item: event.where,
          message: `its items take ${bytes} bytes, more than a batch job takes (setting batchMaxUploadBytes, ${maxBytes})`,
        },
        maxErrors,
      )
      continue
    }
    if (pending.bytes + bytes > maxBytes) await flush()
    for (const [kind, list] of texts) {
      for (const [where, text] of list) {
        pending[kind].texts.push(text)
        pending[kind].sources.push(where)
      }
    }
    pending.bytes += bytes
    if (pendingCount(pending) >= IMPORT_CHUNK) await flush()
  }
  await flush()
  return { format: format.name, ...tally }
}

function addError(tally: ImportTally, error: ImportError, maxErrors: number) {
  tally.errorCount++
  if (tally.errors.length < maxErrors) tally.errors.push(error)
}

/**
 * One job, created, filled and run here. A worker of a running server may claim it first (it was
 * announced when its input was stored): then this waits for that worker to complete it.
 */
async function runChunk(
  ctx: RequestContext,
  owner: string,
  pending: Pending,
  tally: ImportTally,
  sourceVersions: true | undefined,
  maxErrors: number,
) {
  const id = await createBatchJob(
    { ...ctx, now: isoNow() },
    { owner, haltOnError: false, action: 'Create', attributeWriteType: 'Append' },
    sourceVersions ? { sourceVersions } : {},
  )
  await uploadBatchInput(ctx, id, `{${KINDS.map((kind) => `"${kind}":[${pending[kind].texts.join(',')}]`).join(',')}}`)
  const workerId = `import:${randomUUID().slice(0, 8)}`
  if (await claimJob(ctx.store, id, workerId)) await runBatchJob(ctx.store, ctx.services, id, { workerId })
  const outcome = await completedOutcome(ctx, id)
  tally.jobs++
  tally.successCount += outcome.successCount
  tally.errorCount += outcome.errorCount
  for (const error of outcome.results) {
    if (tally.errors.length >= maxErrors) break
    // The job numbers items from 0 within its chunk; the report names their place in the input.
    const item = (error.errorSource ?? '').replace(
      /^(indicator|group|association)\[(\d+)\]/,
      (found, kind: Kind, i: string) => pending[kind].sources[Number(i)] ?? found,
    )
    tally.errors.push({
      item,
      message: error.errorMessage.replace(/^(indicator|group|association)\[\d+\]\s*/, ''),
    })
  }
}

/** The job's outcome once it is Completed (at once when this process ran it). */
async function completedOutcome(ctx: RequestContext, id: number) {
  while ((await getBatchStatus(ctx, id, false)).status !== 'Completed')
    await new Promise((resolve) => setTimeout(resolve, 100))
  return readBatchOutcome(ctx, id)
}

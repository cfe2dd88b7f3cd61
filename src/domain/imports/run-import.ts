/**
 * An import: the items a format's reader finds in a text (formats/), written by the batch machinery
 * in jobs of at most IMPORT_CHUNK items and batchMaxUploadBytes, so the rules, merging and per-item
 * errors are the API's own. The text is read as it streams: memory holds one job's items, never the
 * input. A bad item is reported by its place in the input and the run goes on. A reader whose items
 * carry their source's versions (STIX) runs its jobs with sourceVersions, so a version already held is
 * not written again. `bulwark import` and the upload endpoint's jobs (import-jobs.ts) both run here.
 */
import { randomUUID } from 'node:crypto'
import { DomainError, invalid } from '../../core/errors.js'
import { isoNow } from '../../core/time.js'
import type { DirectoryFiles, Format, ReadEvent, ReadOptions, TextChunks } from '../../formats/format.js'
import { READ_FORMATS, detectDirectoryFormat, detectFormat, findFormat } from '../../formats/index.js'
import { selectOwner } from '../access/owner-scope.js'
import { createBatchJob, getBatchStatus, readBatchOutcome, uploadBatchInput } from '../batch/jobs.js'
import { claimJob } from '../batch/leases.js'
import type { WriteOutcome } from '../batch/progress.js'
import { runBatchJob } from '../batch/run-job.js'
import type { Caller, RequestContext } from '../context.js'
import { type Membership, isAllowed } from '../permissions.js'

/** Items per batch job at most, below the default batchMaxIndicators (25,000); fewer when they would pass batchMaxUploadBytes. */
export const IMPORT_CHUNK = 5_000
/** Refusals listed by place and reason by default; past them only their number is (errorsNotListed). */
export const MAX_LISTED_ERRORS = 1_000

export const IMPORT_FORMATS = READ_FORMATS

/** The batch file's arrays, in the order a job writes them, and the summary's name of each. */
const KINDS = ['indicator', 'group', 'association', 'observation'] as const
type Kind = (typeof KINDS)[number]
const TALLY_OF = {
  indicator: 'indicators',
  group: 'groups',
  association: 'associations',
  observation: 'observations',
} as const
const REFUSED_OF = {
  indicator: 'errorIndicatorCount',
  group: 'errorGroupCount',
  association: 'errorAssociationCount',
  observation: 'errorObservationCount',
} as const

export interface ImportError {
  item: string
  message: string
}

/** What the written items of one kind did: made, changed, left as they were (a version held already), refused by the batch job. */
export interface KindTally extends WriteOutcome {
  refused: number
}

export interface ImportTally {
  /** Elements read (objects, lines, records). */
  items: number
  jobs: number
  /** Items written (created, updated or unchanged), of every kind. */
  successCount: number
  /** Refusals: of an element by the reader, of an item by the batch job. */
  errorCount: number
  indicators: KindTally
  groups: KindTally
  associations: KindTally
  observations: KindTally
  /** Elements of a kind the format does not import, by that kind (a STIX type). */
  skipped: Record<string, number>
  /** The first refusals (maxErrors), by place and reason. */
  errors: ImportError[]
  errorsNotListed: number
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
  /** Refusals listed by place (default MAX_LISTED_ERRORS); the rest are counted. */
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

/** What an import needs the caller may do in the owner: its items are written by batch jobs. */
const WRITE_ACTIONS = ['batch', 'create', 'update'] as const

/** The caller's membership in the owner, or the refusal that says, in those words, that it cannot write there. */
export function requireImportable(caller: Caller, owner: string): Membership {
  const membership = selectOwner(caller, owner)
  const missing = WRITE_ACTIONS.filter((action) => !isAllowed(membership, action))
  if (missing.length)
    throw new DomainError(
      'forbidden',
      `${caller.account.userName} cannot write to ${membership.ownerName}: as ${membership.role} there they may not ${missing.map((a) => (a === 'batch' ? 'run batch jobs' : `${a} items`)).join(' or ')}. Nothing was imported.`,
    )
  return membership
}

/**
 * Batch items waiting for their job, as JSON text, each with the place in the input its errors are
 * reported by; `bytes` is the size of the job's file they make.
 */
type Pending = Record<Kind, { texts: string[]; sources: string[] }> & { bytes: number }

const EMPTY_JOB_FILE_BYTES = `{${KINDS.map((kind) => `"${kind}":[]`).join(',')}}`.length

const nothingPending = (): Pending => ({
  indicator: { texts: [], sources: [] },
  group: { texts: [], sources: [] },
  association: { texts: [], sources: [] },
  observation: { texts: [], sources: [] },
  bytes: EMPTY_JOB_FILE_BYTES,
})

const pendingCount = (pending: Pending) => KINDS.reduce((n, kind) => n + pending[kind].texts.length, 0)

const noKind = (): KindTally => ({ created: 0, updated: 0, unchanged: 0, refused: 0 })

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
  requireImportable(ctx.caller, request.owner)
  const reader = format.reader
  // A job's file must fit the batch upload limit as much as its item count does.
  const maxBytes = Number(await ctx.services.settings.get('batchMaxUploadBytes'))
  const maxErrors = request.maxErrors ?? MAX_LISTED_ERRORS
  const tally = emptyTally()
  const options: ReadOptions = { name: request.name, type: request.type, map: request.map }
  const events = request.files ? reader.directory!.read(request.files, options) : reader.read(input, options)
  const files = jobFilesOf(events, { maxBytes, tally, maxErrors, progress: () => progress?.(tally) })
  for await (const file of files) {
    const id = await queueJobFile(ctx, request.owner, file, reader.sourceVersions)
    await runQueuedJob(ctx, id, file, tally, maxErrors)
    await progress?.(tally)
  }
  await progress?.(tally)
  return { format: format.name, ...tally }
}

export function emptyTally(): ImportTally {
  return {
    items: 0,
    jobs: 0,
    successCount: 0,
    errorCount: 0,
    indicators: noKind(),
    groups: noKind(),
    associations: noKind(),
    observations: noKind(),
    skipped: {},
    errors: [],
    errorsNotListed: 0,
  }
}

/** The kinds of items a batch job's file holds. */
export type JobItemKind = Kind

/** One batch job's input file, made of a reader's items, and the place in the input of each item by kind. */
export interface JobFile {
  content: string
  sources: Record<Kind, string[]>
}

export interface JobFileOptions {
  /** The largest file a job takes (setting batchMaxUploadBytes). */
  maxBytes: number
  /** Where the reader's elements and refusals are counted (and the first maxErrors refusals listed). */
  tally: ImportTally
  maxErrors: number
  /** What a refusal of the input as a whole calls it. */
  inputItem?: string
  /** An item as it goes into the job (a feed's defaults added), from the reader's. */
  shape?: (kind: Kind, item: unknown) => unknown
  /** Called (and awaited) every thousand elements. */
  progress?: () => void | Promise<void>
}

/**
 * A reader's events as the files of batch jobs of at most IMPORT_CHUNK items and `maxBytes`, in the
 * input's order; the reader's refusals go into the tally as they come. Memory holds one job's items.
 */
export async function* jobFilesOf(events: AsyncIterable<ReadEvent>, options: JobFileOptions): AsyncGenerator<JobFile> {
  const { tally, maxBytes, maxErrors } = options
  const refuse = (error: ImportError) => {
    tally.errorCount++
    listError(tally, error, maxErrors)
  }
  let pending = nothingPending()
  const take = (): JobFile => {
    const file = {
      content: `{${KINDS.map((kind) => `"${kind}":[${pending[kind].texts.join(',')}]`).join(',')}}`,
      sources: Object.fromEntries(KINDS.map((kind) => [kind, pending[kind].sources])) as Record<Kind, string[]>,
    }
    pending = nothingPending()
    return file
  }
  for await (const event of events) {
    if (event.kind === 'input') {
      refuse({ item: options.inputItem ?? '(file)', message: event.error })
      continue
    }
    if (!event.heldBack && ++tally.items % 1000 === 0) await options.progress?.()
    if (event.error !== undefined) refuse({ item: event.where, message: event.error })
    for (const { where, error } of event.earlierErrors ?? []) refuse({ item: where, message: error })
    if (event.skipped !== undefined) tally.skipped[event.skipped] = (tally.skipped[event.skipped] ?? 0) + 1
    const items: [Kind, { where: string; item: unknown }[]][] = [
      ['group', event.groups ?? []],
      ['indicator', event.indicators.map(({ where, indicator }) => ({ where, item: indicator }))],
      ['association', event.associations ?? []],
      ['observation', event.observations ?? []],
    ]
    const shape = options.shape
    // An element's items stay in one job, so its associations find its Groups and Indicators written.
    const texts = items.map(
      ([kind, list]) =>
        [
          kind,
          list.map(({ where, item }) => [where, JSON.stringify(shape ? shape(kind, item) : item)] as const),
        ] as const,
    )
    const bytes = texts.reduce((n, [, list]) => list.reduce((m, [, text]) => m + Buffer.byteLength(text) + 1, n), 0)
    if (EMPTY_JOB_FILE_BYTES + bytes > maxBytes) {
      refuse({
        item: event.where,
        message: `its items take ${bytes} bytes, more than a batch job takes (setting batchMaxUploadBytes, ${maxBytes})`,
      })
      continue
    }
    if (pending.bytes + bytes > maxBytes && pendingCount(pending)) yield take()
    for (const [kind, list] of texts) {
      for (const [where, text] of list) {
        pending[kind].texts.push(text)
        pending[kind].sources.push(where)
      }
    }
    pending.bytes += bytes
    if (pendingCount(pending) >= IMPORT_CHUNK) yield take()
  }
  if (pendingCount(pending)) yield take()
}

/** Lists a refusal already counted, or counts it among those not listed. */
function listError(tally: ImportTally, error: ImportError, maxErrors: number) {
  if (tally.errors.length < maxErrors) tally.errors.push(error)
  else tally.errorsNotListed++
}

/**
 * Creates a job of the owner for the file and stores its input, in `ctx`'s transaction if one is open:
 * from then on the batch machinery writes it, here or on any node (a job whose node died is resumed).
 */
export async function queueJobFile(
  ctx: RequestContext,
  owner: string,
  file: JobFile,
  sourceVersions: true | undefined,
): Promise<number> {
  const id = await createBatchJob(
    { ...ctx, now: isoNow() },
    { owner, haltOnError: false, action: 'Create', attributeWriteType: 'Append' },
    // The observations of sightings are beyond the v2 batch file: an import asks for them.
    sourceVersions ? { sourceVersions, observations: true } : { observations: true },
  )
  await uploadBatchInput(ctx, id, file.content)
  return id
}

/**
 * Runs a queued job here and adds its outcome to the tally. A worker of a running server may claim it
 * first (it was announced when its input was stored): then this waits for that worker to complete it.
 */
export async function runQueuedJob(
  ctx: RequestContext,
  id: number,
  file: JobFile,
  tally: ImportTally,
  maxErrors: number,
  signal?: AbortSignal,
) {
  const workerId = `import:${randomUUID().slice(0, 8)}`
  if (await claimJob(ctx.store, id, workerId)) await runBatchJob(ctx.store, ctx.services, id, { workerId })
  const outcome = await completedOutcome(ctx, id, signal)
  tally.jobs++
  tally.successCount += outcome.successCount
  tally.errorCount += outcome.errorCount
  for (const kind of KINDS) {
    const kindTally = tally[TALLY_OF[kind]]
    kindTally.created += outcome.outcomes[kind].created
    kindTally.updated += outcome.outcomes[kind].updated
    kindTally.unchanged += outcome.outcomes[kind].unchanged
    kindTally.refused += outcome.counts[REFUSED_OF[kind]]
  }
  for (const error of outcome.results) {
    // Warnings (a File's hashes merged) are listed too; only errors are counted (errorCount).
    if (error.severity !== 'Error' && tally.errors.length >= maxErrors) continue
    // The job numbers items from 0 within its chunk; the report names their place in the input.
    const item = (error.errorSource ?? '').replace(
      /^(indicator|group|association|observation)\[(\d+)\]/,
      (found, kind: Kind, i: string) => file.sources[kind][Number(i)] ?? found,
    )
    // An association's or observation's place is its relationship's (or report's, sighting's): its message says what it is about.
    const message = /^(association|observation)/.test(error.errorSource ?? '')
      ? error.errorReason
      : error.errorMessage.replace(/^(indicator|group|association)\[\d+\]\s*/, '')
    listError(tally, { item, message }, maxErrors)
  }
}

/** The job's outcome once it is Completed (at once when this process ran it). */
async function completedOutcome(ctx: RequestContext, id: number, signal?: AbortSignal) {
  while ((await getBatchStatus(ctx, id, false)).status !== 'Completed') {
    // A stopping node's worker hands the job back: its caller stops waiting, another node writes it.
    if (signal?.aborted)
      throw new Error(`stopped waiting for batch job ${id}; it is written by the next worker to claim it`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return readBatchOutcome(ctx, id)
}

/**
 * `bulwark import <file> --owner <name>`: Indicators, and the Groups and associations around them, from any format of formats/ with a reader (STIX
 * 2.0 or 2.1, a V2 batch file, a CSV, a plain list or free text), found from the file
 * (formats/index.ts detectFormat) unless `--format` names it. Everything is written by the batch
 * machinery, in jobs of at most IMPORT_CHUNK items run in this process, so the rules, merging and
 * per-item errors are the API's own. The file is read as it streams, so memory holds one chunk,
 * never the file. A bad item is reported by its place in the file and the run goes on. A reader whose
 * items carry their source's versions (STIX) runs its jobs with sourceVersions, so a version already
 * held is not written again.
 */
import { closeSync, createReadStream, openSync, readSync, statSync } from 'node:fs'
import type { Store } from '../../store/connect.js'
import { createBatchJob, readBatchOutcome, uploadBatchInput } from '../../domain/batch/jobs.js'
import { runBatchJob } from '../../domain/batch/run-job.js'
import type { RequestContext } from '../../domain/context.js'
import { forbidden, invalid } from '../../core/errors.js'
import { isAllowed } from '../../domain/permissions.js'
import type { WriteOutcome } from '../../domain/batch/progress.js'
import type { Services } from '../../domain/services.js'
import { isoNow } from '../../core/time.js'
import { READ_FORMATS, detectFormat, findFormat } from '../../formats/index.js'
import { claimJob } from '../../domain/batch/leases.js'
import { newWorkerId } from '../../worker/batch-worker.js'
import { cliContext } from '../context.js'

/** Items per batch job: below the default batchMaxIndicators (25,000) and batchMaxUploadBytes (2 MB). */
export const IMPORT_CHUNK = 5_000
/** Refusals listed by place and reason; past them only their number is (errorsNotListed). */
export const MAX_LISTED_ERRORS = 1_000

export const IMPORT_FORMATS = READ_FORMATS

export interface ImportProgress {
  items: number
  successCount: number
  errorCount: number
  /** How much of the file has been read, 0 … 1. */
  fraction: number
}

export interface ImportArgs {
  file: string
  owner: string
  format?: string
  type?: string
  /** `--map`: which CSV column holds what (formats/csv/columns.ts). */
  map?: string
  userName: string
  /** Called as the run goes (the progress bar). */
  progress?: (done: ImportProgress) => void
}

interface ItemError {
  item: string
  message: string
}

/** What the written items of one kind did: made, changed, left as they were (a version held already), refused by the batch job. */
export interface KindTally extends WriteOutcome {
  refused: number
}

interface Tally {
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
  /** The first MAX_LISTED_ERRORS refusals, by place and reason. */
  errors: ItemError[]
  errorsNotListed: number
}

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

/** Batch items waiting for their job, each with the place in the file its errors are reported by. */
type Pending = Record<Kind, { items: unknown[]; sources: string[] }>

const nothingPending = (): Pending => ({
  indicator: { items: [], sources: [] },
  group: { items: [], sources: [] },
  association: { items: [], sources: [] },
  observation: { items: [], sources: [] },
})

const pendingCount = (pending: Pending) => KINDS.reduce((n, kind) => n + pending[kind].items.length, 0)

const noKind = (): KindTally => ({ created: 0, updated: 0, unchanged: 0, refused: 0 })

/** What the caller may not do in the owner that an import needs, said as the refusal. */
const WRITE_ACTIONS = ['batch', 'create', 'update'] as const

export async function importCommand(store: Store, services: Services, args: ImportArgs) {
  const format =
    args.format === undefined ? detectFormat(args.file, () => readHead(args.file)) : findFormat(args.format)
  if (!format?.reader) throw invalid(`--format must be ${IMPORT_FORMATS.join(', ')}, not '${args.format}'`)
  const reader = format.reader
  const options = { name: args.file, type: args.type, map: args.map }
  reader.check?.(options)
  const ctx = await cliContext(store, services, args.userName, args.owner)
  const missing = WRITE_ACTIONS.filter((action) => !isAllowed(ctx.membership, action))
  if (missing.length)
    throw forbidden(
      `${args.userName} cannot write to ${ctx.owner.name}: as ${ctx.membership.role} there they may not ${missing.map((a) => (a === 'batch' ? 'run batch jobs' : `${a} items`)).join(' or ')}. Nothing was imported.`,
    )
  const size = Math.max(1, statSync(args.file).size)
  const tally: Tally = {
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
  let pending = nothingPending()
  let charsRead = 0
  const report = () =>
    args.progress?.({
      items: tally.items,
      successCount: tally.successCount,
      errorCount: tally.errorCount,
      fraction: Math.min(1, charsRead / size),
    })
  const flush = async () => {
    if (pendingCount(pending)) await runChunk(ctx, args.owner, pending, tally, reader.sourceVersions)
    pending = nothingPending()
    report()
  }
  const add = (kind: Kind, list: readonly { where: string; item: unknown }[]) => {
    for (const { where, item } of list) {
      pending[kind].items.push(item)
      pending[kind].sources.push(where)
    }
  }
  async function* counted() {
    for await (const chunk of createReadStream(args.file, { encoding: 'utf8', highWaterMark: 1 << 16 })) {
      charsRead += (chunk as string).length
      yield chunk as string
    }
  }

  for await (const event of reader.read(counted(), options)) {
    if (event.kind === 'input') {
      addError(tally, { item: '(file)', message: event.error })
      continue
    }
    if (!event.heldBack && ++tally.items % 1000 === 0) report()
    if (event.error !== undefined) addError(tally, { item: event.where, message: event.error })
    for (const { where, error } of event.earlierErrors ?? []) addError(tally, { item: where, message: error })
    if (event.skipped !== undefined) tally.skipped[event.skipped] = (tally.skipped[event.skipped] ?? 0) + 1
    add('group', event.groups ?? [])
    add(
      'indicator',
      event.indicators.map(({ where, indicator }) => ({ where, item: indicator })),
    )
    add('association', event.associations ?? [])
    add('observation', event.observations ?? [])
    // An element's items stay in one job, so its associations find its Groups and Indicators written.
    if (pendingCount(pending) >= IMPORT_CHUNK) await flush()
  }
  await flush()
  charsRead = size
  report()
  return { file: args.file, format: format.name, owner: args.owner, ...tally }
}

/** The first 4 KB of the file: what detectFormat reads of it where its name leaves the format open. */
function readHead(file: string): string {
  const head = Buffer.alloc(4096)
  const fd = openSync(file, 'r')
  try {
    return head.subarray(0, readSync(fd, head, 0, head.length, 0)).toString('utf8')
  } finally {
    closeSync(fd)
  }
}

function addError(tally: Tally, error: ItemError) {
  tally.errorCount++
  listError(tally, error)
}

/** Lists a refusal already counted, or counts it among those not listed. */
function listError(tally: Tally, error: ItemError) {
  if (tally.errors.length < MAX_LISTED_ERRORS) tally.errors.push(error)
  else tally.errorsNotListed++
}

async function runChunk(
  ctx: RequestContext,
  owner: string,
  pending: Pending,
  tally: Tally,
  sourceVersions: true | undefined,
) {
  const id = await createBatchJob(
    { ...ctx, now: isoNow() },
    { owner, haltOnError: false, action: 'Create', attributeWriteType: 'Append' },
    // The observations of sightings are beyond the v2 batch file: an import asks for them.
    sourceVersions ? { sourceVersions, observations: true } : { observations: true },
  )
  await uploadBatchInput(ctx, id, JSON.stringify(Object.fromEntries(KINDS.map((kind) => [kind, pending[kind].items]))))
  const workerId = newWorkerId()
  if (!(await claimJob(ctx.store, id, workerId)))
    throw new Error(`Batch job ${id} was taken by a running server; it completes there`)
  await runBatchJob(ctx.store, ctx.services, id, { workerId })
  const outcome = await readBatchOutcome(ctx, id)
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
    if (error.severity !== 'Error' && tally.errors.length >= MAX_LISTED_ERRORS) continue
    // The job numbers items from 0 within its chunk; the report names their place in the file.
    const item = (error.errorSource ?? '').replace(
      /^(indicator|group|association|observation)\[(\d+)\]/,
      (found, kind: Kind, i: string) => pending[kind].sources[Number(i)] ?? found,
    )
    // An association's or observation's place is its relationship's (or report's, sighting's): its message says what it is about.
    const message = /^(association|observation)/.test(error.errorSource ?? '')
      ? error.errorReason
      : error.errorMessage.replace(/^(indicator|group|association)\[\d+\]\s*/, '')
    listError(tally, { item, message })
  }
}

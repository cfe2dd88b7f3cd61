/**
 * `bulwark import <file> --owner <name>`: Indicators, and the Groups and associations around them, from any format of formats/ with a reader (STIX
 * 2.0 or 2.1, MISP events, a V2 batch file, a CSV, a plain list or free text), found from the file
 * (formats/index.ts detectFormat) unless `--format` names it; a directory is read by the format whose
 * index file it holds (a MISP feed's manifest.json), its files opened by name. Everything is written by the batch
 * machinery, in jobs of at most IMPORT_CHUNK items (fewer where they would pass batchMaxUploadBytes) run in this process, so the rules, merging and
 * per-item errors are the API's own. The file is read as it streams, so memory holds one chunk,
 * never the file. A bad item is reported by its place in the file and the run goes on. A reader whose
 * items carry their source's versions (STIX) runs its jobs with sourceVersions, so a version already
 * held is not written again.
 */
import { closeSync, createReadStream, existsSync, openSync, readSync, readdirSync, statSync } from 'node:fs'
import { basename, join } from 'node:path'
import type { Store } from '../../store/connect.js'
import { createBatchJob, readBatchOutcome, uploadBatchInput } from '../../domain/batch/jobs.js'
import { runBatchJob } from '../../domain/batch/run-job.js'
import type { RequestContext } from '../../domain/context.js'
import { invalid } from '../../core/errors.js'
import type { Services } from '../../domain/services.js'
import { isoNow } from '../../core/time.js'
import { READ_FORMATS, detectDirectoryFormat, detectFormat, findFormat } from '../../formats/index.js'
import { claimJob } from '../../domain/batch/leases.js'
import { newWorkerId } from '../../worker/batch-worker.js'
import { cliContext } from '../context.js'

/** Items per batch job at most, below the default batchMaxIndicators (25,000); fewer when they would pass batchMaxUploadBytes. */
export const IMPORT_CHUNK = 5_000
const MAX_REPORTED_ERRORS = 100

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

interface Tally {
  items: number
  jobs: number
  successCount: number
  errorCount: number
  errors: ItemError[]
}

/** The batch file's arrays, in the order a job writes them. */
const KINDS = ['indicator', 'group', 'association'] as const
type Kind = (typeof KINDS)[number]

/**
 * Batch items waiting for their job, as JSON text, each with the place in the file its errors are
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

export async function importCommand(store: Store, services: Services, args: ImportArgs) {
  // A directory is a format's published as files (a MISP feed: manifest.json and one file per event).
  const directory = statSync(args.file).isDirectory()
  const format =
    args.format !== undefined
      ? findFormat(args.format)
      : directory
        ? detectDirectoryFormat((name) => existsSync(join(args.file, name)))
        : detectFormat(args.file, () => readHead(args.file))
  if (directory && !format?.reader?.directory)
    throw invalid(`${args.file} is a directory that no format reads (a MISP feed holds a manifest.json)`)
  if (!format?.reader) throw invalid(`--format must be ${IMPORT_FORMATS.join(', ')}, not '${args.format}'`)
  const reader = format.reader
  const options = { name: args.file, type: args.type, map: args.map }
  reader.check?.(options)
  const ctx = await cliContext(store, services, args.userName)
  // A job's file must fit the batch upload limit as much as its item count does.
  const maxBytes = Number(await services.settings.get('batchMaxUploadBytes'))
  const size = Math.max(
    1,
    directory
      ? readdirSync(args.file).reduce((n, name) => n + statSync(join(args.file, name)).size, 0)
      : statSync(args.file).size,
  )
  const tally: Tally = { items: 0, jobs: 0, successCount: 0, errorCount: 0, errors: [] }
  let pending = nothingPending()
  let charsRead = 0
  const report = () => args.progress?.({ ...tally, fraction: Math.min(1, charsRead / size) })
  const flush = async () => {
    if (pendingCount(pending)) await runChunk(ctx, args.owner, pending, tally, reader.sourceVersions)
    pending = nothingPending()
    report()
  }
  async function* counted(file: string) {
    for await (const chunk of createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 16 })) {
      charsRead += (chunk as string).length
      yield chunk as string
    }
  }

  const events = directory
    ? reader.directory!.read(
        {
          open: (name) => {
            if (basename(name) !== name) throw invalid(`${name} is not a file name of ${args.file}`)
            return counted(join(args.file, name))
          },
        },
        options,
      )
    : reader.read(counted(args.file), options)
  for await (const event of events) {
    if (event.kind === 'input') {
      addError(tally, { item: '(file)', message: event.error })
      continue
    }
    if (++tally.items % 1000 === 0) report()
    if (event.error !== undefined) addError(tally, { item: event.where, message: event.error })
    const items: [Kind, { where: string; item: unknown }[]][] = [
      ['group', event.groups ?? []],
      ['indicator', event.indicators.map(({ where, indicator }) => ({ where, item: indicator }))],
      ['association', event.associations ?? []],
    ]
    // An element's items stay in one job, so its associations find its Groups and Indicators written.
    const texts = items.map(
      ([kind, list]) => [kind, list.map(({ where, item }) => [where, JSON.stringify(item)])] as const,
    )
    const bytes = texts.reduce((n, [, list]) => list.reduce((m, [, text]) => m + Buffer.byteLength(text) + 1, n), 0)
    if (EMPTY_JOB_FILE_BYTES + bytes > maxBytes) {
      addError(tally, {
        item: event.where,
        message: `its items take ${bytes} bytes, more than a batch job takes (setting batchMaxUploadBytes, ${maxBytes})`,
      })
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
  if (tally.errors.length < MAX_REPORTED_ERRORS) tally.errors.push(error)
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
    sourceVersions ? { sourceVersions } : {},
  )
  await uploadBatchInput(ctx, id, `{${KINDS.map((kind) => `"${kind}":[${pending[kind].texts.join(',')}]`).join(',')}}`)
  const workerId = newWorkerId()
  if (!(await claimJob(ctx.store, id, workerId)))
    throw new Error(`Batch job ${id} was taken by a running server; it completes there`)
  await runBatchJob(ctx.store, ctx.services, id, { workerId })
  const outcome = await readBatchOutcome(ctx, id)
  tally.jobs++
  tally.successCount += outcome.successCount
  tally.errorCount += outcome.errorCount
  for (const error of outcome.results) {
    if (tally.errors.length >= MAX_REPORTED_ERRORS) break
    // The job numbers items from 0 within its chunk; the report names their place in the file.
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

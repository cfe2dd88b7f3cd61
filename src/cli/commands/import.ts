/**
 * `bulwark import <file> --owner <name>`: Indicators from a STIX 2.1 bundle, a V2 batch file
 * (JSON), a CSV with a header (type, summary, and optionally rating, confidence, tags separated
 * by `;`) or a plain list (one value per line, all of `--type`). Everything is written by the
 * batch machinery, in jobs of at most IMPORT_CHUNK items run in this process, so the rules,
 * merging and per-item errors are the API's own. Every format is read as it streams (JSON files
 * element by element, json-array-stream.ts), so memory holds one chunk, never the file. A bad
 * item is reported and the run goes on.
 *
 * STIX: each indicator object becomes the Indicators of its pattern through the STIX mapping the
 * TAXII 2.1 server uses (protocols/taxii21/stix.ts, fromStixIndicator); TLP marking definitions
 * are read as Security Labels; any other object, and a pattern Bulwark cannot hold, is an error of
 * that object.
 */
import { createReadStream, openSync, readSync, closeSync, statSync } from 'node:fs'
import { createInterface } from 'node:readline'
import type { Store } from '../../store/connect.js'
import { createBatchJob, readBatchOutcome, uploadBatchInput } from '../../domain/batch/jobs.js'
import { runBatchJob } from '../../domain/batch/run-job.js'
import type { RequestContext } from '../../domain/context.js'
import { invalid, isDomainError } from '../../domain/errors.js'
import { readJson } from '../../domain/input.js'
import type { Services } from '../../domain/services.js'
import { isoNow } from '../../domain/time.js'
import { findIndicatorType, composeSummary } from '../../model/indicator-types.js'
import { type TlpLabel, fromStixIndicator, labelOfMarkingDefinition } from '../../formats/stix2/stix.js'
import { claimJob } from '../../domain/batch/leases.js'
import { newWorkerId } from '../../worker/batch-worker.js'
import { cliContext } from '../context.js'
import { JsonArrayReader, MalformedJsonFile } from '../../formats/json-array-stream.js'

/** Items per batch job: below the default batchMaxIndicators (25,000) and batchMaxUploadBytes (2 MB). */
export const IMPORT_CHUNK = 5_000
const MAX_REPORTED_ERRORS = 100

export const IMPORT_FORMATS = ['stix', 'batch', 'csv', 'list'] as const

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
  userName: string
  /** Called as the run goes (the progress bar). */
  progress?: (done: ImportProgress) => void
}

interface ItemError { item: string; message: string }

interface Tally { items: number; jobs: number; successCount: number; errorCount: number; errors: ItemError[] }

/** Batch items waiting for their job, each with the place in the file its errors are reported by. */
interface Pending { indicators: unknown[]; sources: string[] }

export async function importCommand(store: Store, services: Services, args: ImportArgs) {
  const format = args.format ?? defaultFormat(args.file)
  if (!(IMPORT_FORMATS as readonly string[]).includes(format)) throw invalid(`--format must be ${IMPORT_FORMATS.join(', ')}, not '${format}'`)
  if (format === 'list' && !args.type) throw invalid('A plain list needs --type, the Indicator type of every line (e.g. Host, Address, URL)')
  const ctx = await cliContext(store, services, args.userName)
  const size = Math.max(1, statSync(args.file).size)
  const tally: Tally = { items: 0, jobs: 0, successCount: 0, errorCount: 0, errors: [] }
  let pending: Pending = { indicators: [], sources: [] }
  let charsRead = 0
  const report = () => args.progress?.({ ...tally, fraction: Math.min(1, charsRead / size) })
  const flush = async () => {
    if (pending.indicators.length) await runChunk(ctx, args.owner, pending, tally)
    pending = { indicators: [], sources: [] }
    report()
  }
  const add = async (indicator: unknown, source: string) => {
    pending.indicators.push(indicator)
    pending.sources.push(source)
    if (pending.indicators.length >= IMPORT_CHUNK) await flush()
  }
  const fail = (item: string, message: string) => addError(tally, { item, message })

  if (format === 'batch' || format === 'stix') {
    const reader = new JsonArrayReader(args.file, format === 'stix' ? 'objects' : 'indicator')
    const markings = new Map<string, TlpLabel>()
    try {
      for await (const element of reader.elements()) {
        charsRead = reader.charsRead
        if (++tally.items % 1000 === 0) report()
        const where = format === 'stix' ? `objects[${element.index}]` : `indicator[${element.index}]`
        if ('error' in element) { fail(where, element.error); continue }
        let value: unknown
        try {
          value = readJson(element.text)
        } catch (error) {
          fail(where, messageOf(error))
          continue
        }
        if (format === 'batch') await add(value, where)
        else {
          for (const [i, indicator] of stixItems(value, markings, (message) => fail(where, message)).entries()) {
            await add(indicator, i === 0 ? where : `${where} (pattern alternative ${i + 1})`)
          }
        }
      }
    } catch (error) {
      if (!(error instanceof MalformedJsonFile)) throw error
      // Nothing read: the file is refused whole. Later: what was read is written, the rest reported.
      if (tally.items === 0) throw invalid(`${args.file}: ${messageOf(error)}`)
      fail('(file)', messageOf(error))
    }
    if (!reader.found && tally.items === 0 && !tally.errors.length) {
      throw invalid(format === 'stix' ? `${args.file} is not a STIX bundle: it has no objects array` : `${args.file} has no indicator array`)
    }
    if (format === 'stix' && reader.completed && reader.strings.get('type') !== 'bundle') fail('(file)', 'the document is not a STIX bundle (its type is not "bundle"); its objects were read anyway')
  } else {
    let header: string[] | undefined
    const input = createReadStream(args.file, 'utf8').on('data', (chunk) => { charsRead += chunk.length })
    for await (const text of createInterface({ input, crlfDelay: Infinity })) {
      if (!text.trim()) continue
      if (format === 'csv' && !header) {
        header = splitCsv(text).map((h) => h.trim().toLowerCase())
        if (!header.includes('type') || !header.includes('summary')) throw invalid('The CSV header must name the columns type and summary')
        continue
      }
      await add(format === 'csv' ? csvIndicator(header!, splitCsv(text)) : { type: args.type, summary: text.trim() }, `indicator[${tally.items++}]`)
    }
  }
  await flush()
  charsRead = size
  report()
  return { file: args.file, format, owner: args.owner, ...tally }
}

/** By extension; a `.json` file is a STIX bundle when its start says so, else a V2 batch file. */
function defaultFormat(file: string): string {
  if (/\.stix(\.json)?$/i.test(file)) return 'stix'
  if (/\.csv$/i.test(file)) return 'csv'
  if (!/\.json$/i.test(file)) return 'list'
  const head = Buffer.alloc(4096)
  const fd = openSync(file, 'r')
  try {
    const text = head.subarray(0, readSync(fd, head, 0, head.length, 0)).toString('utf8')
    return /"type"\s*:\s*"bundle"|"objects"\s*:\s*\[|"spec_version"\s*:/.test(text) ? 'stix' : 'batch'
  } finally {
    closeSync(fd)
  }
}

/** The batch items of one STIX object; a TLP marking definition is remembered for the indicators that follow. */
function stixItems(object: unknown, markings: Map<string, TlpLabel>, fail: (message: string) => void): Record<string, unknown>[] {
  if (!object || typeof object !== 'object' || Array.isArray(object)) { fail('not a JSON object'); return [] }
  const o = object as Record<string, unknown>
  if (o.type === 'marking-definition') {
    const label = labelOfMarkingDefinition(o)
    if (label && typeof o.id === 'string') markings.set(o.id, label)
    else fail(`marking definition ${String(o.id)} is not a TLP marking (only TLP markings become Security Labels)`)
    return []
  }
  try {
    const read = fromStixIndicator(o, markings)
    return read.indicators.map((indicator) => {
      const def = findIndicatorType(indicator.type)!
      const item: Record<string, unknown> = { type: indicator.type, summary: composeSummary(def, indicator.values) }
      // By slot too: a summary cannot say which field a lone second value is (a Registry Key's value type without a value name).
      if (def.fields.length > 1) indicator.values.forEach((value, i) => { if (value !== null) item[`value${i + 1}`] = value })
      if (read.rating !== undefined) item.rating = read.rating
      if (read.confidence !== undefined) item.confidence = read.confidence
      if (read.description !== undefined) item.description = read.description
      if (read.created) item.externalDateAdded = read.created
      if (read.modified) item.externalLastModified = read.modified
      if (read.expires) item.externalDateExpires = read.expires
      if (read.tags.length) item.tag = read.tags.map((name) => ({ name }))
      if (read.securityLabels.length) item.securityLabel = read.securityLabels
      return item
    })
  } catch (error) {
    fail(`${o.type === 'indicator' && typeof o.id === 'string' ? `${o.id}: ` : ''}${messageOf(error)}`)
    return []
  }
}

function messageOf(error: unknown): string {
  return isDomainError(error) || error instanceof Error ? error.message : String(error)
}

function addError(tally: Tally, error: ItemError) {
  tally.errorCount++
  if (tally.errors.length < MAX_REPORTED_ERRORS) tally.errors.push(error)
}

async function runChunk(ctx: RequestContext, owner: string, pending: Pending, tally: Tally) {
  const id = await createBatchJob({ ...ctx, now: isoNow() }, { owner, haltOnError: false, action: 'Create', attributeWriteType: 'Append' })
  await uploadBatchInput(ctx, id, JSON.stringify({ indicator: pending.indicators }))
  const workerId = newWorkerId()
  if (!(await claimJob(ctx.store, id, workerId))) throw new Error(`Batch job ${id} was taken by a running server; it completes there`)
  await runBatchJob(ctx.store, ctx.services, id, { workerId })
  const outcome = await readBatchOutcome(ctx, id)
  tally.jobs++
  tally.successCount += outcome.successCount
  tally.errorCount += outcome.errorCount
  for (const error of outcome.results) {
    if (tally.errors.length >= MAX_REPORTED_ERRORS) break
    // The job numbers items from 0 within its chunk; the report names their place in the file.
    const item = (error.errorSource ?? '').replace(/^indicator\[(\d+)\]/, (_m, i: string) => pending.sources[Number(i)] ?? `indicator[${i}]`)
    tally.errors.push({ item, message: error.errorMessage.replace(/^indicator\[\d+\]\s*/, '') })
  }
}

function csvIndicator(header: string[], cells: string[]): Record<string, unknown> {
  const value = (name: string) => cells[header.indexOf(name)]?.trim() || undefined
  const tags = value('tags')?.split(';').map((t) => t.trim()).filter(Boolean)
  return {
    type: value('type'), summary: value('summary'),
    ...(value('rating') !== undefined ? { rating: Number(value('rating')) } : {}),
    ...(value('confidence') !== undefined ? { confidence: Number(value('confidence')) } : {}),
    ...(tags?.length ? { tag: tags.map((name) => ({ name })) } : {}),
  }
}

/** One CSV line: commas separate, double quotes enclose, "" is a quote. */
function splitCsv(line: string): string[] {
  const cells: string[] = []
  let cell = ''
  let quoted = false
  for (let i = 0; i < line.length; i++) {
    const c = line[i]
    if (quoted && c === '"' && line[i + 1] === '"') { cell += '"'; i++ } else if (c === '"') quoted = !quoted
    else if (c === ',' && !quoted) { cells.push(cell); cell = '' } else cell += c
  }
  cells.push(cell)
  return cells
}

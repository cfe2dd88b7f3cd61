/**
 * `bulwark import <file> --owner <name>`: Indicators from a V2 batch file (JSON), a CSV with a
 * header (type, summary, and optionally rating, confidence, tags separated by `;`) or a plain
 * list (one value per line, all of `--type`). Everything is written by the batch machinery, in
 * jobs of at most IMPORT_CHUNK items run in this process, so the rules, merging and per-item
 * errors are the API's own. CSV and lists are read line by line and never held whole; a batch
 * file is one JSON document and is read whole. A bad item is reported and the run goes on.
 */
import { createReadStream, readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { findBatchJob, listBatchErrors } from '../../store/batch.repository.js'
import type { Store } from '../../store/connect.js'
import { createBatchJob, uploadBatchInput } from '../../domain/batch/jobs.js'
import { runBatchJob } from '../../domain/batch/run-job.js'
import type { RequestContext } from '../../domain/context.js'
import { invalid } from '../../domain/errors.js'
import { readJson } from '../../domain/input.js'
import type { Services } from '../../domain/services.js'
import { isoNow } from '../../domain/time.js'
import { claimJob, newWorkerId } from '../../worker/batch-worker.js'
import { cliContext } from '../context.js'

/** Items per batch job: below the default batchMaxIndicators (25,000) and batchMaxUploadBytes (2 MB). */
export const IMPORT_CHUNK = 5_000
const MAX_REPORTED_ERRORS = 100

export interface ImportArgs {
  file: string
  owner: string
  format?: string
  type?: string
  userName: string
  /** Called after each job with the running totals (the progress bar). */
  progress?: (done: { items: number; successCount: number; errorCount: number }) => void
}

interface Tally { items: number; jobs: number; successCount: number; errorCount: number; errors: { item: string; message: string }[] }

export async function importCommand(store: Store, services: Services, args: ImportArgs) {
  const format = args.format ?? (/\.json$/i.test(args.file) ? 'batch' : /\.csv$/i.test(args.file) ? 'csv' : 'list')
  if (!['batch', 'csv', 'list', 'stix'].includes(format)) throw invalid(`--format must be batch, csv or list, not '${format}'`)
  if (format === 'stix') throw invalid('STIX 2.1 bundles cannot be imported yet: they need the STIX mapping of the TAXII 2.1 interface')
  if (format === 'list' && !args.type) throw invalid('A plain list needs --type, the Indicator type of every line (e.g. Host, Address, URL)')
  const ctx = await cliContext(store, services, args.userName)
  const tally: Tally = { items: 0, jobs: 0, successCount: 0, errorCount: 0, errors: [] }
  const run = async (indicators: unknown[], firstItem: number) => {
    await runChunk(ctx, args.owner, indicators, firstItem, tally)
    args.progress?.(tally)
  }
  if (format === 'batch') {
    const data = readJson(readFileSync(args.file, 'utf8')) as { indicator?: unknown }
    const all = Array.isArray(data?.indicator) ? data.indicator : []
    for (let i = 0; i < all.length; i += IMPORT_CHUNK) await run(all.slice(i, i + IMPORT_CHUNK), i)
  } else {
    let chunk: unknown[] = []
    let header: string[] | undefined
    let line = 0
    for await (const text of createInterface({ input: createReadStream(args.file, 'utf8'), crlfDelay: Infinity })) {
      line++
      if (!text.trim()) continue
      if (format === 'csv' && !header) {
        header = splitCsv(text).map((h) => h.trim().toLowerCase())
        if (!header.includes('type') || !header.includes('summary')) throw invalid('The CSV header must name the columns type and summary')
        continue
      }
      chunk.push(format === 'csv' ? csvIndicator(header!, splitCsv(text)) : { type: args.type, summary: text.trim() })
      if (chunk.length === IMPORT_CHUNK) {
        await run(chunk, tally.items)
        chunk = []
      }
    }
    if (chunk.length) await run(chunk, tally.items)
  }
  return { file: args.file, format, owner: args.owner, ...tally }
}

async function runChunk(ctx: RequestContext, owner: string, indicators: unknown[], firstItem: number, tally: Tally) {
  const id = await createBatchJob({ ...ctx, now: isoNow() }, { owner, haltOnError: false, action: 'Create', attributeWriteType: 'Append' })
  await uploadBatchInput(ctx, id, JSON.stringify({ indicator: indicators }))
  const workerId = newWorkerId()
  if (!(await claimJob(ctx.store, id, workerId))) throw new Error(`Batch job ${id} was taken by a running server; it completes there`)
  await runBatchJob(ctx.store, ctx.services, id, { workerId })
  const job = (await findBatchJob(ctx.store.db, id))!
  tally.items += indicators.length
  tally.jobs++
  tally.successCount += job.success_count
  tally.errorCount += job.error_count
  for (const error of await listBatchErrors(ctx.store.db, id)) {
    if (tally.errors.length >= MAX_REPORTED_ERRORS) break
    // The job numbers items from 0 within its chunk; the report numbers them within the file.
    const item = (error.source ?? '').replace(/^indicator\[(\d+)\]/, (_m, i: string) => `indicator[${firstItem + Number(i)}]`)
    tally.errors.push({ item, message: error.message })
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

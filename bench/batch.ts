/**
 * Batch ingest at default settings: the realistic dataset (bench/lib/realistic.ts: BENCH_INDICATORS
 * Indicators, default 1,000,000, ten types, Files with every hash combination, owners of 92/4/4 %,
 * a tag of 100 and a Description each, one in fourteen associated with a Group, a tenth of each later
 * job re-sending stored Indicators; BENCH_DATASET=classic for the first benchmarks' shape) loaded afresh through
 * `POST /api/v2/batch` of a Bulwark child process with its default limits (2 MB uploads, 25,000
 * Indicators a job, so about a hundred jobs per million), four jobs in flight, timed from the
 * first POST to the last job Completed. The server's RSS is sampled every 100 ms throughout.
 * Baseline in the same run, on the same database: the driver's raw insert rate for the same
 * Indicator, tag-link and attribute rows (bench/batch-raw.ts). Flatness: the mean seconds per job of the
 * last tenth of the jobs over that of the first tenth (target ≤ 1.5). Writes bench/results/batch.json.
 *
 * Environment: BENCH_DB=sqlite|postgres (default both), BENCH_DATASET=realistic|classic, BENCH_INDICATORS, BENCH_JOBS_IN_FLIGHT,
 * BENCH_LOG_LEVEL (default warn), BENCH_POSTGRES_URL.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { measureRawInserts } from './batch-raw.js'
import {
  type DatasetManifest,
  type DatasetShape,
  type Dialect,
  datasetIndicator,
  defaultIndicators,
  loadDataset,
} from './lib/dataset.js'
import { realisticGroupCount, realisticIndicator } from './lib/realistic.js'
import { createDatabase } from './lib/postgres.js'
import { ROOT } from './lib/processes.js'

const DIALECTS = (process.env.BENCH_DB ?? 'sqlite,postgres').split(',').map((d) => d.trim()) as Dialect[]
const TOTAL = defaultIndicators()
const TARGETS: Record<Dialect, number> = { sqlite: 0.5, postgres: 0.4 }
const RSS_LIMIT_MB = 256
const SHAPE = (process.env.BENCH_DATASET ?? 'realistic') as DatasetShape
if (SHAPE !== 'realistic' && SHAPE !== 'classic') throw new Error('BENCH_DATASET: realistic or classic')
/** The last tenth of the jobs may take at most this many times as long per job as the first tenth. */
const FLATNESS_TARGET = 1.5

interface Row {
  dialect: Dialect
  indicators: number
  jobs: number
  seconds: number
  indicatorsPerSecond: number
  rawSeconds: number
  rawIndicatorsPerSecond: number
  ratio: number
  target: number
  peakRssMb: number
  serverCpuSeconds?: number
  /** PostgreSQL: CPU of the backends serving the API server. */
  databaseCpuSeconds?: number
  rawCpuSeconds: number
  /**
   * The same comparison in CPU time, which machine load does not distort: raw CPU (this process,
   * plus the backend on PostgreSQL) over the API's (server, plus its backends).
   */
  cpuRatio?: number
  errors: number
  /** Each job's seconds from claim to Completed, as the server recorded them. */
  jobSeconds: number[]
  /** Items in each job (realistic shape). */
  jobItems?: number[]
  updates?: number
  flatness: Flatness
}

interface Flatness {
  /** Jobs in a tenth (at least one). */
  jobs: number
  firstTenthSecondsPerJob: number
  lastTenthSecondsPerJob: number
  /** last ÷ first, per job. */
  ratio: number
  /** The same per item sent (jobs of an owner's last file are smaller), when the item counts are known. */
  firstTenthMicrosPerItem?: number
  lastTenthMicrosPerItem?: number
  ratioPerItem?: number
}

function flatness(seconds: number[], items?: number[]): Flatness {
  const n = Math.max(1, Math.floor(seconds.length / 10))
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0)
  const first = sum(seconds.slice(0, n)) / n
  const last = sum(seconds.slice(-n)) / n
  const out: Flatness = {
    jobs: n,
    firstTenthSecondsPerJob: round(first),
    lastTenthSecondsPerJob: round(last),
    ratio: round(last / first),
  }
  if (items && items.length === seconds.length) {
    const perItem = (from: number, to?: number) => (sum(seconds.slice(from, to)) / sum(items.slice(from, to))) * 1e6
    out.firstTenthMicrosPerItem = round(perItem(0, n))
    out.lastTenthMicrosPerItem = round(perItem(seconds.length - n))
    out.ratioPerItem = round(out.lastTenthMicrosPerItem / out.firstTenthMicrosPerItem)
  }
  return out
}

const round = (n: number) => Math.round(n * 100) / 100

async function measureDialect(dialect: Dialect, work: string): Promise<Row> {
  // Kept as the cached dataset, so the benchmarks that read it (tql, start, v3-object) need no second load.
  const loaded: DatasetManifest = await loadDataset({ dialect, indicators: TOTAL, shape: SHAPE }, work, { keep: true })
  const database = dialect === 'postgres' ? await createDatabase('bulwark_batch_raw') : undefined
  try {
    const raw = await measureRawInserts(
      database?.url ?? `sqlite:${join(work, `${dialect}-raw`, 'raw.db')}`,
      loaded.owners,
      SHAPE === 'realistic'
        ? (o, i) => realisticIndicator(o, i, realisticGroupCount(loaded.owners[o]!.indicators))
        : datasetIndicator,
    )
    const rawIndicatorsPerSecond = Math.round(TOTAL / raw.seconds)
    const { load } = loaded
    return {
      dialect,
      indicators: TOTAL,
      jobs: load.jobs,
      seconds: load.seconds,
      indicatorsPerSecond: load.indicatorsPerSecond,
      rawSeconds: round(raw.seconds),
      rawIndicatorsPerSecond,
      ratio: round(load.indicatorsPerSecond / rawIndicatorsPerSecond),
      target: TARGETS[dialect],
      peakRssMb: load.peakRssMb,
      serverCpuSeconds: load.serverCpuSeconds,
      databaseCpuSeconds: load.databaseCpuSeconds,
      rawCpuSeconds: round(raw.cpuSeconds),
      cpuRatio: load.serverCpuSeconds
        ? round(raw.cpuSeconds / (load.serverCpuSeconds + (load.databaseCpuSeconds ?? 0)))
        : undefined,
      errors: load.errors,
      jobSeconds: load.jobSeconds,
      jobItems: load.jobItems,
      updates: load.updates,
      flatness: flatness(load.jobSeconds, load.jobItems),
    }
  } finally {
    await database?.drop()
  }
}

export async function run(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bulwark-batch-bench-'))
  const rows: Row[] = []
  try {
    for (const dialect of DIALECTS) rows.push(await measureDialect(dialect, work))
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
  const header = [
    'database',
    'indicators',
    'jobs',
    'API s',
    'API ind/s',
    'raw s',
    'raw ind/s',
    'ratio',
    'target',
    'peak RSS MB',
    'API CPU s',
    'raw CPU s',
    'CPU ratio',
    'errors',
  ]
  const body = rows.map((r) => [
    r.dialect,
    String(r.indicators),
    String(r.jobs),
    String(r.seconds),
    String(r.indicatorsPerSecond),
    String(r.rawSeconds),
    String(r.rawIndicatorsPerSecond),
    r.ratio.toFixed(2),
    `>= ${r.target}`,
    String(r.peakRssMb),
    r.serverCpuSeconds === undefined
      ? '-'
      : `${r.serverCpuSeconds}${r.databaseCpuSeconds !== undefined ? ` + ${r.databaseCpuSeconds} db` : ''}`,
    String(r.rawCpuSeconds),
    r.cpuRatio?.toFixed(2) ?? '-',
    String(r.errors),
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)))
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ')
  console.log(
    SHAPE === 'realistic'
      ? `\nbatch benchmark: ${TOTAL} Indicators of the realistic dataset (ten types, owners 92/4/4 %, a tag and a Description each, 1 in 14 with a Group, a tenth of later jobs re-sent), via /v2/batch at default settings`
      : `\nbatch benchmark: ${TOTAL} Indicators over three owners (one tag and a Description each) and 200 Groups with 10 associations each, via /v2/batch at default settings`,
  )
  console.log(line(header))
  console.log(widths.map((w) => '-'.repeat(w)).join('  '))
  for (const b of body) console.log(line(b))
  for (const r of rows) {
    const s = [...r.jobSeconds].sort((a, b) => a - b)
    console.log(
      `${r.dialect}: seconds per job from claim to Completed: first ${r.jobSeconds[0]}, median ${s[Math.floor(s.length / 2)]}, last ${r.jobSeconds.at(-1)}, max ${s.at(-1)}`,
    )
    const f = r.flatness
    console.log(
      `${r.dialect}: flatness over ${f.jobs} job(s) a tenth: first tenth ${f.firstTenthSecondsPerJob} s/job, last tenth ${f.lastTenthSecondsPerJob} s/job, ratio ${f.ratio} (target <= ${FLATNESS_TARGET})` +
        (f.ratioPerItem !== undefined
          ? `; per item ${f.firstTenthMicrosPerItem} -> ${f.lastTenthMicrosPerItem} µs, ratio ${f.ratioPerItem}`
          : '') +
        (r.updates !== undefined ? `; ${r.updates} items re-sent stored Indicators` : ''),
    )
  }
  const report = {
    benchmark: 'batch',
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    loadAverage: round(loadavg()[0]),
    indicators: TOTAL,
    dataset: SHAPE,
    target: 'API Indicators/s >= 0.5 x raw on SQLite, >= 0.4 x on PostgreSQL; server RSS < 256 MB throughout',
    results: rows,
  }
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true })
  writeFileSync(join(ROOT, 'bench', 'results', 'batch.json'), `${JSON.stringify(report, null, 2)}\n`)
  console.log('\nwritten: bench/results/batch.json')
  const missed = rows.filter(
    (r) => r.ratio < r.target || r.peakRssMb >= RSS_LIMIT_MB || r.flatness.ratio > FLATNESS_TARGET,
  )
  if (missed.length) console.log(`targets missed in: ${missed.map((r) => r.dialect).join(', ')}`)
  const broken = rows.filter((r) => r.errors > 0)
  if (broken.length) throw new Error(`Batch errors in: ${broken.map((r) => r.dialect).join(', ')}`)
}

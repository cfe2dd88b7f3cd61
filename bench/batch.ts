/**
 * Batch ingest at default settings: the realistic dataset (bench/lib/realistic.ts: BENCH_INDICATORS
 * Indicators, default 1,000,000, ten types, Files with every hash combination, owners of 92/4/4 %,
 * a tag of 100 and a Description each, one in fourteen associated with a Group, a tenth of each later
 * job re-sending stored Indicators; BENCH_DATASET=classic for the first benchmarks' shape) loaded afresh through
 * `POST /api/v2/batch` of a Bulwark child process with its default limits (2 MB uploads, 25,000
 * Indicators a job, so about 200 jobs per million realistic ones), four jobs in flight, timed from the
 * first POST to the last job Completed. The server's RSS is sampled every 100 ms throughout.
 *
 * Baselines in the same run, on the same database engine (bench/batch-raw.ts): the driver's raw insert of the same
 * new Indicator, tag-link and attribute rows, prepared, one transaction per job of the load (the same Indicators
 * per transaction), into (1) a minimal schema with only natural unique keys and one date index (target: the load at
 * ≥ 0.25× its rate) and (2) Bulwark's own schema (target ≥ 0.6×). Both ratios in wall-clock time and in CPU time.
 * Flatness: seconds per job and µs per item of each tenth of the jobs; the last tenth over the first (target ≤ 1.5).
 * Bytes on disk per Indicator (tags and attributes included) of the loaded store and of both baselines' databases,
 * with the tables and the largest indexes. Writes bench/results/batch.json.
 *
 * Nothing in the load or the baselines holds the dataset in memory: files and rows are made as they are sent, and
 * what is kept per job (seconds, items, extent) is a few thousand entries at 10,000,000 Indicators.
 *
 * Environment: BENCH_DB=sqlite|postgres (default both), BENCH_DATASET=realistic|classic, BENCH_INDICATORS, BENCH_JOBS_IN_FLIGHT,
 * BENCH_LOG_LEVEL (default warn), BENCH_POSTGRES_URL.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { type RawSchema, measureRawInserts } from './batch-raw.js'
import {
  type DatasetManifest,
  type DatasetShape,
  type Dialect,
  datasetIndicator,
  defaultIndicators,
  loadDataset,
  benchDialects,
} from './lib/dataset.js'
import { type DiskUsage, describeDisk } from './lib/disk.js'
import { type Flatness, flatness } from './lib/flatness.js'
import { realisticGroupCount, realisticIndicator } from './lib/realistic.js'
import { createDatabase } from './lib/postgres.js'
import { ROOT } from './lib/processes.js'

const DIALECTS = benchDialects('sqlite,postgres')
const TOTAL = defaultIndicators()
/** The load's Indicators/s at least this share of each baseline's (issue 28, point 3), on both databases. */
const TARGETS: Record<RawSchema, number> = { minimal: 0.25, bulwark: 0.6 }
const RAW_SCHEMAS: RawSchema[] = ['minimal', 'bulwark']
const RSS_LIMIT_MB = 256
const SHAPE = (process.env.BENCH_DATASET ?? 'realistic') as DatasetShape
if (SHAPE !== 'realistic' && SHAPE !== 'classic') throw new Error('BENCH_DATASET: realistic or classic')
/** The last tenth of the jobs may take at most this many times as long per job as the first tenth. */
const FLATNESS_TARGET = 1.5

/** One raw baseline against the API load. */
interface Baseline {
  schema: RawSchema
  seconds: number
  indicatorsPerSecond: number
  /** API Indicators/s ÷ this baseline's. */
  ratio: number
  /** This baseline's CPU (this process, plus the backend on PostgreSQL) ÷ the API's (server, plus its backends). */
  cpuRatio?: number
  target: number
  cpuSeconds: number
  transactions: number
  disk: DiskUsage
}

interface Row {
  dialect: Dialect
  indicators: number
  jobs: number
  seconds: number
  indicatorsPerSecond: number
  peakRssMb: number
  serverCpuSeconds?: number
  /** PostgreSQL: CPU of the backends serving the API server. */
  databaseCpuSeconds?: number
  baselines: Baseline[]
  errors: number
  /** Each job's seconds from claim to Completed, as the server recorded them. */
  jobSeconds: number[]
  /** Items in each job. */
  jobItems?: number[]
  updates?: number
  flatness: Flatness
  /** The API-loaded store after the load. */
  disk?: DiskUsage
}

const round = (n: number) => Math.round(n * 100) / 100

async function measureDialect(dialect: Dialect, work: string): Promise<Row> {
  // Kept as the cached dataset, so the benchmarks that read it (tql, start, v3-object) need no second load.
  const loaded: DatasetManifest = await loadDataset({ dialect, indicators: TOTAL, shape: SHAPE }, work, { keep: true })
  const { load } = loaded
  const make =
    SHAPE === 'realistic'
      ? (o: number, i: number) => realisticIndicator(o, i, realisticGroupCount(loaded.owners[o]!.indicators))
      : datasetIndicator
  const apiCpu = load.serverCpuSeconds ? load.serverCpuSeconds + (load.databaseCpuSeconds ?? 0) : undefined
  const baselines: Baseline[] = []
  for (const schema of RAW_SCHEMAS) {
    const database = dialect === 'postgres' ? await createDatabase(`bulwark_batch_raw_${schema}`) : undefined
    try {
      console.log(`${dialect}: raw inserts into the ${schema} schema`)
      const raw = await measureRawInserts(
        database?.url ?? `sqlite:${join(work, `${dialect}-raw-${schema}`, 'raw.db')}`,
        schema,
        loaded.owners,
        load.extents ?? [],
        make,
      )
      if (raw.indicators !== TOTAL) throw new Error(`raw ${schema}: ${raw.indicators} Indicators, not ${TOTAL}`)
      const indicatorsPerSecond = Math.round(TOTAL / raw.seconds)
      baselines.push({
        schema,
        seconds: round(raw.seconds),
        indicatorsPerSecond,
        ratio: round(load.indicatorsPerSecond / indicatorsPerSecond),
        cpuRatio: apiCpu ? round(raw.cpuSeconds / apiCpu) : undefined,
        target: TARGETS[schema],
        cpuSeconds: round(raw.cpuSeconds),
        transactions: raw.transactions,
        disk: raw.disk,
      })
    } finally {
      await database?.drop()
    }
  }
  return {
    dialect,
    indicators: TOTAL,
    jobs: load.jobs,
    seconds: load.seconds,
    indicatorsPerSecond: load.indicatorsPerSecond,
    peakRssMb: load.peakRssMb,
    serverCpuSeconds: load.serverCpuSeconds,
    databaseCpuSeconds: load.databaseCpuSeconds,
    baselines,
    errors: load.errors,
    jobSeconds: load.jobSeconds,
    jobItems: load.jobItems,
    updates: load.updates,
    flatness: flatness(load.jobSeconds, load.jobItems),
    disk: load.disk,
  }
}

function table(header: string[], body: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)))
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n')
}

export async function run(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bulwark-batch-bench-'))
  const rows: Row[] = []
  try {
    for (const dialect of DIALECTS) rows.push(await measureDialect(dialect, work))
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
  console.log(
    SHAPE === 'realistic'
      ? `\nbatch benchmark: ${TOTAL} Indicators of the realistic dataset (ten types, owners 92/4/4 %, a tag and a Description each, 1 in 14 with a Group, a tenth of later jobs re-sent), via /v2/batch at default settings`
      : `\nbatch benchmark: ${TOTAL} Indicators over three owners (one tag and a Description each) and 200 Groups with 10 associations each, via /v2/batch at default settings`,
  )
  console.log(
    table(
      ['database', 'indicators', 'jobs', 'API s', 'API ind/s', 'peak RSS MB', 'API CPU s', 'bytes/Indicator', 'errors'],
      rows.map((r) => [
        r.dialect,
        String(r.indicators),
        String(r.jobs),
        String(r.seconds),
        String(r.indicatorsPerSecond),
        String(r.peakRssMb),
        r.serverCpuSeconds === undefined
          ? '-'
          : `${r.serverCpuSeconds}${r.databaseCpuSeconds !== undefined ? ` + ${r.databaseCpuSeconds} db` : ''}`,
        String(r.disk?.bytesPerIndicator ?? '-'),
        String(r.errors),
      ]),
    ),
  )
  console.log('\nraw baselines (same rows, prepared, one transaction per job of the load):')
  console.log(
    table(
      ['database', 'schema', 'raw s', 'raw ind/s', 'ratio', 'target', 'raw CPU s', 'CPU ratio', 'bytes/Indicator'],
      rows.flatMap((r) =>
        r.baselines.map((b) => [
          r.dialect,
          b.schema,
          String(b.seconds),
          String(b.indicatorsPerSecond),
          b.ratio.toFixed(2),
          `>= ${b.target}`,
          String(b.cpuSeconds),
          b.cpuRatio?.toFixed(2) ?? '-',
          String(b.disk.bytesPerIndicator),
        ]),
      ),
    ),
  )
  for (const r of rows) {
    const f = r.flatness
    console.log(
      `\n${r.dialect}: flatness, last tenth ÷ first ${f.ratio} per job (target <= ${FLATNESS_TARGET})` +
        (f.ratioPerItem !== undefined ? `, ${f.ratioPerItem} per item` : '') +
        (r.updates !== undefined ? `; ${r.updates} items re-sent stored Indicators` : ''),
    )
    console.log(
      table(
        ['tenth', 'jobs', 's/job', 'µs/item'],
        f.tenths.map((t, k) => [
          String(k + 1),
          String(t.jobs),
          String(t.secondsPerJob),
          t.microsPerItem === undefined ? '-' : String(t.microsPerItem),
        ]),
      ),
    )
    if (r.disk) console.log(describeDisk(`${r.dialect} API store`, r.disk))
    for (const b of r.baselines) console.log(describeDisk(`${r.dialect} raw ${b.schema}`, b.disk))
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
    target:
      "API Indicators/s >= 0.25 x raw into the minimal schema and >= 0.6 x raw into Bulwark's schema (one transaction per job), " +
      'on SQLite and PostgreSQL; last tenth of the jobs <= 1.5 x the first per job; server RSS < 256 MB throughout',
    results: rows,
  }
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true })
  writeFileSync(join(ROOT, 'bench', 'results', 'batch.json'), `${JSON.stringify(report, null, 2)}\n`)
  console.log('\nwritten: bench/results/batch.json')
  const missed = rows.filter(
    (r) =>
      r.baselines.some((b) => b.ratio < b.target) || r.peakRssMb >= RSS_LIMIT_MB || r.flatness.ratio > FLATNESS_TARGET,
  )
  if (missed.length) console.log(`targets missed in: ${missed.map((r) => r.dialect).join(', ')}`)
  const broken = rows.filter((r) => r.errors > 0)
  if (broken.length) throw new Error(`Batch errors in: ${broken.map((r) => r.dialect).join(', ')}`)
}

/**
 * Reads while writing (issue 28, point 5): does a batch load at full speed starve the readers? A Bulwark child
 * process serves a private copy of the cached dataset (bench/lib/dataset.ts, classic shape, BENCH_INDICATORS
 * Indicators, default 1,000,000: the store the tql benchmark reads) and takes a realistic batch load of
 * BENCH_RWW_LOAD more Indicators (bench/lib/realistic.ts, default 200,000, over the same three owners by 92/4/4 %)
 * through `POST /v2/batch` at default settings, four jobs in flight. While the load runs, two readers on their own
 * keep-alive HTTPS connections:
 * - v3 TQL: the five queries of bench/tql.ts in turn (resultLimit=100), BENCH_RWW_TQL_PER_SECOND a second (default
 *   20; one at a time, the next at once when one runs late); p50 and p99 of their latency, timed in a worker thread
 *   of its own (bench/lib/tql-reader.ts) so the TAXII pages this process parses and the load it sends do not delay it;
 * - TAXII 2.1: the Organization's whole collection read page after page following `next` (limit
 *   BENCH_RWW_TAXII_LIMIT, default 10,000), from the first page again at the end; objects per second.
 * Baselines in the same run: on the same store just before the load, TQL alone and then both readers, each for
 * BENCH_RWW_IDLE_SECONDS (default 15) (idle: the server's one event loop also serves the TAXII pages, so TQL alone
 * shows what they cost the TQL latency apart from the load); and the same load on a second private copy without
 * readers (the load's own rate).
 * Targets: TQL p99 < 50 ms and TAXII ≥ 50,000 objects/s during the load, on both databases. Writes its
 * figures into bench/results/, under the benchmark's name.
 *
 * Environment: BENCH_DB=sqlite,postgres (default both), BENCH_INDICATORS, BENCH_RWW_LOAD, BENCH_RWW_TQL_PER_SECOND,
 * BENCH_RWW_TAXII_LIMIT, BENCH_RWW_IDLE_SECONDS, BENCH_JOBS_IN_FLIGHT, BENCH_LOG_LEVEL, BENCH_POSTGRES_URL.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { Agent, request } from 'node:https'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { isoNow } from '../src/core/time.js'
import { createAccount } from '../src/domain/access/accounts.js'
import { openStore } from '../src/store/connect.js'
import {
  type DatasetServer,
  type Dialect,
  realisticLoadFiles,
  rssMb,
  startDatasetServer,
  submitAll,
  benchDialects,
} from './lib/dataset.js'
import { ROOT } from './lib/processes.js'
import { type TqlFigures, startTqlReader } from './lib/tql-reader.js'

const DIALECTS = benchDialects('sqlite,postgres')
const LOAD = Number(process.env.BENCH_RWW_LOAD ?? 200_000)
const TQL_PER_SECOND = Number(process.env.BENCH_RWW_TQL_PER_SECOND ?? 20)
const TAXII_LIMIT = Number(process.env.BENCH_RWW_TAXII_LIMIT ?? 10_000)
/** More node flags for the servers (BENCH_LOAD_NODE_ARGS, as the dataset's loading server takes them). */
const NODE_ARGS = process.env.BENCH_LOAD_NODE_ARGS?.split(' ').filter(Boolean)
const IDLE_SECONDS = Number(process.env.BENCH_RWW_IDLE_SECONDS ?? 15)
const TARGETS = { tqlP99Ms: 50, taxiiObjectsPerSecond: 50_000 }
const TAXII_USER = 'bench-rww-taxii'
const TAXII_PASSWORD = 'bench-rww-taxii-password'

interface Reads {
  seconds: number
  tql: TqlFigures
  taxii: { pages: number; objects: number; objectsPerSecond: number; medianPageMs: number; errors: number }
}

interface Load {
  indicators: number
  items: number
  jobs: number
  seconds: number
  indicatorsPerSecond: number
  itemsPerSecond: number
  errors: number
  peakRssMb: number
}

interface DialectResult {
  dialect: Dialect
  storeIndicators: number
  loadedNow: boolean
  /** TQL alone on the idle store: what the TAXII reader's pages cost the TQL latency, apart from the load. */
  idleTqlOnly: Reads
  idle: Reads
  duringLoad: Reads
  loadAlone: Load
  loadWithReaders: Load
  /** The load's Indicators/s with the readers ÷ without. */
  loadRatio: number
}

function get(
  agent: Agent,
  port: number,
  headers: Record<string, string>,
  path: string,
): Promise<{ status: number; text: string; ms: number }> {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', agent, headers }, (res) => {
      const chunks: Buffer[] = []
      res
        .on('data', (c) => chunks.push(c))
        .on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8'),
            ms: performance.now() - started,
          }),
        )
    })
    req.on('error', reject)
    req.end()
  })
}

const round = (n: number) => Math.round(n * 100) / 100
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const percentile = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : 0

/** The two readers, running until `done` settles; each on its own connection. */
async function readWhile(ds: DatasetServer, done: Promise<unknown>, withTaxii = true): Promise<Reads> {
  let stopped = false
  const finished = done.then(
    () => (stopped = true),
    () => (stopped = true),
  )
  const tqlReader = startTqlReader({ port: ds.port, token: ds.credentials.token, perSecond: TQL_PER_SECOND })
  const taxiiAgent = new Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false })
  const started = performance.now()
  const taxii = async (): Promise<Reads['taxii']> => {
    if (!withTaxii) return { pages: 0, objects: 0, objectsPerSecond: 0, medianPageMs: 0, errors: 0 }
    const headers = {
      authorization: `Basic ${Buffer.from(`${TAXII_USER}:${TAXII_PASSWORD}`).toString('base64')}`,
      accept: 'application/taxii+json;version=2.1',
    }
    const path = `/api/services/taxii/v2/taxii/svc_taxii/collections/${encodeURIComponent(ds.manifest.owners[0]!.name)}/objects/`
    const pageTimes: number[] = []
    let objects = 0
    let errors = 0
    let next: string | undefined
    const began = performance.now()
    while (!stopped) {
      const res = await get(taxiiAgent, ds.port, headers, `${path}?limit=${TAXII_LIMIT}${next ? `&next=${next}` : ''}`)
      if (res.status !== 200) {
        errors++
        next = undefined
        continue
      }
      pageTimes.push(res.ms)
      const body = JSON.parse(res.text) as { more?: boolean; next?: string; objects?: unknown[] }
      objects += body.objects?.length ?? 0
      next = body.more ? body.next : undefined
    }
    const seconds = (performance.now() - began) / 1000
    pageTimes.sort((a, b) => a - b)
    return {
      pages: pageTimes.length,
      objects,
      objectsPerSecond: Math.round(objects / seconds),
      medianPageMs: round(percentile(pageTimes, 50)),
      errors,
    }
  }
  try {
    const [x] = await Promise.all([taxii(), finished])
    const t = await tqlReader.stop()
    return { seconds: round((performance.now() - started) / 1000), tql: t, taxii: x }
  } finally {
    taxiiAgent.destroy()
  }
}

/** The realistic load through the batch API, with the server's RSS sampled every 100 ms. */
async function load(ds: DatasetServer): Promise<Load> {
  let peakRssMb = rssMb(ds.pid)
  const sampler = setInterval(() => (peakRssMb = Math.max(peakRssMb, rssMb(ds.pid))), 100)
  try {
    const started = performance.now()
    const submitted = await submitAll(
      ds.port,
      ds.credentials.token,
      ds.manifest.owners,
      realisticLoadFiles(LOAD, ds.manifest.owners.length),
      'Replace',
    )
    const seconds = (performance.now() - started) / 1000
    const items = submitted.jobItems.reduce((a, b) => a + b, 0)
    return {
      indicators: LOAD,
      items,
      jobs: submitted.jobs,
      seconds: round(seconds),
      indicatorsPerSecond: Math.round(LOAD / seconds),
      itemsPerSecond: Math.round(items / seconds),
      errors: submitted.errors,
      peakRssMb: Math.max(peakRssMb, rssMb(ds.pid)),
    }
  } finally {
    clearInterval(sampler)
  }
}

async function measureDialect(dialect: Dialect, work: string): Promise<DialectResult> {
  console.log(`${dialect}: the load alone`)
  const alone = await startDatasetServer({ dialect }, work, { nodeArgs: NODE_ARGS })
  let loadAlone: Load
  try {
    loadAlone = await load(alone)
  } finally {
    await alone.close()
  }
  const ds = await startDatasetServer({ dialect }, work, { nodeArgs: NODE_ARGS })
  try {
    const store = openStore(ds.databaseUrl)
    try {
      await createAccount(
        store.db,
        {
          userName: TAXII_USER,
          kind: 'taxii',
          organization: ds.manifest.owners[0]!.name,
          role: 'Standard User',
          password: TAXII_PASSWORD,
        },
        isoNow(),
      )
    } finally {
      await store.close()
    }
    // The server caches credentials for up to a second.
    await sleep(1100)
    console.log(`${dialect}: readers on the idle store, ${IDLE_SECONDS} s TQL alone and ${IDLE_SECONDS} s both`)
    const idleTqlOnly = await readWhile(ds, sleep(IDLE_SECONDS * 1000), false)
    const idle = await readWhile(ds, sleep(IDLE_SECONDS * 1000))
    console.log(`${dialect}: readers during the load`)
    const loading = load(ds)
    const duringLoad = await readWhile(ds, loading)
    const loadWithReaders = await loading
    return {
      dialect,
      storeIndicators: ds.manifest.spec.indicators,
      loadedNow: ds.loadedNow,
      idleTqlOnly,
      idle,
      duringLoad,
      loadAlone,
      loadWithReaders,
      loadRatio: round(loadWithReaders.indicatorsPerSecond / loadAlone.indicatorsPerSecond),
    }
  } finally {
    await ds.close()
  }
}

function table(header: string[], body: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)))
  const line = (cells: string[]) =>
    cells.map((c, i) => (i <= 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n')
}

export async function run(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bulwark-rww-bench-'))
  const results: DialectResult[] = []
  try {
    for (const dialect of DIALECTS) results.push(await measureDialect(dialect, work))
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
  console.log(
    `\nread-while-write benchmark: a realistic load of ${LOAD} Indicators via /v2/batch onto a store of ` +
      `${results[0]?.storeIndicators ?? '?'}; TQL ${TQL_PER_SECOND}/s, TAXII 2.1 pages of ${TAXII_LIMIT} back to back`,
  )
  console.log(
    table(
      ['database', 'phase', 's', 'TQL n', 'TQL p50 ms', 'TQL p99 ms', 'TQL max ms', 'TAXII objects/s', 'TAXII page ms'],
      results.flatMap((r) =>
        (
          [
            ['idle, TQL alone', r.idleTqlOnly],
            ['idle', r.idle],
            ['during load', r.duringLoad],
          ] as const
        ).map(([phase, x]) => [
          r.dialect,
          phase,
          String(x.seconds),
          String(x.tql.requests),
          String(x.tql.p50Ms),
          String(x.tql.p99Ms),
          String(x.tql.maxMs),
          x.taxii.pages ? String(x.taxii.objectsPerSecond) : '-',
          x.taxii.pages ? String(x.taxii.medianPageMs) : '-',
        ]),
      ),
    ),
  )
  for (const r of results)
    for (const [phase, x] of [
      ['idle, TQL alone', r.idleTqlOnly],
      ['idle', r.idle],
      ['during load', r.duringLoad],
    ] as const)
      console.log(
        `${r.dialect}, ${phase}: TQL p50 / p99 ms by query: ${x.tql.queries.map((q) => `${q.name} ${q.p50Ms} / ${q.p99Ms}`).join('; ')}`,
      )
  console.log()
  console.log(
    table(
      ['database', 'load', 's', 'jobs', 'Indicators/s', 'items/s', 'peak RSS MB', 'errors'],
      results.flatMap((r) =>
        (
          [
            ['alone', r.loadAlone],
            ['with readers', r.loadWithReaders],
          ] as const
        ).map(([phase, l]) => [
          r.dialect,
          phase,
          String(l.seconds),
          String(l.jobs),
          String(l.indicatorsPerSecond),
          String(l.itemsPerSecond),
          String(l.peakRssMb),
          String(l.errors),
        ]),
      ),
    ),
  )
  for (const r of results) console.log(`${r.dialect}: the load with readers at ${r.loadRatio}x its rate alone`)
  const report = {
    benchmark: 'read-while-write',
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    loadAverage: round(loadavg()[0]),
    load: LOAD,
    tqlPerSecond: TQL_PER_SECOND,
    taxiiLimit: TAXII_LIMIT,
    targets: `during the load: TQL p99 < ${TARGETS.tqlP99Ms} ms, TAXII 2.1 >= ${TARGETS.taxiiObjectsPerSecond} objects/s, on both databases`,
    results,
  }
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true })
  writeFileSync(join(ROOT, 'bench', 'results', 'read-while-write.json'), `${JSON.stringify(report, null, 2)}\n`)
  console.log('\nwritten: bench/results/read-while-write.json')
  const missed = results.filter(
    (r) =>
      r.duringLoad.tql.p99Ms >= TARGETS.tqlP99Ms || r.duringLoad.taxii.objectsPerSecond < TARGETS.taxiiObjectsPerSecond,
  )
  if (missed.length) console.log(`targets missed in: ${missed.map((r) => r.dialect).join(', ')}`)
  const broken = results.filter(
    (r) =>
      r.loadAlone.errors ||
      r.loadWithReaders.errors ||
      r.idle.tql.errors ||
      r.duringLoad.tql.errors ||
      r.idle.taxii.errors ||
      r.duringLoad.taxii.errors,
  )
  if (broken.length) throw new Error(`Errors in: ${broken.map((r) => r.dialect).join(', ')}`)
}

/**
 * Whole-collection reads over TAXII 2.1: an owner holding BENCH_TAXII_INDICATORS Indicators
 * (default 1,000,000), loaded through the v2 batch API at default settings (bench/lib/dataset.ts,
 * cached between runs), read by following
 * `next` with limit=1000 and limit=10000 from a Bulwark child process over HTTPS. Reports
 * objects per second, the last page's time against the first page's, and the server's
 * largest resident set size while serving. Baseline in the same run: a bare Fastify HTTPS
 * server handing out the same page bytes from memory (bench/taxii21-bare.ts), walked the
 * same way. Writes bench/results/taxii21.json.
 *
 * Environment: BENCH_DB=sqlite|postgres (default sqlite), BENCH_TAXII_INDICATORS,
 * BENCH_LOG_LEVEL (default warn), BENCH_POSTGRES_URL.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { Agent, request } from 'node:https'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAccount } from '../src/domain/access/accounts.js'
import { isoNow } from '../src/core/time.js'
import { openStore } from '../src/store/connect.js'
import { startDatasetServer, benchDialects } from './lib/dataset.js'
import { ROOT, freePort, startServer } from './lib/processes.js'

const DIALECTS = benchDialects('sqlite')
const TOTAL = Number(process.env.BENCH_TAXII_INDICATORS ?? 1_000_000)
const ORGANIZATION = 'Bench Organization'
const LIMITS = [1000, 10_000]
/** Pages the baseline keeps in memory and serves in turn. */
const BASELINE_PAGES = 8
const OBJECTS_PATH = `/api/services/taxii/v2/taxii/svc_taxii/collections/${encodeURIComponent(ORGANIZATION)}/objects/`

const agent = new Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false })

function call(
  port: number,
  headers: Record<string, string>,
  method: string,
  path: string,
  body?: string,
  contentType = 'application/json',
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method,
        agent,
        headers: {
          ...headers,
          ...(body !== undefined ? { 'content-type': contentType, 'content-length': Buffer.byteLength(body) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = []
        res
          .on('data', (c) => chunks.push(c))
          .on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }))
      },
    )
    req.on('error', reject)
    if (body !== undefined) req.write(body)
    req.end()
  })
}

function rssBytes(pid: number | undefined): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) * 1024 : 0
  } catch {
    return 0
  }
}

interface Walk {
  limit: number
  objects: number
  pages: number
  seconds: number
  objectsPerSecond: number
  firstPageMs: number
  /** The last full page (the final page may hold a remainder only). */
  lastPageMs: number
  lastToFirst: number
  medianPageMs: number
  bytes: number
  /** The Bulwark server's largest resident set size during this walk. */
  maxRssMB?: number
}

/** Follows `next` from the first page to the last; `pageUrl(n, next)` names page n. */
async function walk(
  port: number,
  headers: Record<string, string>,
  limit: number,
  pageUrl: (n: number, next?: string) => string,
  keep?: string[],
  pages?: number,
): Promise<Walk> {
  let next: string | undefined
  let objects = 0
  let bytes = 0
  const times: number[] = []
  const full: boolean[] = []
  const started = performance.now()
  for (let n = 0; ; n++) {
    const t0 = performance.now()
    const res = await call(port, headers, 'GET', pageUrl(n, next))
    times.push(performance.now() - t0)
    if (res.status !== 200) throw new Error(`${pageUrl(n, next)}: ${res.status} ${res.text.slice(0, 300)}`)
    if (keep && keep.length < BASELINE_PAGES) keep.push(res.text)
    bytes += res.text.length
    const body = JSON.parse(res.text) as { more: boolean; next?: string; objects?: unknown[] }
    objects += body.objects?.length ?? 0
    full.push((body.objects?.length ?? 0) >= limit)
    if (pages !== undefined ? n + 1 >= pages : !body.more) break
    next = body.next
  }
  const seconds = (performance.now() - started) / 1000
  const firstPageMs = round(times[0])
  const lastFull = full.lastIndexOf(true)
  const lastPageMs = round(times[lastFull >= 0 ? lastFull : times.length - 1])
  const sorted = [...times].sort((a, b) => a - b)
  return {
    limit,
    objects,
    pages: times.length,
    seconds: round(seconds),
    objectsPerSecond: Math.round(objects / seconds),
    firstPageMs,
    lastPageMs,
    lastToFirst: round(lastPageMs / firstPageMs),
    medianPageMs: round(sorted[Math.floor(sorted.length / 2)]),
    bytes,
  }
}

interface Row {
  dialect: string
  indicators: number
  loadSeconds: number
  loadJobs: number
  loadErrors: number
  walks: (Walk & { baselineObjectsPerSecond: number; ratioToBaseline: number })[]
  /** Before the walks, after one request. */
  idleRssMB: number
  maxRssMB: number
}

async function measure(dialect: 'sqlite' | 'postgres', work: string): Promise<Row> {
  // One owner's collection holds every Indicator (bench/lib/dataset.ts, cached between runs).
  const ds = await startDatasetServer({ dialect, indicators: TOTAL, ownerShares: [1], groups: 0 }, work, {
    env: { BULWARK_BATCH_WORKER: 'off' },
  })
  const { port, tls } = ds
  const loaded = { seconds: ds.manifest.load.seconds, jobs: ds.manifest.load.jobs, errors: ds.manifest.load.errors }
  try {
    const store = openStore(ds.databaseUrl)
    await createAccount(
      store.db,
      {
        userName: 'bench-taxii',
        kind: 'taxii',
        organization: ORGANIZATION,
        role: 'Standard User',
        password: 'bench-taxii-password',
      },
      isoNow(),
    )
    await store.close()
    // The dataset's server is a fresh process: its memory is what serving needs, not what the batch import left behind.
    const server = ds.server
    const headers = {
      authorization: `Basic ${Buffer.from('bench-taxii:bench-taxii-password').toString('base64')}`,
      accept: 'application/taxii+json;version=2.1',
    }
    // The first request pays for the TLS handshake and the password hash; neither is paging.
    const warm = await call(port, headers, 'GET', '/api/services/taxii/v2/taxii/svc_taxii/collections/')
    if (warm.status !== 200) throw new Error(`collections: ${warm.status} ${warm.text}`)
    const idleRss = rssBytes(server.child.pid)
    let maxRss = idleRss
    let walkRss = idleRss
    const sampler = setInterval(() => {
      const now = rssBytes(server.child.pid)
      maxRss = Math.max(maxRss, now)
      walkRss = Math.max(walkRss, now)
    }, 50)
    const walks: Row['walks'] = []
    try {
      for (const limit of LIMITS) {
        const kept: string[] = []
        walkRss = rssBytes(server.child.pid)
        const measured = await walk(
          port,
          headers,
          limit,
          (_n, next) => `${OBJECTS_PATH}?limit=${limit}${next ? `&next=${next}` : ''}`,
          kept,
        )
        measured.maxRssMB = round(Math.max(walkRss, rssBytes(server.child.pid)) / 1024 / 1024)
        const baseline = await walkBaseline(work, tls, limit, kept, measured.pages)
        walks.push({
          ...measured,
          baselineObjectsPerSecond: baseline.objectsPerSecond,
          ratioToBaseline: round(measured.objectsPerSecond / baseline.objectsPerSecond),
        })
      }
    } finally {
      clearInterval(sampler)
    }
    return {
      dialect,
      indicators: TOTAL,
      loadSeconds: round(loaded.seconds),
      loadJobs: loaded.jobs,
      loadErrors: loaded.errors,
      walks,
      idleRssMB: round(idleRss / 1024 / 1024),
      maxRssMB: round(maxRss / 1024 / 1024),
    }
  } finally {
    await ds.close()
  }
}

/** The same number of pages of the same bytes, from the bare server. */
async function walkBaseline(
  work: string,
  tls: { cert: string; key: string },
  limit: number,
  pages: string[],
  count: number,
): Promise<Walk> {
  const file = join(work, `pages-${limit}.json`)
  writeFileSync(file, JSON.stringify(pages))
  const port = await freePort()
  const bare = await startServer(
    'bench/taxii21-bare.ts',
    {
      ...process.env,
      BENCH_PORT: String(port),
      BENCH_TLS_CERT: tls.cert,
      BENCH_TLS_KEY: tls.key,
      BENCH_PAGES_FILE: file,
    },
    join(work, 'bare.log'),
  )
  try {
    return await walk(port, {}, limit, (n) => `/page/${n}`, undefined, count)
  } finally {
    await bare.stop()
  }
}

const round = (n: number) => Math.round(n * 100) / 100

export async function run(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bulwark-taxii-bench-'))
  const rows: Row[] = []
  try {
    for (const dialect of DIALECTS) rows.push(await measure(dialect, work))
  } finally {
    agent.destroy()
    rmSync(work, { recursive: true, force: true })
  }
  console.log(
    `\ntaxii21 benchmark: whole collection of ${TOTAL} Indicators (loaded through /v2/batch), followed by next`,
  )
  const header = [
    'database',
    'limit',
    'pages',
    'objects',
    'seconds',
    'objects/s',
    'baseline/s',
    'ratio',
    'first ms',
    'median ms',
    'last full ms',
    'last/first',
    'max RSS MB',
  ]
  const body = rows.flatMap((r) =>
    r.walks.map((w) => [
      r.dialect,
      String(w.limit),
      String(w.pages),
      String(w.objects),
      String(w.seconds),
      String(w.objectsPerSecond),
      String(w.baselineObjectsPerSecond),
      w.ratioToBaseline.toFixed(2),
      String(w.firstPageMs),
      String(w.medianPageMs),
      String(w.lastPageMs),
      w.lastToFirst.toFixed(2),
      String(w.maxRssMB),
    ]),
  )
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)))
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ')
  console.log(line(header))
  console.log(widths.map((w) => '-'.repeat(w)).join('  '))
  for (const b of body) console.log(line(b))
  for (const r of rows)
    console.log(
      `${r.dialect}: load ${r.loadSeconds} s in ${r.loadJobs} batch jobs (${r.loadErrors} errors); server RSS ${r.idleRssMB} MB before the walks, at most ${r.maxRssMB} MB while serving`,
    )
  const report = {
    benchmark: 'taxii21',
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    indicators: TOTAL,
    targets: 'objects/s >= 100,000 at limit=10000; last page <= 1.5 x first; server RSS < 256 MB while serving',
    results: rows,
  }
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true })
  writeFileSync(join(ROOT, 'bench', 'results', 'taxii21.json'), `${JSON.stringify(report, null, 2)}\n`)
  console.log('\nwritten: bench/results/taxii21.json')
  const broken = rows.filter((r) => r.loadErrors > 0 || r.walks.some((w) => w.objects < r.indicators))
  if (broken.length) throw new Error(`Incomplete load or walk in: ${broken.map((r) => r.dialect).join(', ')}`)
}

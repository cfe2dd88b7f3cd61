/**
 * What listings and TQL cost on data loaded the way users load it: the dataset of bench/lib/dataset.ts
 * (1,000,000 Indicators over three owners of 70/25/5 %, loaded through POST /v2/batch at default
 * settings, no statistics gathered by hand), served by a fresh Bulwark child process on a private copy.
 * One keep-alive HTTPS connection, one request at a time, TC-Token auth:
 * - baseline in the same run: GET /api/v2/owners (authentication, one small query, the envelope);
 * - v3 GET /api/v3/indicators?resultLimit=100, unfiltered, and the five TQL filters of issue 12;
 * - v2 GET /api/v2/indicators first page and at resultStart = 90 % of the Organization's Indicators;
 * - v2 first pages with a filter (V2_FILTERS), each with its exact resultCount (issue 28, point 4);
 * - a walk over every page of /api/v3/indicators following `next` (keyset cursor), first vs last page.
 * Each measured request is repeated BENCH_TQL_RUNS times after one warm-up; p50 and p99 are printed
 * with their ratio to the baseline's p50. Writes bench/results/tql.json.
 *
 * Environment: BENCH_DB=sqlite,postgres (default both), BENCH_INDICATORS (default 1,000,000),
 * BENCH_TQL_RUNS (default 50), BENCH_TQL_WALK_LIMIT (default 10000), BENCH_LOG_LEVEL, BENCH_POSTGRES_URL.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { Agent, request } from 'node:https'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Dialect, startDatasetServer, benchDialects } from './lib/dataset.js'
import { ROOT } from './lib/processes.js'

const DIALECTS = benchDialects('sqlite,postgres')
const RUNS = Number(process.env.BENCH_TQL_RUNS ?? 50)
const WALK_LIMIT = Number(process.env.BENCH_TQL_WALK_LIMIT ?? 10_000)

/**
 * The issue's five filters, with values the dataset holds: "h12345" prefixes three Host summaries of the
 * Organization; feed-2-tag-7 is on 1,000 Indicators of the smallest owner; each Group has 10 Indicators;
 * every Indicator was added during the load, so the date window matches all of them; ratings 1–5 are spread
 * over every type, so the type and rating filter matches 12 % of the rows.
 */
export const QUERIES: { name: string; tql: string }[] = [
  { name: 'type and rating', tql: 'typeName in ("Address","Host") and rating >= 3' },
  { name: 'summary prefix', tql: 'summary startswith "h12345"' },
  { name: 'tag', tql: 'tag = "feed-2-tag-7"' },
  { name: 'hasGroup by name', tql: 'hasGroup(name = "Bench group 0-5")' },
  { name: 'added in last 7 days', tql: 'dateAdded > TODAY() - 7 DAYS' },
]

/**
 * v2 filters on the Organization's first page (issue 28, point 4: < 20 ms p50 with an exact resultCount). The
 * dataset's ratings are 1–5 and its confidences 0–100; every Indicator was added during the load, so the last
 * week's window holds all of them and one ending a week ago none. No Indicator of the dataset has a false
 * positive, DNS or WHOIS tracking or Address data: those filters match all of the list or none of it.
 */
export function v2Filters(now = new Date()): { name: string; filters: string; list?: string }[] {
  const day = (offset: number) => new Date(now.getTime() + offset * 86_400_000).toISOString().slice(0, 10)
  return [
    { name: 'rating', filters: 'rating>2' },
    { name: 'added in the last 7 days', filters: `dateAdded>${day(-7)}` },
    { name: 'added before a week ago', filters: `dateAdded<${day(-7)}` },
    { name: 'confidence', filters: 'confidence>50' },
    { name: 'summary prefix', filters: 'summary^h12345' },
    { name: 'ThreatAssess score', filters: 'threatAssessScore>500' },
    { name: 'ThreatAssess rating', filters: 'threatAssessRating>2' },
    { name: 'no false positive', filters: 'falsePositive=0' },
    { name: 'a false positive', filters: 'falsePositive>0' },
    { name: 'active', filters: 'active=true' },
    { name: 'Hosts tracked by DNS', filters: 'dnsActive=true', list: 'hosts' },
    { name: 'Addresses in a country', filters: 'countryCode=FR', list: 'addresses' },
  ]
}

interface Timing {
  name: string
  path: string
  p50Ms: number
  p99Ms: number
  ratioToBaseline?: number
  items: number
  /** v2: the envelope's resultCount. */
  resultCount?: number
}
interface Walk {
  resultLimit: number
  pages: number
  items: number
  seconds: number
  firstPageMs: number
  medianPageMs: number
  lastFullPageMs: number
  lastToFirst: number
}
interface DialectResult {
  dialect: Dialect
  indicators: number
  loadedNow: boolean
  baseline: Timing
  timings: Timing[]
  walk: Walk
}

const agent = new Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false })

function get(port: number, token: string, path: string): Promise<{ status: number; json: any; ms: number }> {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: 'GET', agent, headers: { authorization: `TC-Token ${token}` } },
      (res) => {
        const chunks: Buffer[] = []
        res
          .on('data', (c) => chunks.push(c))
          .on('end', () => {
            const ms = performance.now() - started
            const text = Buffer.concat(chunks).toString('utf8')
            try {
              resolve({ status: res.statusCode ?? 0, json: JSON.parse(text), ms })
            } catch {
              resolve({ status: res.statusCode ?? 0, json: text, ms })
            }
          })
      },
    )
    req.on('error', reject)
    req.end()
  })
}

const round = (n: number) => Math.round(n * 100) / 100

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

function itemsOf(json: any): number {
  const data = json.data
  if (Array.isArray(data)) return data.length
  const list = data && Object.values(data).find(Array.isArray)
  return Array.isArray(list) ? list.length : 0
}

async function time(port: number, token: string, name: string, path: string): Promise<Timing> {
  const first = await get(port, token, path)
  if (first.status !== 200) throw new Error(`GET ${path}: ${first.status} ${JSON.stringify(first.json).slice(0, 300)}`)
  const times: number[] = []
  for (let i = 0; i < RUNS; i++) times.push((await get(port, token, path)).ms)
  times.sort((a, b) => a - b)
  return {
    name,
    path,
    p50Ms: round(percentile(times, 50)),
    p99Ms: round(percentile(times, 99)),
    items: itemsOf(first.json),
    ...(typeof first.json?.data?.resultCount === 'number' ? { resultCount: first.json.data.resultCount } : {}),
  }
}

async function walk(port: number, token: string, publicUrl: string): Promise<Walk> {
  let path: string | undefined = `/api/v3/indicators?resultLimit=${WALK_LIMIT}`
  const pages: { ms: number; items: number }[] = []
  const started = performance.now()
  while (path) {
    const page = await get(port, token, path)
    if (page.status !== 200) throw new Error(`walk ${path}: ${page.status}`)
    pages.push({ ms: page.ms, items: page.json.data.length })
    path = page.json.next ? String(page.json.next).slice(publicUrl.length) : undefined
  }
  const full = pages.filter((p) => p.items === WALK_LIMIT)
  const lastFull = full[full.length - 1] ?? pages[pages.length - 1]!
  return {
    resultLimit: WALK_LIMIT,
    pages: pages.length,
    items: pages.reduce((n, p) => n + p.items, 0),
    seconds: round((performance.now() - started) / 1000),
    firstPageMs: round(pages[0]!.ms),
    medianPageMs: round(
      percentile(
        pages.map((p) => p.ms).sort((a, b) => a - b),
        50,
      ),
    ),
    lastFullPageMs: round(lastFull.ms),
    lastToFirst: round(lastFull.ms / pages[0]!.ms),
  }
}

async function measureDialect(dialect: Dialect, work: string): Promise<DialectResult> {
  const ds = await startDatasetServer({ dialect }, work)
  try {
    const {
      port,
      credentials: { token },
      url,
      manifest,
    } = ds
    const organization = manifest.owners[0]!
    console.log(
      `${dialect}: ${manifest.spec.indicators} Indicators (${ds.loadedNow ? 'loaded now' : 'cached dataset'})`,
    )
    const baseline = await time(port, token, 'baseline: v2 owners', '/api/v2/owners')
    const timings: Timing[] = [await time(port, token, 'v3 unfiltered', '/api/v3/indicators?resultLimit=100')]
    for (const q of QUERIES)
      timings.push(
        await time(
          port,
          token,
          `v3 TQL ${q.name}: ${q.tql}`,
          `/api/v3/indicators?resultLimit=100&tql=${encodeURIComponent(q.tql)}`,
        ),
      )
    timings.push(await time(port, token, 'v2 first page', '/api/v2/indicators?resultLimit=100'))
    const deep = Math.floor(organization.indicators * 0.9)
    timings.push(
      await time(port, token, `v2 at resultStart=${deep}`, `/api/v2/indicators?resultLimit=100&resultStart=${deep}`),
    )
    for (const f of v2Filters())
      timings.push(
        await time(
          port,
          token,
          `v2 ${f.name}: ${f.filters}`,
          `/api/v2/indicators${f.list ? `/${f.list}` : ''}?resultLimit=100&filters=${encodeURIComponent(f.filters)}`,
        ),
      )
    for (const t of timings) t.ratioToBaseline = round(t.p50Ms / baseline.p50Ms)
    console.log(`${dialect}: walking every page of ${WALK_LIMIT}`)
    const walked = await walk(port, token, url)
    return { dialect, indicators: manifest.spec.indicators, loadedNow: ds.loadedNow, baseline, timings, walk: walked }
  } finally {
    await ds.close()
  }
}

function printTable(results: DialectResult[]) {
  const header = ['database', 'request', 'p50 ms', 'p99 ms', 'p50 / baseline', 'items', 'resultCount']
  const body: string[][] = []
  for (const r of results) {
    body.push([
      r.dialect,
      r.baseline.name,
      String(r.baseline.p50Ms),
      String(r.baseline.p99Ms),
      '1',
      String(r.baseline.items),
      '-',
    ])
    for (const t of r.timings)
      body.push([
        r.dialect,
        t.name,
        String(t.p50Ms),
        String(t.p99Ms),
        String(t.ratioToBaseline),
        String(t.items),
        String(t.resultCount ?? '-'),
      ])
    const w = r.walk
    body.push([
      r.dialect,
      `walk via next: first page of ${w.pages} (limit ${w.resultLimit})`,
      String(w.firstPageMs),
      '-',
      '-',
      String(w.resultLimit),
      '-',
    ])
    body.push([
      r.dialect,
      `walk via next: last full page = ${w.lastToFirst}x first (median ${w.medianPageMs}; ${w.seconds} s, ${w.items} items)`,
      String(w.lastFullPageMs),
      '-',
      '-',
      '-',
      '-',
    ])
  }
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)))
  const line = (cells: string[]) =>
    cells.map((c, i) => (i <= 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')
  console.log(`\ntql benchmark: ${RUNS} runs per request, one HTTPS connection, one request at a time`)
  console.log(line(header))
  console.log(widths.map((w) => '-'.repeat(w)).join('  '))
  for (const b of body) console.log(line(b))
}

export async function run(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bulwark-tql-bench-'))
  const results: DialectResult[] = []
  try {
    for (const dialect of DIALECTS) results.push(await measureDialect(dialect, work))
  } finally {
    agent.destroy()
    rmSync(work, { recursive: true, force: true })
  }
  printTable(results)
  const report = {
    benchmark: 'tql',
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    runsPerRequest: RUNS,
    targets:
      'resultLimit=100: p50 < 5 ms and p99 < 20 ms for the unfiltered first page and the five TQL filters; v2 first page p50 < 10 ms; ' +
      'walking every page via next, the last page within 1.5x of the first',
    results,
  }
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true })
  writeFileSync(join(ROOT, 'bench', 'results', 'tql.json'), `${JSON.stringify(report, null, 2)}\n`)
  console.log('\nwritten: bench/results/tql.json')
}

/**
 * What v3 TQL lists cost at scale: 1,000,000 Indicators over 3 owners (with tags, attributes
 * and Group associations), seeded straight into the store with multi-row INSERTs in one
 * transaction, then queried through the real HTTP API of a Bulwark child process:
 * - five filters at resultLimit=100 (median and p99 of BENCH_TQL_RUNS runs each);
 * - the unfiltered listing reached directly at resultStart=900000 (OFFSET);
 * - a walk over every page following `next` at resultLimit=10000 (keyset cursor), first vs last page.
 * Writes bench/results/tql.json.
 *
 * Environment: BENCH_DB=sqlite|postgres (default sqlite), BENCH_TQL_INDICATORS (default
 * 1000000), BENCH_TQL_RUNS (default 30), BENCH_TQL_WALK_LIMIT (default 10000), BENCH_LOG_LEVEL, BENCH_POSTGRES_URL.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { Agent, request } from 'node:https'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { generateAccessId, generateSecretKey, generateToken } from '../src/domain/access/credentials.js'
import { loadTlsMaterial } from '../src/protocols/http/tls.js'
import { openStore } from '../src/store/connect.js'
import { createDatabase } from './lib/postgres.js'
import { ROOT, freePort, startServer } from './lib/processes.js'
import { seedIndicators } from './tql-seed.js'

const DIALECTS = (process.env.BENCH_DB ?? 'sqlite').split(',').map((d) => d.trim()) as ('sqlite' | 'postgres')[]
const TOTAL = Number(process.env.BENCH_TQL_INDICATORS ?? 1_000_000)
const RUNS = Number(process.env.BENCH_TQL_RUNS ?? 30)
const WALK_LIMIT = Number(process.env.BENCH_TQL_WALK_LIMIT ?? 10_000)
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'warn'
const ORGANIZATION = 'Bench Organization'

export const QUERIES: { name: string; tql: string }[] = [
  { name: 'type and rating', tql: 'typeName in ("Address","Host") and rating >= 3' },
  { name: 'summary prefix', tql: 'summary startswith "h12345"' },
  { name: 'rare tag', tql: 'tag = "rare-tag"' },
  { name: 'hasGroup by name', tql: 'hasGroup(name = "target-group")' },
  { name: 'added in last 7 days', tql: 'dateAdded > TODAY() - 7 DAYS' },
]

interface Timing { medianMs: number; p99Ms: number; runs: number; items: number }
interface DialectResult {
  dialect: string
  indicators: number
  seedSeconds: number
  queries: ({ name: string; tql: string } & Timing)[]
  deepOffset: Timing & { resultStart: number }
  walk: { resultLimit: number; pages: number; items: number; seconds: number; firstPageMs: number; lastPageMs: number; medianPageMs: number; lastToFirst: number }
}

const agent = new Agent({ keepAlive: true, rejectUnauthorized: false })

function get(port: number, token: string, path: string): Promise<{ status: number; json: any; ms: number }> {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', agent, headers: { authorization: `TC-Token ${token}` } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c) => chunks.push(c)).on('end', () => {
        const ms = performance.now() - started
        const text = Buffer.concat(chunks).toString('utf8')
        try { resolve({ status: res.statusCode ?? 0, json: JSON.parse(text), ms }) } catch { resolve({ status: res.statusCode ?? 0, json: text, ms }) }
      })
    })
    req.on('error', reject)
    req.end()
  })
}

const round = (n: number) => Math.round(n * 100) / 100

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

async function time(port: number, token: string, path: string, runs: number): Promise<Timing> {
  const first = await get(port, token, path)
  if (first.status !== 200) throw new Error(`GET ${path}: ${first.status} ${JSON.stringify(first.json).slice(0, 300)}`)
  const times: number[] = []
  for (let i = 0; i < runs; i++) times.push((await get(port, token, path)).ms)
  times.sort((a, b) => a - b)
  return { medianMs: round(percentile(times, 50)), p99Ms: round(percentile(times, 99)), runs, items: first.json.data.length }
}

async function walk(port: number, token: string, publicUrl: string): Promise<DialectResult['walk']> {
  let path: string | undefined = `/api/v3/indicators?resultLimit=${WALK_LIMIT}`
  const pages: number[] = []
  let items = 0
  const started = performance.now()
  while (path) {
    const page = await get(port, token, path)
    if (page.status !== 200) throw new Error(`walk ${path}: ${page.status}`)
    pages.push(page.ms)
    items += page.json.data.length
    path = page.json.next ? String(page.json.next).slice(publicUrl.length) : undefined
  }
  const sorted = [...pages].sort((a, b) => a - b)
  return {
    resultLimit: WALK_LIMIT, pages: pages.length, items, seconds: round((performance.now() - started) / 1000), firstPageMs: round(pages[0]!),
    lastPageMs: round(pages[pages.length - 1]!), medianPageMs: round(percentile(sorted, 50)), lastToFirst: round(pages[pages.length - 1]! / pages[0]!),
  }
}

async function measureDialect(dialect: 'sqlite' | 'postgres', work: string, tls: { cert: string; key: string }): Promise<DialectResult> {
  const database = dialect === 'postgres' ? await createDatabase('bulwark_tql_bench') : undefined
  const url = database?.url ?? `sqlite:${join(work, dialect, 'bulwark.db')}`
  const token = generateToken()
  const port = await freePort()
  const publicUrl = `https://127.0.0.1:${port}`
  const env: NodeJS.ProcessEnv = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BULWARK_'))),
    BULWARK_DATA_DIR: join(work, dialect), BULWARK_PORT: String(port), BULWARK_HOST: '127.0.0.1', BULWARK_TLS_CERT: tls.cert, BULWARK_TLS_KEY: tls.key,
    BULWARK_LOG_LEVEL: LOG_LEVEL, BULWARK_ADMIN_ACCESS_ID: generateAccessId(), BULWARK_ADMIN_SECRET_KEY: generateSecretKey(), BULWARK_ADMIN_TOKEN: token,
    BULWARK_ORGANIZATION: ORGANIZATION, BULWARK_DATABASE_URL: url, BULWARK_PUBLIC_URL: publicUrl, BULWARK_BATCH_WORKER: 'off',
  }
  const log = join(work, `bulwark-${dialect}.log`)
  try {
    // First start creates the schema, the Organization and the administrator; the data goes in while no server runs.
    await (await startServer('src/main.ts', env, log)).stop()
    const store = openStore(url)
    let seedSeconds: number
    try {
      seedSeconds = await seedIndicators(store, ORGANIZATION, TOTAL)
    } finally {
      await store.close()
    }
    console.log(`${dialect}: seeded ${TOTAL} Indicators in ${seedSeconds} s`)
    const server = await startServer('src/main.ts', env, log)
    try {
      const queries = []
      for (const q of QUERIES) {
        queries.push({ ...q, ...await time(port, token, `/api/v3/indicators?resultLimit=100&tql=${encodeURIComponent(q.tql)}`, RUNS) })
        console.log(`${dialect}: ${q.name} done`)
      }
      const resultStart = Math.floor(TOTAL * 0.9)
      const deepOffset = { resultStart, ...await time(port, token, `/api/v3/indicators?resultLimit=100&resultStart=${resultStart}`, Math.min(RUNS, 10)) }
      const walked = await walk(port, token, publicUrl)
      return { dialect, indicators: TOTAL, seedSeconds, queries, deepOffset, walk: walked }
    } finally {
      await server.stop()
    }
  } finally {
    await database?.drop()
  }
}

function printTable(results: DialectResult[]) {
  const header = ['database', 'query', 'median ms', 'p99 ms', 'items']
  const body: string[][] = []
  for (const r of results) {
    for (const q of r.queries) body.push([r.dialect, `${q.name}: ${q.tql}`, String(q.medianMs), String(q.p99Ms), String(q.items)])
    body.push([r.dialect, `unfiltered at resultStart=${r.deepOffset.resultStart} (OFFSET)`, String(r.deepOffset.medianMs), String(r.deepOffset.p99Ms), String(r.deepOffset.items)])
    body.push([r.dialect, `walk via next, first page of ${r.walk.pages} (limit ${r.walk.resultLimit})`, String(r.walk.firstPageMs), '-', String(r.walk.resultLimit)])
    body.push([r.dialect, `walk via next, last page (${r.walk.lastToFirst}x first; walk ${r.walk.seconds} s, ${r.walk.items} items)`, String(r.walk.lastPageMs), '-', '-'])
  }
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)))
  const line = (cells: string[]) => cells.map((c, i) => (i <= 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')
  console.log(`\ntql benchmark: ${TOTAL} Indicators over 3 owners, ${RUNS} runs per query through HTTPS`)
  console.log(line(header))
  console.log(widths.map((w) => '-'.repeat(w)).join('  '))
  for (const b of body) console.log(line(b))
}

export async function run(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bulwark-tql-bench-'))
  const results: DialectResult[] = []
  try {
    await loadTlsMaterial({ dataDir: work })
    const tls = { cert: join(work, 'tls', 'self-signed.crt'), key: join(work, 'tls', 'self-signed.key') }
    for (const dialect of DIALECTS) results.push(await measureDialect(dialect, work, tls))
  } finally {
    agent.destroy()
    rmSync(work, { recursive: true, force: true })
  }
  printTable(results)
  const report = {
    benchmark: 'tql', date: new Date().toISOString(), node: process.version, cpus: cpus().length, cpuModel: cpus()[0]?.model, runsPerQuery: RUNS,
    targets: 'selective queries < 20 ms median on SQLite; walking in order, the last page within 5x of the first', results,
  }
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true })
  writeFileSync(join(ROOT, 'bench', 'results', 'tql.json'), `${JSON.stringify(report, null, 2)}\n`)
  console.log('\nwritten: bench/results/tql.json')
}

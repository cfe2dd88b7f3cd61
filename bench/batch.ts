/**
 * What the v2 Batch API sustains: 100,000 Indicators (five types, each with one tag and one
 * attribute) imported through the real HTTP API of a Bulwark child process, in as many jobs as
 * batchMaxIndicators requires (4 x 25,000), timed from the first POST to the last job
 * Completed. The baseline, on the same machine and database, is the driver's raw rate for the
 * same rows (Indicator + tag link + attribute) with prepared multi-row INSERTs in one
 * transaction. Writes bench/results/batch.json.
 *
 * Environment: BENCH_DB=sqlite|postgres (default both), BENCH_BATCH_INDICATORS (default
 * 100000), BENCH_LOG_LEVEL (default warn), BENCH_POSTGRES_URL.
 */
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { request } from 'node:https'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { prepareDatabase } from '../src/bootstrap.js'
import { generateAccessId, generateSecretKey, generateToken } from '../src/domain/access/credentials.js'
import { createServices } from '../src/domain/services.js'
import { loadTlsMaterial } from '../src/protocols/http/tls.js'
import { type Store, openStore } from '../src/store/connect.js'
import { measureRawInserts } from './batch-raw.js'
import { createDatabase } from './lib/postgres.js'
import { ROOT, freePort, startServer } from './lib/processes.js'

const DIALECTS = (process.env.BENCH_DB ?? 'sqlite,postgres').split(',').map((d) => d.trim()) as ('sqlite' | 'postgres')[]
const TOTAL = Number(process.env.BENCH_BATCH_INDICATORS ?? 100_000)
const PER_JOB = 25_000
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'warn'
export const ORGANIZATION = 'Bench Organization'

interface Row {
  dialect: string
  indicators: number
  jobs: number
  seconds: number
  indicatorsPerSecond: number
  rawSeconds: number
  rawIndicatorsPerSecond: number
  ratio: number
  errors: number
  /** Each job's time from claim to Completed, as the server recorded it. */
  jobSeconds: number[]
}

async function jobTimes(url: string): Promise<number[]> {
  const store = openStore(url)
  try {
    const rows = await store.db.selectFrom('batch_job').select(['started_at', 'completed_at']).orderBy('id').execute()
    return rows.map((r) => round((Date.parse(r.completed_at ?? '') - Date.parse(r.started_at ?? '')) / 1000))
  } finally {
    await store.close()
  }
}

/** Indicator i of the run: Host, Address, EmailAddress, URL or File, with one tag and one attribute. */
export function benchIndicator(i: number) {
  const base = { rating: (i % 5) + 1, confidence: i % 101, tag: [{ name: `bench-tag-${i % 100}` }], attribute: [{ type: 'Source', value: `feed ${i}` }] }
  switch (i % 5) {
    case 0: return { ...base, type: 'Host', summary: `h${i}.bench.example` }
    case 1: return { ...base, type: 'Address', summary: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` }
    case 2: return { ...base, type: 'EmailAddress', summary: `user${i}@bench.example` }
    case 3: return { ...base, type: 'URL', summary: `https://bench.example/path/${i}` }
    default: return { ...base, type: 'File', summary: createHash('md5').update(String(i)).digest('hex').toUpperCase() }
  }
}

export function call(port: number, token: string, method: string, path: string, body?: string, contentType = 'application/json'): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1', port, path, method, rejectUnauthorized: false,
      headers: { authorization: `TC-Token ${token}`, ...(body !== undefined ? { 'content-type': contentType, 'content-length': Buffer.byteLength(body) } : {}) },
    }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c) => chunks.push(c)).on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8')
        try { resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }) } catch { resolve({ status: res.statusCode ?? 0, json: text }) }
      })
    })
    req.on('error', reject)
    if (body !== undefined) req.write(body)
    req.end()
  })
}

/** Imports `total` Indicators (benchIndicator) into the Organization through /v2/batch, jobs of 25,000, and waits for them. */
export async function importThroughApi(port: number, token: string, total = TOTAL): Promise<{ seconds: number; jobs: number; errors: number; success: number }> {
  const files: string[] = []
  for (let start = 0; start < total; start += PER_JOB) {
    files.push(JSON.stringify({ indicator: Array.from({ length: Math.min(PER_JOB, total - start) }, (_, k) => benchIndicator(start + k)) }))
  }
  const started = performance.now()
  const ids: number[] = []
  for (const file of files) {
    const created = await call(port, token, 'POST', '/api/v2/batch', JSON.stringify({ version: 'V2', owner: ORGANIZATION, haltOnError: false, action: 'Create', attributeWriteType: 'Append', tagWriteType: 'Append' }))
    if (created.status !== 201) throw new Error(`POST /v2/batch: ${created.status} ${JSON.stringify(created.json)}`)
    const id = created.json.data.batchId
    const uploaded = await call(port, token, 'POST', `/api/v2/batch/${id}`, file, 'application/octet-stream')
    if (uploaded.status !== 202) throw new Error(`POST /v2/batch/${id}: ${uploaded.status} ${JSON.stringify(uploaded.json)}`)
    ids.push(id)
  }
  let errors = 0
  let success = 0
  for (const id of ids) {
    for (;;) {
      const { json } = await call(port, token, 'GET', `/api/v2/batch/${id}`)
      const status = json.data?.batchStatus
      if (status?.status === 'Completed') { errors += status.errorCount; success += status.successCount; break }
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  return { seconds: (performance.now() - started) / 1000, jobs: ids.length, errors, success }
}

/** A migrated database whose upload limit fits a 25,000-Indicator file. */
export async function prepare(url: string): Promise<void> {
  const store: Store = openStore(url)
  try {
    await prepareDatabase(store)
    await createServices(store, { serverKey: 'bench', publicUrl: 'https://localhost' }).settings.set('batchMaxUploadBytes', String(64 * 1024 * 1024 - 1))
  } finally {
    await store.close()
  }
}

async function measureDialect(dialect: 'sqlite' | 'postgres', work: string, tls: { cert: string; key: string }): Promise<Row> {
  const database = dialect === 'postgres' ? await createDatabase('bulwark_batch_bench') : undefined
  const url = database?.url ?? `sqlite:${join(work, dialect, 'bulwark.db')}`
  const token = generateToken()
  try {
    await prepare(url)
    const port = await freePort()
    const env: NodeJS.ProcessEnv = {
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BULWARK_'))),
      BULWARK_DATA_DIR: join(work, dialect), BULWARK_PORT: String(port), BULWARK_HOST: '127.0.0.1', BULWARK_TLS_CERT: tls.cert, BULWARK_TLS_KEY: tls.key,
      BULWARK_LOG_LEVEL: LOG_LEVEL, BULWARK_ADMIN_ACCESS_ID: generateAccessId(), BULWARK_ADMIN_SECRET_KEY: generateSecretKey(), BULWARK_ADMIN_TOKEN: token,
      BULWARK_ORGANIZATION: ORGANIZATION, BULWARK_DATABASE_URL: url,
    }
    const server = await startServer('src/main.ts', env, join(work, `bulwark-${dialect}.log`))
    let api
    try {
      api = await importThroughApi(port, token)
    } finally {
      await server.stop()
    }
    const jobs = await jobTimes(url)
    const rawUrl = database ? (await createDatabase('bulwark_batch_raw')) : undefined
    try {
      const raw = await measureRawInserts(rawUrl?.url ?? `sqlite:${join(work, `${dialect}-raw`, 'raw.db')}`, TOTAL, benchIndicator)
      const indicatorsPerSecond = Math.round(TOTAL / api.seconds)
      const rawIndicatorsPerSecond = Math.round(TOTAL / raw.seconds)
      return {
        dialect, indicators: TOTAL, jobs: api.jobs, seconds: round(api.seconds), indicatorsPerSecond, rawSeconds: round(raw.seconds), rawIndicatorsPerSecond,
        ratio: round(indicatorsPerSecond / rawIndicatorsPerSecond), errors: api.errors, jobSeconds: jobs,
      }
    } finally {
      await rawUrl?.drop()
    }
  } finally {
    await database?.drop()
  }
}

const round = (n: number) => Math.round(n * 100) / 100

export async function run(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bulwark-batch-bench-'))
  const rows: Row[] = []
  try {
    await loadTlsMaterial({ dataDir: work })
    const tls = { cert: join(work, 'tls', 'self-signed.crt'), key: join(work, 'tls', 'self-signed.key') }
    for (const dialect of DIALECTS) rows.push(await measureDialect(dialect, work, tls))
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
  const header = ['database', 'indicators', 'jobs', 'API s', 'API ind/s', 'raw s', 'raw ind/s', 'ratio', 'errors']
  const body = rows.map((r) => [r.dialect, String(r.indicators), String(r.jobs), String(r.seconds), String(r.indicatorsPerSecond), String(r.rawSeconds),
    String(r.rawIndicatorsPerSecond), r.ratio.toFixed(2), String(r.errors)])
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)))
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ')
  console.log(`\nbatch benchmark: ${TOTAL} Indicators (Host, Address, EmailAddress, URL, File; one tag and one attribute each) via /v2/batch`)
  console.log(line(header))
  console.log(widths.map((w) => '-'.repeat(w)).join('  '))
  for (const b of body) console.log(line(b))
  for (const r of rows) console.log(`${r.dialect}: seconds per job from claim to Completed: ${r.jobSeconds.join(', ')}`)
  const report = {
    benchmark: 'batch', date: new Date().toISOString(), node: process.version, cpus: cpus().length, cpuModel: cpus()[0]?.model,
    indicators: TOTAL, perJob: PER_JOB, target: 'API Indicators/s >= 0.25 x raw driver insert rate', results: rows,
  }
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true })
  writeFileSync(join(ROOT, 'bench', 'results', 'batch.json'), `${JSON.stringify(report, null, 2)}\n`)
  console.log('\nwritten: bench/results/batch.json')
  const broken = rows.filter((r) => r.errors > 0)
  if (broken.length) throw new Error(`Batch errors in: ${broken.map((r) => r.dialect).join(', ')}`)
}

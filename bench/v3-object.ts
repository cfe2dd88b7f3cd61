/**
 * What a GET of one v3 object costs: requests/s and server CPU per request of
 * `GET /v3/<type>/{id}` on every v3 object endpoint, token-authenticated, under 50 connections,
 * against the bare Fastify HTTPS route of bench/auth.ts measured in the same rounds. The
 * objects are created through the v3 API first (one of each, with a tag and an attribute where
 * the kind takes them). Writes bench/results/v3-object.json.
 *
 * Each round also measures a minimal server (bench/minimal-read-server.ts): a Fastify route that
 * checks the same token and reads the same Indicator's row from the same database, and nothing
 * else. Against the bare route it shows what an authenticated one-row read costs on this stack;
 * against GET /v3/indicators/{id}, whether Bulwark's own work adds to that.
 *
 * Targets: GET /v3/indicators/{id} ≥ 0.5× the bare route; every other endpoint within 2× of
 * the Indicator's cost (CPU µs per request, the figure that holds while the machine is shared).
 *
 * Environment: BENCH_DB=sqlite|postgres (default sqlite), BENCH_V3_ONLY=indicators,tags (a subset
 * of the endpoints), BENCH_CPU_PROF=1 (V8 CPU profile of the server in
 * bench/results/profiles/v3-object-<db>), BENCH_CONNECTIONS, BENCH_ROUNDS (default 5),
 * BENCH_DURATION (seconds per run, default 4), BENCH_WARMUP, BENCH_LOG_LEVEL, BENCH_POSTGRES_URL.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { request } from 'node:https'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { generateAccessId, generateSecretKey, generateToken } from '../src/domain/access/credentials.js'
import { loadTlsMaterial } from '../src/protocols/http/tls.js'
import { LOAD, type LoadFigures, type RoundsSummary, cleanEnv, measureFor, ratio, summariseRounds } from './lib/load.js'
import { createDatabase } from './lib/postgres.js'
import { type ChildServer, ROOT, freePort, startServer } from './lib/processes.js'
import { benchDialects } from './lib/dataset.js'

const DIALECTS = benchDialects('sqlite')
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'warn'
const CPU_PROFILE = process.env.BENCH_CPU_PROF === '1'
const ONLY = process.env.BENCH_V3_ONLY?.split(',').map((s) => s.trim())

interface Row extends RoundsSummary {
  /** This row's CPU per request ÷ GET /v3/indicators/{id}'s (target ≤ 2). */
  cpuVsIndicator?: number
  /** GET /v3/indicators/{id} only: median over the rounds of its requests/s ÷ the minimal server's in the same round. */
  ratioToMinimal?: number
}

type Api = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>

/** How the benchmark gets one object of an endpoint: created through the API, or the first one listed. */
interface Subject {
  path: string
  make: (api: Api, made: Record<string, number>) => Promise<number>
}

const created = (path: string, body: (made: Record<string, number>) => unknown): Subject => ({
  path,
  make: async (api, made) => {
    const res = await api('POST', `/api/v3/${path}`, body(made))
    if (res.status !== 201 && res.status !== 200)
      throw new Error(`POST /v3/${path} answered ${res.status}: ${JSON.stringify(res.body)}`)
    return res.body.data.id as number
  },
})

const firstListed = (path: string): Subject => ({
  path,
  make: async (api) => {
    const res = await api('GET', `/api/v3/${path}?resultLimit=1`)
    const id = res.body?.data?.[0]?.id
    if (res.status !== 200 || typeof id !== 'number')
      throw new Error(`GET /v3/${path} listed nothing: ${JSON.stringify(res.body)}`)
    return id
  },
})

const TAGGED = { tags: { data: [{ name: 'bench-tag' }] } }
const ATTRIBUTED = { attributes: { data: [{ type: 'Description', value: 'bench description' }] } }

/** In creation order: later ones use the ids of earlier ones. */
const SUBJECTS: Subject[] = [
  created('indicators', () => ({
    type: 'Address',
    ip: '192.0.2.10',
    rating: 3,
    confidence: 60,
    ...TAGGED,
    ...ATTRIBUTED,
  })),
  firstListed('tags'),
  firstListed('securityLabels'),
  firstListed('attributeTypes'),
  created('groups', () => ({ type: 'Adversary', name: 'bench adversary', ...TAGGED, ...ATTRIBUTED })),
  created('victims', () => ({ name: 'bench victim', ...TAGGED, ...ATTRIBUTED })),
  created('victimAssets', (m) => ({ victimId: m.victims, type: 'EmailAddress', address: 'victim@example.com' })),
  created('tasks', () => ({ name: 'bench task', ...TAGGED })),
  created('cases', () => ({ name: 'bench case', status: 'Open', severity: 'Low', ...TAGGED, ...ATTRIBUTED })),
  created('artifacts', (m) => ({ caseId: m.cases, type: 'Email Address', summary: 'artifact@example.com' })),
  firstListed('artifactTypes'),
  created('notes', (m) => ({ caseId: m.cases, text: 'bench note' })),
  created('intelRequirements', () => ({
    uniqueId: 'BENCH-1',
    subtype: { id: 1 },
    requirementText: 'bench requirement',
    keywordSections: [{ compareValue: 'includes', keywords: [{ value: 'bench' }], sectionNumber: 0 }],
    ...TAGGED,
  })),
  firstListed('indicatorAttributes'),
  firstListed('groupAttributes'),
  firstListed('victimAttributes'),
  firstListed('caseAttributes'),
  firstListed('security/owners'),
  firstListed('security/users'),
]

function apiFor(port: number, token: string): Api {
  return (method, path, body) =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body)
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path,
          method,
          rejectUnauthorized: false,
          headers: {
            authorization: `TC-Token ${token}`,
            ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = []
          res
            .on('data', (c: Buffer) => chunks.push(c))
            .on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8')
              let parsed: unknown = text
              try {
                parsed = JSON.parse(text)
              } catch {
                /* left as text for the error message */
              }
              resolve({ status: res.statusCode ?? 0, body: parsed })
            })
        },
      )
      req.on('error', reject)
      req.end(payload)
    })
}

export async function run(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bulwark-bench-'))
  const rows: Row[] = []
  try {
    await loadTlsMaterial({ dataDir: work })
    const tls = { cert: join(work, 'tls', 'self-signed.crt'), key: join(work, 'tls', 'self-signed.key') }
    const barePort = await freePort()
    const bare = await startServer(
      'bench/bare-server.ts',
      cleanEnv({ BENCH_PORT: String(barePort), BENCH_TLS_CERT: tls.cert, BENCH_TLS_KEY: tls.key }),
      join(work, 'bare.log'),
    )
    try {
      for (const dialect of DIALECTS) rows.push(...(await measureDialect(dialect, work, tls, bare)))
    } finally {
      await bare.stop()
    }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }

  printTable(rows)
  const broken = rows.filter((r) => r.non2xx > 0 || r.errors > 0)
  const report = {
    benchmark: 'v3-object',
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    connections: LOAD.connections,
    rounds: LOAD.rounds,
    durationSeconds: LOAD.durationSeconds,
    warmupSeconds: LOAD.warmupSeconds,
    bulwarkLogLevel: LOG_LEVEL,
    target:
      "GET /v3/indicators/{id} requests/s >= 0.5 x bare (median of per-round ratios); every endpoint CPU/request <= 2 x the Indicator's",
    results: rows,
  }
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true })
  writeFileSync(join(ROOT, 'bench', 'results', 'v3-object.json'), `${JSON.stringify(report, null, 2)}\n`)
  console.log('\nwritten: bench/results/v3-object.json')
  if (broken.length) throw new Error(`Non-2xx responses or errors in: ${broken.map((r) => r.target).join(', ')}`)
}

/**
 * Like bench/auth.ts the targets take turns in short runs, several rounds, each compared with
 * the bare run at the start of its round, so a drift of the shared machine hits both sides.
 */
async function measureDialect(
  dialect: 'sqlite' | 'postgres',
  work: string,
  tls: { cert: string; key: string },
  bare: ChildServer,
): Promise<Row[]> {
  const database = dialect === 'postgres' ? await createDatabase('bulwark_bench_v3') : undefined
  const port = await freePort()
  const token = generateToken()
  const env = cleanEnv({
    BULWARK_DATA_DIR: join(work, dialect),
    BULWARK_PORT: String(port),
    BULWARK_HOST: '127.0.0.1',
    BULWARK_TLS_CERT: tls.cert,
    BULWARK_TLS_KEY: tls.key,
    BULWARK_LOG_LEVEL: LOG_LEVEL,
    BULWARK_ADMIN_ACCESS_ID: generateAccessId(),
    BULWARK_ADMIN_SECRET_KEY: generateSecretKey(),
    BULWARK_ADMIN_TOKEN: token,
    ...(database ? { BULWARK_DATABASE_URL: database.url } : {}),
  })
  const profileDir = join(ROOT, 'bench', 'results', 'profiles', `v3-object-${dialect}`)
  if (CPU_PROFILE) mkdirSync(profileDir, { recursive: true })
  const server = await startServer(
    'src/main.ts',
    env,
    join(work, `bulwark-${dialect}.log`),
    CPU_PROFILE ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [],
  )
  let minimal: ChildServer | undefined
  try {
    const api = apiFor(port, token)
    const made: Record<string, number> = {}
    for (const subject of SUBJECTS) made[subject.path] = await subject.make(api, made)
    const chosen = SUBJECTS.filter((s) => s.path === 'indicators' || !ONLY || ONLY.includes(s.path))
    const headers = () => ({ authorization: `TC-Token ${token}` })
    const minimalPort = await freePort()
    minimal = await startServer(
      'bench/minimal-read-server.ts',
      cleanEnv({
        BENCH_PORT: String(minimalPort),
        BENCH_TLS_CERT: tls.cert,
        BENCH_TLS_KEY: tls.key,
        BENCH_TOKEN: token,
        BENCH_DATABASE: database ? database.url : `sqlite:${join(work, dialect, 'bulwark.db')}`,
      }),
      join(work, `minimal-${dialect}.log`),
    )
    const targets: {
      name: string
      url: string
      headers?: () => Record<string, string>
      cpu: () => number | undefined
    }[] = [
      {
        name: `bare Fastify HTTPS route (${dialect} round)`,
        url: `https://127.0.0.1:${bare.port}/api/v2/owners`,
        cpu: bare.cpuMicros,
      },
      {
        name: `minimal server: token + one row read (${dialect})`,
        url: `https://127.0.0.1:${minimalPort}/api/v3/indicators/${made.indicators}`,
        headers,
        cpu: minimal.cpuMicros,
      },
      ...chosen.map((s) => ({
        name: `${dialect} GET /v3/${s.path}/{id}`,
        url: `https://127.0.0.1:${port}/api/v3/${s.path}/${made[s.path]}`,
        headers,
        cpu: server.cpuMicros,
      })),
    ]
    for (const t of targets) {
      const res = t.headers
        ? await apiFor(Number(new URL(t.url).port), token)('GET', new URL(t.url).pathname)
        : { status: 200 }
      if (res.status !== 200) throw new Error(`${t.name} answered ${res.status}`)
    }
    if (LOAD.warmupSeconds > 0) for (const t of targets) await measureFor(LOAD.warmupSeconds, t)
    const runs: LoadFigures[][] = targets.map(() => [])
    for (let round = 0; round < LOAD.rounds; round++) {
      for (const [i, t] of targets.entries()) runs[i].push(await measureFor(LOAD.durationSeconds, t, t.cpu))
    }
    const rows: Row[] = targets.map((t, i) => summariseRounds(t.name, runs[i], i === 0 ? undefined : runs[0]))
    const [, , indicator] = rows
    indicator.ratioToMinimal = summariseRounds(indicator.target, runs[2], runs[1]).ratioToBare
    for (const row of rows.slice(2)) {
      if (indicator.serverCpuMicrosPerRequest && row.serverCpuMicrosPerRequest)
        row.cpuVsIndicator = ratio(row.serverCpuMicrosPerRequest, indicator.serverCpuMicrosPerRequest)
    }
    return rows
  } finally {
    await minimal?.stop()
    await server.stop()
    await database?.drop()
  }
}

function printTable(rows: Row[]) {
  const header = [
    'target',
    'req/s',
    'ratio',
    'ratio range',
    'server CPU µs/req',
    'CPU ratio',
    '× Indicator CPU',
    '÷ minimal',
    'avg ms',
    'p99 ms',
    'non-2xx',
  ]
  const fixed = (n: number | undefined) => (n === undefined ? '-' : n.toFixed(2))
  const body = rows.map((r) => [
    r.target,
    String(r.requestsPerSecond),
    fixed(r.ratioToBare),
    r.ratioRange ? r.ratioRange.map(fixed).join('–') : '-',
    String(r.serverCpuMicrosPerRequest ?? '-'),
    fixed(r.cpuRatioToBare),
    fixed(r.cpuVsIndicator),
    fixed(r.ratioToMinimal),
    String(r.latencyMs.average),
    String(r.latencyMs.p99),
    String(r.non2xx),
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)))
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ')
  console.log(
    `\nv3-object benchmark: GET /v3/<type>/{id}, token auth, ${LOAD.connections} connections, ${LOAD.rounds} rounds of ${LOAD.durationSeconds} s per target after ${LOAD.warmupSeconds} s warm-up; medians over the rounds`,
  )
  console.log(line(header))
  console.log(widths.map((w) => '-'.repeat(w)).join('  '))
  for (const b of body) console.log(line(b))
}

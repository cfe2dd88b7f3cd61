/**
 * What authentication costs: requests/s of the real Bulwark server answering an
 * HMAC-signed (and a token) GET /api/v2/owners, against a bare HTTPS Fastify route with the
 * same certificate and body. Each server is its own child process; the load comes from
 * autocannon in this process. Writes bench/results/auth.json.
 *
 * Environment: BENCH_DB=sqlite|postgres (default both), BENCH_LOG_LEVEL (Bulwark's log
 * level, default warn), BENCH_CPU_PROF=1 (write V8 CPU profiles of the Bulwark server),
 * BENCH_CONNECTIONS, BENCH_ROUNDS (default 5), BENCH_DURATION (seconds per run, default 4),
 * BENCH_WARMUP, BENCH_POSTGRES_URL.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { generateAccessId, generateSecretKey, generateToken, signRequest } from '../src/domain/access/credentials.js'
import { loadTlsMaterial } from '../src/protocols/http/tls.js'
import { LOAD, type LoadFigures, type RoundsSummary, cleanEnv, measureFor, ratio, summariseRounds } from './lib/load.js'
import { createDatabase } from './lib/postgres.js'
import { type ChildServer, ROOT, freePort, startServer } from './lib/processes.js'
import { benchDialects } from './lib/dataset.js'

const PATH = '/api/v2/owners'
const DIALECTS = benchDialects('sqlite,postgres')
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'warn'
const CPU_PROFILE = process.env.BENCH_CPU_PROF === '1'

/** One target's figures: medians over the rounds. */
type Row = RoundsSummary

/**
 * Signed just before each load run: the signature holds for 5 minutes, longer than a run,
 * and a fixed header keeps the load generator as cheap as it is for the bare server.
 * The server still verifies it on every request.
 */
function signedHeaders(accessId: string, secretKey: string): Record<string, string> {
  const timestamp = String(Math.floor(Date.now() / 1000))
  return { timestamp, authorization: `TC ${accessId}:${signRequest(secretKey, PATH, 'GET', timestamp)}` }
}

export async function run(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bulwark-bench-'))
  const rows: Row[] = []
  try {
    await loadTlsMaterial({ dataDir: work })
    const cert = join(work, 'tls', 'self-signed.crt')
    const key = join(work, 'tls', 'self-signed.key')
    const admin = { accessId: generateAccessId(), secretKey: generateSecretKey(), token: generateToken() }

    const barePort = await freePort()
    const bare = await startServer(
      'bench/bare-server.ts',
      cleanEnv({ BENCH_PORT: String(barePort), BENCH_TLS_CERT: cert, BENCH_TLS_KEY: key }),
      join(work, 'bare.log'),
    )
    try {
      for (const dialect of DIALECTS) rows.push(...(await measureDialect(dialect, work, { cert, key }, admin, bare)))
    } finally {
      await bare.stop()
    }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }

  const broken = rows.filter((r) => r.non2xx > 0 || r.errors > 0)
  printTable(rows)
  const report = {
    benchmark: 'auth',
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    connections: LOAD.connections,
    rounds: LOAD.rounds,
    durationSeconds: LOAD.durationSeconds,
    warmupSeconds: LOAD.warmupSeconds,
    bulwarkLogLevel: LOG_LEVEL,
    target: 'Bulwark sqlite HMAC requests/s >= 0.5 x bare (median of per-round ratios)',
    results: rows,
  }
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true })
  writeFileSync(join(ROOT, 'bench', 'results', 'auth.json'), `${JSON.stringify(report, null, 2)}\n`)
  console.log('\nwritten: bench/results/auth.json')
  if (broken.length) throw new Error(`Non-2xx responses or errors in: ${broken.map((r) => r.target).join(', ')}`)
}

/**
 * The machine's speed drifts over tens of seconds (it shares a host), so one long run of
 * each server compares different machines. Instead the three targets take turns in short
 * runs, several rounds, and each Bulwark run is compared with the bare run just before it;
 * the report keeps the median of those per-round ratios.
 */
async function measureDialect(
  dialect: 'sqlite' | 'postgres',
  work: string,
  tls: { cert: string; key: string },
  admin: { accessId: string; secretKey: string; token: string },
  bare: ChildServer,
): Promise<Row[]> {
  const database = dialect === 'postgres' ? await createDatabase('bulwark_bench') : undefined
  const port = await freePort()
  const env = cleanEnv({
    BULWARK_DATA_DIR: join(work, dialect),
    BULWARK_PORT: String(port),
    BULWARK_HOST: '127.0.0.1',
    BULWARK_TLS_CERT: tls.cert,
    BULWARK_TLS_KEY: tls.key,
    BULWARK_LOG_LEVEL: LOG_LEVEL,
    BULWARK_ADMIN_ACCESS_ID: admin.accessId,
    BULWARK_ADMIN_SECRET_KEY: admin.secretKey,
    BULWARK_ADMIN_TOKEN: admin.token,
    ...(database ? { BULWARK_DATABASE_URL: database.url } : {}),
  })
  const profileDir = join(ROOT, 'bench', 'results', 'profiles', `auth-${dialect}`)
  if (CPU_PROFILE) mkdirSync(profileDir, { recursive: true })
  const server = await startServer(
    'src/main.ts',
    env,
    join(work, `bulwark-${dialect}.log`),
    CPU_PROFILE ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [],
  )
  try {
    const url = `https://127.0.0.1:${port}${PATH}`
    const targets = [
      {
        name: `bare Fastify HTTPS route (${dialect} round)`,
        url: `https://127.0.0.1:${bare.port}${PATH}`,
        cpu: bare.cpuMicros,
      },
      {
        name: `Bulwark ${dialect}, HMAC signature`,
        url,
        headers: () => signedHeaders(admin.accessId, admin.secretKey),
        cpu: server.cpuMicros,
      },
      {
        name: `Bulwark ${dialect}, API token`,
        url,
        headers: () => ({ authorization: `TC-Token ${admin.token}` }),
        cpu: server.cpuMicros,
      },
    ]
    if (LOAD.warmupSeconds > 0) for (const t of targets) await measureFor(LOAD.warmupSeconds, t)
    const runs: LoadFigures[][] = targets.map(() => [])
    for (let round = 0; round < LOAD.rounds; round++) {
      for (const [i, t] of targets.entries()) runs[i].push(await measureFor(LOAD.durationSeconds, t, t.cpu))
    }
    return targets.map((t, i) => summariseRounds(t.name, runs[i], i === 0 ? undefined : runs[0]))
  } finally {
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
    String(r.latencyMs.average),
    String(r.latencyMs.p99),
    String(r.non2xx),
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)))
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ')
  console.log(
    `\nauth benchmark: GET ${PATH}, ${LOAD.connections} connections, ${LOAD.rounds} rounds of ${LOAD.durationSeconds} s per target after ${LOAD.warmupSeconds} s warm-up; medians over the rounds`,
  )
  console.log(line(header))
  console.log(widths.map((w) => '-'.repeat(w)).join('  '))
  for (const b of body) console.log(line(b))
}

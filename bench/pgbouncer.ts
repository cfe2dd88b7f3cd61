/**
 * What a transaction pooler costs (issue 27 point 1): the same reads from two Bulwark servers on one
 * PostgreSQL database, one connected directly and one through PgBouncer in transaction mode
 * (BULWARK_DB_POOLING=transaction, LISTEN on a direct URL), as docs/scale-out.md sets them up. Targets,
 * token-authenticated under 50 connections: GET /v3/indicators/{id} (one object) and a v3 listing of
 * 100 Indicators (`?resultLimit=100`) over 2,000 made through the API. The two servers take turns in
 * short runs, several rounds, so a drift of the machine hits both. Target: through PgBouncer within
 * 1.5× of direct, i.e. its requests/s at least 1/1.5 of direct's (median of the rounds' ratios).
 * Writes its figures into bench/results/, under the benchmark's name.
 *
 * Environment: BENCH_CONNECTIONS, BENCH_ROUNDS (default 5), BENCH_DURATION (seconds per run, default 4),
 * BENCH_WARMUP, BENCH_POSTGRES_URL, BENCH_PGBOUNCER_POOL (server connections of the bouncer, default 10,
 * Bulwark's own pool size).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { generateAccessId, generateSecretKey, generateToken } from '../src/domain/access/credentials.js'
import { loadTlsMaterial } from '../src/protocols/http/tls.js'
import { startPgBouncer } from '../src/test/pgbouncer.js'
import { call } from './lib/dataset.js'
import { LOAD, type LoadFigures, cleanEnv, measureFor, median, ratio } from './lib/load.js'
import { createDatabase } from './lib/postgres.js'
import { type ChildServer, ROOT, freePort, startServer } from './lib/processes.js'

const INDICATORS = 2_000
const TARGET = 1.5
const POOL = Number(process.env.BENCH_PGBOUNCER_POOL ?? 10)

export async function run(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bulwark-bench-pgbouncer-'))
  const database = await createDatabase('bulwark_bench_pgbouncer')
  const bouncer = await startPgBouncer({ poolMode: 'transaction', poolSize: POOL, target: database.url })
  const servers: ChildServer[] = []
  try {
    await loadTlsMaterial({ dataDir: work })
    const token = generateToken()
    const env = async (name: string, extra: Record<string, string>) =>
      cleanEnv({
        BULWARK_DATA_DIR: join(work, name),
        BULWARK_PORT: String(await freePort()),
        BULWARK_HOST: '127.0.0.1',
        BULWARK_TLS_CERT: join(work, 'tls', 'self-signed.crt'),
        BULWARK_TLS_KEY: join(work, 'tls', 'self-signed.key'),
        BULWARK_LOG_LEVEL: 'warn',
        BULWARK_ADMIN_ACCESS_ID: generateAccessId(),
        BULWARK_ADMIN_SECRET_KEY: generateSecretKey(),
        BULWARK_ADMIN_TOKEN: token,
        ...extra,
      })
    // The direct server starts first: it migrates the database and makes the administrator both use.
    const direct = await startServer(
      'src/main.ts',
      await env('direct', { BULWARK_DATABASE_URL: database.url }),
      join(work, 'direct.log'),
    )
    servers.push(direct)
    const pooled = await startServer(
      'src/main.ts',
      await env('pooled', {
        BULWARK_DATABASE_URL: bouncer.urlFor(database.url),
        BULWARK_DB_POOLING: 'transaction',
        BULWARK_DATABASE_LISTEN_URL: database.url,
      }),
      join(work, 'pooled.log'),
    )
    servers.push(pooled)
    const id = await makeIndicators(direct.port, token)
    const headers = () => ({ authorization: `TC-Token ${token}` })
    const paths = {
      'GET /v3/indicators/{id}': `/api/v3/indicators/${id}`,
      'GET /v3/indicators?resultLimit=100': '/api/v3/indicators?resultLimit=100',
    }
    const rows = []
    for (const [name, path] of Object.entries(paths)) {
      for (const server of servers) {
        const answer = await call(server.port, token, 'GET', path)
        if (answer.status !== 200) throw new Error(`${name} answered ${answer.status}`)
      }
      const target = (server: ChildServer) => ({ url: `https://127.0.0.1:${server.port}${path}`, headers })
      if (LOAD.warmupSeconds > 0) for (const server of servers) await measureFor(LOAD.warmupSeconds, target(server))
      const runs: Record<'direct' | 'pooled', LoadFigures[]> = { direct: [], pooled: [] }
      for (let round = 0; round < LOAD.rounds; round++) {
        runs.direct.push(await measureFor(LOAD.durationSeconds, target(direct), direct.cpuMicros))
        runs.pooled.push(await measureFor(LOAD.durationSeconds, target(pooled), pooled.cpuMicros))
      }
      const failed = [...runs.direct, ...runs.pooled].reduce((n, r) => n + r.non2xx + r.errors, 0)
      if (failed) throw new Error(`${name}: ${failed} answers were not 2xx`)
      const ratios = runs.pooled.map((r, i) => ratio(r.requestsPerSecond, runs.direct[i].requestsPerSecond))
      const summary = (list: LoadFigures[]) => ({
        requestsPerSecond: median(list.map((r) => r.requestsPerSecond)),
        p50Ms: median(list.map((r) => r.latencyMs.p50)),
        p99Ms: median(list.map((r) => r.latencyMs.p99)),
        serverCpuMicrosPerRequest: median(list.map((r) => r.serverCpuMicrosPerRequest ?? 0)),
      })
      const pooledToDirect = median(ratios)
      const row = {
        target: name,
        direct: summary(runs.direct),
        pooled: summary(runs.pooled),
        pooledToDirect,
        ratios,
        slowdown: ratio(1, pooledToDirect),
        met: pooledToDirect >= 1 / TARGET,
      }
      console.log(JSON.stringify(row))
      rows.push(row)
    }
    mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true })
    writeFileSync(
      join(ROOT, 'bench', 'results', 'pgbouncer.json'),
      `${JSON.stringify(
        {
          benchmark: 'pgbouncer',
          date: new Date().toISOString(),
          machine: { cpus: cpus().length, load: loadavg().map((n) => Math.round(n * 100) / 100) },
          load: LOAD,
          bouncerPoolSize: POOL,
          target: `through PgBouncer (transaction mode) within ${TARGET}x of direct: requests/s ratio >= ${ratio(1, TARGET)}`,
          rows,
        },
        null,
        2,
      )}\n`,
    )
    console.log('written: bench/results/pgbouncer.json')
  } finally {
    for (const server of servers.reverse()) await server.stop()
    await bouncer.stop()
    await database.drop()
    rmSync(work, { recursive: true, force: true })
  }
}

/** INDICATORS Hosts through one v2 batch job; the id of one of them. */
async function makeIndicators(port: number, token: string): Promise<number> {
  const owner = (await call(port, token, 'GET', '/api/v2/owners/mine')).json.data.owner.name as string
  const job = await call(
    port,
    token,
    'POST',
    '/api/v2/batch',
    JSON.stringify({ owner, action: 'Create', haltOnError: false, attributeWriteType: 'Append' }),
  )
  if (job.status !== 201) throw new Error(`POST /v2/batch: ${job.status}`)
  const batchId = job.json.data.batchId as number
  const items = Array.from({ length: INDICATORS }, (_, i) => ({
    type: 'Host',
    summary: `pooled-${i}.bench.example`,
    rating: i % 5,
  }))
  const uploaded = await call(
    port,
    token,
    'POST',
    `/api/v2/batch/${batchId}`,
    JSON.stringify({ indicator: items }),
    'application/octet-stream',
  )
  if (uploaded.status !== 202) throw new Error(`POST /v2/batch/${batchId}: ${uploaded.status}`)
  for (;;) {
    const status = await call(port, token, 'GET', `/api/v2/batch/${batchId}`)
    const { status: state, successCount } = status.json.data.batchStatus
    if (state === 'Completed') {
      if (successCount !== INDICATORS)
        throw new Error(
          `the batch job stored ${successCount} of ${INDICATORS} Indicators: ${JSON.stringify(status.json)}`,
        )
      break
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  const listed = await call(port, token, 'GET', '/api/v3/indicators?resultLimit=1')
  if (listed.status !== 200) throw new Error(`GET /v3/indicators: ${listed.status} ${JSON.stringify(listed.json)}`)
  return listed.json.data[0].id as number
}

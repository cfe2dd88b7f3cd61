/**
 * How long a start takes: from spawning the server process to its first successful HTTPS answer
 * (GET /api/health → 200), the median of several starts, and the server's resident memory at
 * that moment. The server runs as `npm start` runs it (node scripts/start.mjs: compiled
 * JavaScript from dist/), on an empty SQLite database and on a dataset loaded through the v2
 * batch API (bench/lib/dataset.ts). Baselines in the same run: plain Node answering HTTPS with
 * the same certificate (bench/bare-start.mjs), and the server run from source through tsx, as
 * `npm start` did before. Writes bench/results/start.json.
 *
 * Target: first answer < 1 s after spawn with 1,000,000 Indicators loaded.
 *
 * Environment: BENCH_START_RUNS (starts per target, default 7), BENCH_INDICATORS (the dataset's
 * size, default 1,000,000; 0 skips it), BENCH_DB (the dataset's databases, default sqlite; sqlite,postgres
 * for both: PostgreSQL's start also owes the visibility pass of a stopped load, store/engine/planner-statistics.ts),
 * BENCH_LOG_LEVEL, BENCH_POSTGRES_URL.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { request } from 'node:https'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { generateAccessId, generateSecretKey, generateToken } from '../src/domain/access/credentials.js'
import { loadTlsMaterial } from '../src/protocols/http/tls.js'
import { ensureBuilt } from '../scripts/build.mjs'
import { benchDialects, defaultIndicators, startDatasetServer } from './lib/dataset.js'
import { median } from './lib/load.js'
import { ROOT, freePort, START_NODE_FLAGS } from './lib/processes.js'

const RUNS = Number(process.env.BENCH_START_RUNS ?? 7)
const DIALECTS = benchDialects('sqlite')
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'warn'

interface Start {
  /** Spawn to the first 200 from GET /api/health, in ms. */
  firstAnswerMs: number
  /** CPU time (user + system, all threads) the server used up to its first answer, in ms: what the start costs on a machine shared with other work. */
  cpuMs: number
  /** VmRSS of the server process at its first answer, in MB. */
  rssMb: number
}

interface Row {
  target: string
  medianMs: number
  minMs: number
  maxMs: number
  cpuMs: number
  rssMb: number
  /** This target's median ÷ plain Node's, in the same run. */
  ratioToBareNode?: number
  /** The same for CPU time. */
  cpuRatioToBareNode?: number
  starts: Start[]
}

interface Target {
  name: string
  /** Node arguments: the script and whatever precedes it. */
  args: string[]
  /** A fresh environment for each start (a first start gets a new data directory). */
  env: () => NodeJS.ProcessEnv
}

function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BULWARK_'))), ...extra }
}

function rssMb(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Math.round(Number(status.match(/VmRSS:\s+(\d+)/)?.[1] ?? 0) / 1024)
}

/** utime + stime from /proc/<pid>/stat, in clock ticks of 10 ms. */
function cpuMs(pid: number | undefined): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}

function healthy(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/api/health', method: 'GET', rejectUnauthorized: false, timeout: 2000 },
      (res) => {
        res.resume()
        resolve(res.statusCode === 200)
      },
    )
    req
      .on('error', () => resolve(false))
      .on('timeout', () => {
        req.destroy()
        resolve(false)
      })
    req.end()
  })
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve()
    child.once('exit', () => resolve())
    child.kill('SIGTERM')
  })
}

/** One start: spawn, poll every 5 ms until an answer, read the memory, stop. */
async function startOnce(target: Target, port: number, logFile: string): Promise<Start> {
  const env = { ...target.env(), BULWARK_PORT: String(port) }
  const began = performance.now()
  const child = spawn(process.execPath, target.args, { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr!.on('data', (chunk) => {
    stderr += chunk
  })
  try {
    for (;;) {
      if (child.exitCode !== null)
        throw new Error(`${target.name} exited with ${child.exitCode}: ${stderr.slice(-2000)}`)
      if (await healthy(port)) break
      if (performance.now() - began > 60_000) throw new Error(`${target.name} did not answer within 60 s`)
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    const firstAnswerMs = Math.round(performance.now() - began)
    return { firstAnswerMs, cpuMs: cpuMs(child.pid), rssMb: rssMb(child.pid) }
  } finally {
    await stop(child)
    writeFileSync(logFile, stderr, { flag: 'a' })
  }
}

function summarise(target: string, starts: Start[]): Row {
  const times = starts.map((s) => s.firstAnswerMs)
  return {
    target,
    medianMs: median(times),
    minMs: Math.min(...times),
    maxMs: Math.max(...times),
    cpuMs: median(starts.map((s) => s.cpuMs)),
    rssMb: median(starts.map((s) => s.rssMb)),
    starts,
  }
}

export async function run(): Promise<void> {
  ensureBuilt()
  const work = mkdtempSync(join(tmpdir(), 'bulwark-bench-start-'))
  const rows: Row[] = []
  let datasetIndicators = 0
  try {
    await loadTlsMaterial({ dataDir: work })
    const tls = {
      BULWARK_TLS_CERT: join(work, 'tls', 'self-signed.crt'),
      BULWARK_TLS_KEY: join(work, 'tls', 'self-signed.key'),
    }
    const admin = {
      BULWARK_ADMIN_ACCESS_ID: generateAccessId(),
      BULWARK_ADMIN_SECRET_KEY: generateSecretKey(),
      BULWARK_ADMIN_TOKEN: generateToken(),
    }
    const base = { ...tls, ...admin, BULWARK_HOST: '127.0.0.1', BULWARK_LOG_LEVEL: LOG_LEVEL }
    const emptyDir = join(work, 'empty')
    let fresh = 0
    const compiled = [...START_NODE_FLAGS, join(ROOT, 'scripts', 'start.mjs')]
    const targets: Target[] = [
      { name: 'plain Node HTTPS (baseline)', args: [join(ROOT, 'bench', 'bare-start.mjs')], env: () => cleanEnv(base) },
      {
        name: 'npm start, first start (new data directory)',
        args: compiled,
        env: () => cleanEnv({ ...base, BULWARK_DATA_DIR: join(work, `first-${++fresh}`) }),
      },
      {
        name: 'npm start, empty database',
        args: compiled,
        env: () => cleanEnv({ ...base, BULWARK_DATA_DIR: emptyDir }),
      },
      {
        name: 'from source through tsx, empty database',
        args: ['--import', 'tsx', join(ROOT, 'src', 'main.ts')],
        env: () => cleanEnv({ ...base, BULWARK_DATA_DIR: emptyDir }),
      },
    ]
    const port = await freePort()
    // The empty database exists before the timed restarts: a first start of its own.
    await startOnce(targets[2], port, join(work, 'start.log'))
    for (const target of targets) rows.push(await measure(target, port, work))

    datasetIndicators = defaultIndicators()
    for (const dialect of datasetIndicators > 0 ? DIALECTS : []) {
      const ds = await startDatasetServer({ dialect, indicators: datasetIndicators }, work)
      try {
        await ds.server.stop()
        const env = () => ({ ...ds.env, BULWARK_LOG_LEVEL: LOG_LEVEL })
        const label = `${datasetIndicators.toLocaleString('en')} Indicators${dialect === 'sqlite' ? '' : ` (${dialect})`}`
        rows.push(await measure({ name: `npm start, ${label}`, args: compiled, env }, ds.port, work))
        if (dialect === 'sqlite')
          rows.push(
            await measure(
              {
                name: `from source through tsx, ${label}`,
                args: ['--import', 'tsx', join(ROOT, 'src', 'main.ts')],
                env,
              },
              ds.port,
              work,
            ),
          )
      } finally {
        await ds.close()
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }

  const ratio = (value: number, base: number) => Math.round((value / base) * 100) / 100
  for (const row of rows.slice(1)) {
    row.ratioToBareNode = ratio(row.medianMs, rows[0].medianMs)
    row.cpuRatioToBareNode = ratio(row.cpuMs, rows[0].cpuMs)
  }
  printTable(rows)
  const report = {
    benchmark: 'start',
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    runs: RUNS,
    datasetIndicators,
    target: 'npm start: first HTTPS answer < 1000 ms after spawn with 1,000,000 Indicators',
    databases: DIALECTS,
    results: rows,
  }
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true })
  writeFileSync(join(ROOT, 'bench', 'results', 'start.json'), `${JSON.stringify(report, null, 2)}\n`)
  console.log('\nwritten: bench/results/start.json')
}

/** Starts of one target, one after another (a warm-up start first, so the file cache is warm for every target alike). */
async function measure(target: Target, port: number, work: string): Promise<Row> {
  const log = join(work, 'start.log')
  await startOnce(target, port, log)
  const starts: Start[] = []
  for (let i = 0; i < RUNS; i++) starts.push(await startOnce(target, port, log))
  return summarise(target.name, starts)
}

function printTable(rows: Row[]) {
  const header = ['target', 'median ms', 'min ms', 'max ms', '× plain Node', 'CPU ms', 'CPU × plain Node', 'RSS MB']
  const body = rows.map((r) => [
    r.target,
    String(r.medianMs),
    String(r.minMs),
    String(r.maxMs),
    r.ratioToBareNode?.toFixed(2) ?? '-',
    String(r.cpuMs),
    r.cpuRatioToBareNode?.toFixed(2) ?? '-',
    String(r.rssMb),
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)))
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ')
  console.log(
    `\nstart benchmark: spawn → first 200 from GET /api/health over HTTPS, SQLite unless named, ${RUNS} starts per target (after one warm-up start); CPU time and RSS of the server at its first answer`,
  )
  console.log(line(header))
  console.log(widths.map((w) => '-'.repeat(w)).join('  '))
  for (const b of body) console.log(line(b))
}

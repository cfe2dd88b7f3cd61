/**
 * An outbound list read whole, as a firewall reads its external list: the realistic dataset of
 * BENCH_INDICATORS Indicators (default 1,000,000; bench/lib/dataset.ts, loaded through the v2 batch
 * API and cached between runs), a list of every active Indicator (`tql` empty), fetched as text from
 * a Bulwark child process over HTTPS with a token. Reports lines per second, time to the first byte,
 * the server's largest resident set size while streaming (sampled every 20 ms), and the time of a
 * conditional GET answered 304. Baseline in the same run: the same number of bytes streamed by a bare
 * Fastify HTTPS server from memory (bench/bare-stream-server.ts), over the same kind of connection;
 * its lines per second are the list's lines over its time. Writes bench/results/lists.json.
 *
 * Targets (issue 24, point 6): ≥ 200,000 lines/s and RSS < 256 MB while serving.
 *
 * Environment: BENCH_DB=sqlite|postgres (default sqlite), BENCH_INDICATORS, BENCH_POSTGRES_URL.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { Agent, request } from 'node:https'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { isoNow } from '../src/core/time.js'
import { addOutboundList } from '../src/domain/lists/lists.js'
import { openStore } from '../src/store/connect.js'
import { defaultIndicators, rssMb, startDatasetServer, benchDialects } from './lib/dataset.js'
import { ROOT, freePort, startServer } from './lib/processes.js'

const DIALECTS = benchDialects('sqlite')
const TOTAL = defaultIndicators()
const LIST = 'bench-all'
const TARGET_LINES_PER_SECOND = 200_000
const TARGET_RSS_MB = 256

const agent = new Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false })

interface Fetch {
  status: number
  lines: number
  bytes: number
  seconds: number
  firstByteMs: number
  etag?: string
}

/** One GET or POST, counting lines and bytes as they arrive and keeping none of them. */
function fetchCounting(port: number, method: string, path: string, headers: Record<string, string>): Promise<Fetch> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    let firstByteMs = 0
    const req = request({ host: '127.0.0.1', port, path, method, agent, headers }, (res) => {
      let lines = 0
      let bytes = 0
      res
        .on('data', (chunk: Buffer) => {
          if (bytes === 0) firstByteMs = performance.now() - started
          bytes += chunk.length
          for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++
        })
        .on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            lines,
            bytes,
            seconds: (performance.now() - started) / 1000,
            firstByteMs,
            etag: res.headers.etag,
          }),
        )
        .on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

interface Row {
  dialect: string
  indicators: number
  loadSeconds: number
  loadErrors: number
  lines: number
  bytes: number
  seconds: number
  linesPerSecond: number
  firstByteMs: number
  baselineLinesPerSecond: number
  ratioToBaseline: number
  notModifiedMs: number
  idleRssMB: number
  maxRssMB: number
}

async function measure(dialect: 'sqlite' | 'postgres', work: string): Promise<Row> {
  const ds = await startDatasetServer({ dialect, shape: 'realistic', indicators: TOTAL }, work, {
    env: { BULWARK_BATCH_WORKER: 'off' },
  })
  try {
    const store = openStore(ds.databaseUrl)
    try {
      await addOutboundList(store, ds.url, { name: LIST, tql: '' }, null, isoNow())
    } finally {
      await store.close()
    }
    const headers = { authorization: `TC-Token ${ds.credentials.token}` }
    const path = `/api/v3/lists/${LIST}/values.txt`
    // The first request pays for the TLS handshake and the credential look-up; neither is streaming.
    const warm = await fetchCounting(ds.port, 'GET', `${path}?type=Mutex`, headers)
    if (warm.status !== 200) throw new Error(`warm-up: ${warm.status}`)
    const idleRss = rssMb(ds.pid)
    let maxRss = idleRss
    const sampler = setInterval(() => {
      maxRss = Math.max(maxRss, rssMb(ds.pid))
    }, 20)
    let whole: Fetch
    try {
      whole = await fetchCounting(ds.port, 'GET', path, headers)
    } finally {
      clearInterval(sampler)
    }
    maxRss = Math.max(maxRss, rssMb(ds.pid))
    if (whole.status !== 200) throw new Error(`${path}: ${whole.status}`)
    const unchanged = await fetchCounting(ds.port, 'GET', path, { ...headers, 'if-none-match': whole.etag ?? '' })
    if (unchanged.status !== 304) throw new Error(`${path} with If-None-Match: ${unchanged.status}, not 304`)
    const baseline = await streamBaseline(work, ds.tls, whole.bytes)
    const linesPerSecond = Math.round(whole.lines / whole.seconds)
    const baselineLinesPerSecond = Math.round(whole.lines / baseline.seconds)
    return {
      dialect,
      indicators: TOTAL,
      loadSeconds: round(ds.manifest.load.seconds),
      loadErrors: ds.manifest.load.errors,
      lines: whole.lines,
      bytes: whole.bytes,
      seconds: round(whole.seconds),
      linesPerSecond,
      firstByteMs: round(whole.firstByteMs),
      baselineLinesPerSecond,
      ratioToBaseline: round(linesPerSecond / baselineLinesPerSecond),
      notModifiedMs: round(unchanged.seconds * 1000),
      idleRssMB: idleRss,
      maxRssMB: maxRss,
    }
  } finally {
    await ds.close()
  }
}

/** The same bytes from the bare streaming server, after one warm-up request for its TLS handshake. */
async function streamBaseline(work: string, tls: { cert: string; key: string }, bytes: number): Promise<Fetch> {
  const port = await freePort()
  const bare = await startServer(
    'bench/bare-stream-server.ts',
    { ...process.env, BENCH_PORT: String(port), BENCH_TLS_CERT: tls.cert, BENCH_TLS_KEY: tls.key },
    join(work, 'bare.log'),
  )
  try {
    await fetchCounting(port, 'POST', '/stream?n=1', {})
    const streamed = await fetchCounting(port, 'POST', `/stream?n=${bytes}`, {})
    if (streamed.bytes !== bytes) throw new Error(`baseline streamed ${streamed.bytes} bytes, not ${bytes}`)
    return streamed
  } finally {
    await bare.stop()
  }
}

const round = (n: number) => Math.round(n * 100) / 100

export async function run(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bulwark-lists-bench-'))
  const rows: Row[] = []
  try {
    for (const dialect of DIALECTS) rows.push(await measure(dialect, work))
  } finally {
    agent.destroy()
    rmSync(work, { recursive: true, force: true })
  }
  console.log(`\nlists benchmark: a list of every active Indicator of ${TOTAL} (realistic dataset), read whole as text`)
  const header = [
    'database',
    'lines',
    'MB',
    'seconds',
    'lines/s',
    'baseline/s',
    'ratio',
    'first byte ms',
    '304 ms',
    'max RSS MB',
  ]
  const body = rows.map((r) => [
    r.dialect,
    String(r.lines),
    String(round(r.bytes / 1024 / 1024)),
    String(r.seconds),
    String(r.linesPerSecond),
    String(r.baselineLinesPerSecond),
    r.ratioToBaseline.toFixed(2),
    String(r.firstByteMs),
    String(r.notModifiedMs),
    String(r.maxRssMB),
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)))
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')
  console.log(line(header))
  console.log(widths.map((w) => '-'.repeat(w)).join('  '))
  for (const b of body) console.log(line(b))
  for (const r of rows) {
    const verdict = [
      r.linesPerSecond >= TARGET_LINES_PER_SECOND ? 'lines/s on target' : `lines/s BELOW ${TARGET_LINES_PER_SECOND}`,
      r.maxRssMB < TARGET_RSS_MB ? 'RSS on target' : `RSS ABOVE ${TARGET_RSS_MB} MB`,
    ]
    console.log(
      `${r.dialect}: server RSS ${r.idleRssMB} MB before, at most ${r.maxRssMB} MB while streaming; ${verdict.join(', ')}`,
    )
  }
  const report = {
    benchmark: 'lists',
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    indicators: TOTAL,
    targets: `lines/s >= ${TARGET_LINES_PER_SECOND}; server RSS < ${TARGET_RSS_MB} MB while streaming`,
    results: rows,
  }
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true })
  writeFileSync(join(ROOT, 'bench', 'results', 'lists.json'), `${JSON.stringify(report, null, 2)}\n`)
  console.log('\nwritten: bench/results/lists.json')
  // Every Indicator the loader writes is active and stands for one line at least (a File for one per hash).
  const broken = rows.filter((r) => r.loadErrors > 0 || r.lines < r.indicators)
  if (broken.length) throw new Error(`Incomplete load or list in: ${broken.map((r) => r.dialect).join(', ')}`)
}

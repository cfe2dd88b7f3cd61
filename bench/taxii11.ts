/**
 * TAXII 1.1 poll throughput: 100,000 Indicators loaded through the v2 Batch API at default
 * settings into one Organization (bench/lib/dataset.ts, cached between runs), then polled by a TAXII account over the 24-hour window
 * that holds them, Poll_Request then Poll_Fulfillment to the last result part. Measured per
 * round: Indicators per second, time to first byte of the Poll_Response, bytes; the server's
 * peak RSS (VmHWM of a server started fresh on the loaded database, so the import does not count).
 * Baseline in the same run: bench/bare-stream-server.ts streaming the same byte count over
 * the same HTTPS stack, in turns with the Bulwark runs. Writes bench/results/taxii11.json.
 *
 * Environment: BENCH_DB=sqlite|postgres (default both), BENCH_TAXII_INDICATORS (default
 * 100000), BENCH_ROUNDS (default 3), BENCH_LOG_LEVEL (default warn), BENCH_CPU_PROF (a folder: profile the
 * polled server there).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { Agent, request } from 'node:https'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAccount } from '../src/domain/access/accounts.js'
import { openStore } from '../src/store/connect.js'
import { startDatasetServer, benchDialects } from './lib/dataset.js'
import { type ChildServer, ROOT, freePort, startServer } from './lib/processes.js'

const DIALECTS = benchDialects('sqlite,postgres')
const TOTAL = Number(process.env.BENCH_TAXII_INDICATORS ?? 100_000)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
/** BENCH_CPU_PROF=<dir>: profile the polled server (bench/profile-summary.ts reads the file). */
const CPU_PROFILE_DIR = process.env.BENCH_CPU_PROF
/** The dataset's one owner (bench/lib/dataset.ts). */
const ORGANIZATION = 'Bench Organization'
const TAXII_USER = 'bench-taxii'
const TAXII_PASSWORD = 'bench-taxii-password-1'
const NS = 'http://taxii.mitre.org/messages/taxii_xml_binding-1.1'
const HEADERS = {
  'content-type': 'application/xml',
  accept: 'application/xml',
  'x-taxii-content-type': 'urn:taxii.mitre.org:message:xml:1.1',
  'x-taxii-accept': 'urn:taxii.mitre.org:message:xml:1.1',
  'x-taxii-services': 'urn:taxii.mitre.org:services:1.1',
  'x-taxii-protocol': 'urn:taxii.mitre.org:protocol:https:1.0',
  authorization: `Basic ${Buffer.from(`${TAXII_USER}:${TAXII_PASSWORD}`).toString('base64')}`,
}

interface Transfer {
  bytes: number
  indicators: number
  ttfbMs: number
  head: string
}

/** POSTs a body and streams the answer, counting Indicators as they pass (no body is kept beyond its head). */
function post(
  agent: Agent,
  port: number,
  path: string,
  body: string,
  headers: Record<string, string>,
): Promise<Transfer> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent,
        rejectUnauthorized: false,
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let ttfbMs = -1
        let bytes = 0
        let indicators = 0
        let head = ''
        let tail = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => {
          if (ttfbMs < 0) ttfbMs = performance.now() - started
          bytes += Buffer.byteLength(chunk)
          if (head.length < 2048) head += chunk.slice(0, 2048 - head.length)
          const text = tail + chunk
          for (let i = text.indexOf('<stix:Indicator '); i !== -1; i = text.indexOf('<stix:Indicator ', i + 1))
            indicators++
          tail = chunk.length >= 15 ? chunk.slice(-15) : text.slice(-15)
        })
        res.on('end', () =>
          res.statusCode === 200
            ? resolve({ bytes, indicators, ttfbMs, head })
            : reject(new Error(`${path}: HTTP ${res.statusCode} ${head}`)),
        )
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

const attr = (head: string, name: string) => new RegExp(`${name}="([^"]*)"`).exec(head)?.[1]

interface PollRun {
  seconds: number
  indicators: number
  bytes: number
  parts: number
  ttfbMs: number
}

async function pollAll(port: number, begin: string, end: string): Promise<PollRun> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const started = performance.now()
  try {
    const poll = `<taxii_11:Poll_Request xmlns:taxii_11="${NS}" message_id="bench-1" collection_name="${ORGANIZATION}"><taxii_11:Exclusive_Begin_Timestamp>${begin}</taxii_11:Exclusive_Begin_Timestamp><taxii_11:Inclusive_End_Timestamp>${end}</taxii_11:Inclusive_End_Timestamp><taxii_11:Poll_Parameters allow_asynch="false"><taxii_11:Response_Type>FULL</taxii_11:Response_Type></taxii_11:Poll_Parameters></taxii_11:Poll_Request>`
    let part = await post(agent, port, '/api/taxii/poll/', poll, HEADERS)
    const ttfbMs = part.ttfbMs
    let { bytes, indicators } = part
    let parts = 1
    const resultId = attr(part.head, 'result_id')
    while (attr(part.head, 'more') === 'true') {
      parts++
      const fulfillment = `<taxii_11:Poll_Fulfillment xmlns:taxii_11="${NS}" message_id="bench-${parts}" collection_name="${ORGANIZATION}" result_id="${resultId}" result_part_number="${parts}"/>`
      part = await post(agent, port, '/api/taxii/poll/', fulfillment, HEADERS)
      bytes += part.bytes
      indicators += part.indicators
    }
    return { seconds: (performance.now() - started) / 1000, indicators, bytes, parts, ttfbMs }
  } finally {
    agent.destroy()
  }
}

async function streamBaseline(port: number, bytes: number): Promise<{ seconds: number; ttfbMs: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const started = performance.now()
  try {
    const run = await post(agent, port, `/stream?n=${bytes}`, '<x/>', { 'content-type': 'application/xml' })
    if (run.bytes !== bytes) throw new Error(`baseline streamed ${run.bytes} bytes, not ${bytes}`)
    return { seconds: (performance.now() - started) / 1000, ttfbMs: run.ttfbMs }
  } finally {
    agent.destroy()
  }
}

/** VmHWM (the process's peak resident set so far) or VmRSS (now), in MB. */
function rssMb(server: ChildServer, field: 'VmHWM' | 'VmRSS'): number {
  const status = readFileSync(`/proc/${server.child.pid}/status`, 'utf8')
  return Math.round(Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024)
}

/** Samples the server's resident set every 20 ms while `work` runs; resolves with the largest sample. */
async function sampledPeak<T>(server: ChildServer, work: () => Promise<T>): Promise<{ result: T; peakMb: number }> {
  let peakMb = rssMb(server, 'VmRSS')
  const timer = setInterval(() => {
    peakMb = Math.max(peakMb, rssMb(server, 'VmRSS'))
  }, 20)
  try {
    const result = await work()
    return { result, peakMb: Math.max(peakMb, rssMb(server, 'VmRSS')) }
  } finally {
    clearInterval(timer)
  }
}

/** One authenticated Discovery_Request: the Basic check (scrypt) and TLS are paid before the polls are measured. */
async function discover(port: number): Promise<void> {
  const agent = new Agent({ keepAlive: false })
  try {
    await post(
      agent,
      port,
      '/api/taxii/discovery/',
      `<taxii_11:Discovery_Request xmlns:taxii_11="${NS}" message_id="bench-0"/>`,
      HEADERS,
    )
  } finally {
    agent.destroy()
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const round = (n: number) => Math.round(n * 100) / 100

async function measureDialect(dialect: 'sqlite' | 'postgres', work: string) {
  // One owner holding every Indicator, as the poll reads one collection.
  const ds = await startDatasetServer({ dialect, indicators: TOTAL, ownerShares: [1], groups: 0 }, work, {
    nodeArgs: CPU_PROFILE_DIR ? ['--cpu-prof', '--cpu-prof-dir', CPU_PROFILE_DIR] : [],
  })
  const { port, tls } = ds
  const server = ds.server
  try {
    const store = openStore(ds.databaseUrl)
    try {
      await createAccount(
        store.db,
        {
          userName: TAXII_USER,
          kind: 'taxii',
          organization: ORGANIZATION,
          role: 'Standard User',
          password: TAXII_PASSWORD,
          firstName: 'Bench',
          lastName: 'Poller',
        },
        new Date().toISOString(),
      )
    } finally {
      await store.close()
    }
    // The window that holds every Indicator of the dataset: its load, with a second's margin before.
    const begin = new Date(Date.parse(ds.manifest.loadStartedAt) - 1000).toISOString()
    const end = ds.manifest.loadFinishedAt
    const basePort = await freePort()
    const bare = await startServer(
      'bench/bare-stream-server.ts',
      { ...process.env, BENCH_PORT: String(basePort), BENCH_TLS_CERT: tls.cert, BENCH_TLS_KEY: tls.key },
      join(work, 'bare.log'),
    )
    const runs: PollRun[] = []
    const baselines: { seconds: number; ttfbMs: number }[] = []
    try {
      const idleRssMb = rssMb(server, 'VmRSS')
      await discover(port)
      const readyRssMb = rssMb(server, 'VmRSS')
      let pollPeakMb = 0
      const warm = await sampledPeak(server, () => pollAll(port, begin, end)) // warm-up: JIT, page cache
      pollPeakMb = warm.peakMb
      for (let round = 0; round < ROUNDS; round++) {
        const { result: run, peakMb } = await sampledPeak(server, () => pollAll(port, begin, end))
        if (run.indicators !== TOTAL) throw new Error(`polled ${run.indicators} Indicators, not ${TOTAL}`)
        pollPeakMb = Math.max(pollPeakMb, peakMb)
        runs.push(run)
        baselines.push(await streamBaseline(basePort, run.bytes))
      }
      const lifetimePeakMb = rssMb(server, 'VmHWM')
      const seconds = median(runs.map((r) => r.seconds))
      const baseSeconds = median(baselines.map((b) => b.seconds))
      return {
        dialect,
        indicators: TOTAL,
        parts: runs[0].parts,
        bytes: runs[0].bytes,
        seconds: round(seconds),
        indicatorsPerSecond: Math.round(TOTAL / seconds),
        ttfbMs: round(median(runs.map((r) => r.ttfbMs))),
        pollPeakRssMb: pollPeakMb,
        lifetimePeakRssMb: lifetimePeakMb,
        idleRssMb,
        readyRssMb,
        loadAverage: round(loadavg()[0]),
        baselineSeconds: round(baseSeconds),
        baselineIndicatorsPerSecond: Math.round(TOTAL / baseSeconds),
        baselineTtfbMs: round(median(baselines.map((b) => b.ttfbMs))),
        ratio: round(baseSeconds / seconds),
        rounds: runs.map((r) => round(r.seconds)),
      }
    } finally {
      await bare.stop()
    }
  } finally {
    await ds.close()
  }
}

export async function run(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bulwark-taxii11-bench-'))
  const rows = []
  try {
    for (const dialect of DIALECTS) rows.push(await measureDialect(dialect, work))
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
  console.log(
    `\ntaxii11 benchmark: poll ${TOTAL} Indicators over one 24-hour window to the last result part (median of ${ROUNDS} rounds)`,
  )
  for (const r of rows) {
    console.log(
      `${r.dialect}: ${r.indicatorsPerSecond} Indicators/s (${r.seconds} s, ${r.parts} parts, ${(r.bytes / 1e6).toFixed(1)} MB), first byte ${r.ttfbMs} ms; server RSS: ${r.idleRssMb} MB started, ${r.readyRssMb} MB after one authenticated request, peak ${r.pollPeakRssMb} MB while polling (sampled every 20 ms), VmHWM ${r.lifetimePeakRssMb} MB; load average ${r.loadAverage}; ` +
        `bare stream of the same bytes ${r.baselineSeconds} s (${r.baselineIndicatorsPerSecond} Indicators/s equivalent, first byte ${r.baselineTtfbMs} ms), ratio ${r.ratio}`,
    )
  }
  const report = {
    benchmark: 'taxii11',
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    indicators: TOTAL,
    rounds: ROUNDS,
    target: '>= 50,000 Indicators/s and peak RSS < 256 MB',
    results: rows,
  }
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true })
  writeFileSync(join(ROOT, 'bench', 'results', 'taxii11.json'), `${JSON.stringify(report, null, 2)}\n`)
  console.log('\nwritten: bench/results/taxii11.json')
}

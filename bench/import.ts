/**
 * `bulwark import` of a large STIX 2.1 bundle against the V2 batch path on the same Indicators.
 *
 * The bundle (BENCH_IMPORT_OBJECTS indicators, default 1,000,000) is shaped like a vendor's feed: the
 * ten Indicator types in the shares real feeds have (addresses 28 %, hosts 24, URLs 20, files 16 with
 * MD5 only, SHA-256 only and all three hashes, e-mail 5, CIDR 2.5, user agents 1.5, ASN, mutex and
 * registry key 1 each), each with a name, a description, labels, its dates, a confidence and a TLP
 * marking, a tenth with a `valid_until` already past. Measured, each on a fresh database:
 * - the import: `bulwark import FILE --owner ORG --json` as a user runs it, its wall time and its peak
 *   RSS (sampled every 100 ms);
 * - the baseline: the very items the STIX reader makes of that bundle, written beforehand as V2 batch
 *   files within the default limits (2 MB, 25,000 Indicators), uploaded to a server through
 *   `POST /api/v2/batch` with four jobs in flight, from the first POST to the last job Completed;
 * - the upload: a bundle of the same shape (BENCH_IMPORT_UPLOAD_OBJECTS, default 500,000: a million
 *   is over the default upload limit) streamed to `POST /api/v3/imports` of a server and run by its
 *   import worker, to the job Completed, with the server's peak RSS.
 * The ratio is the import's Indicators per second over the baseline's (issue target ≥ 0.5), the RSS
 * target under 256 MB for every process. Writes its figures into bench/results/.
 *
 * Environment: BENCH_DB=sqlite|postgres (default sqlite), BENCH_IMPORT_OBJECTS, BENCH_IMPORT_UPLOAD_OBJECTS,
 * BENCH_POSTGRES_URL.
 */
import {
  createReadStream,
  createWriteStream,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { once } from 'node:events'
import { request } from 'node:https'
import { loadTlsMaterial } from '../src/protocols/http/tls.js'
import { stixBundle } from '../src/formats/stix2/bundle.js'
import { call, rssMb, benchDialects, type Dialect } from './lib/dataset.js'
import { createDatabase } from './lib/postgres.js'
import { ROOT, SERVER, freePort, runCli, startServer } from './lib/processes.js'

const DIALECTS = benchDialects('sqlite')
const OBJECTS = Number(process.env.BENCH_IMPORT_OBJECTS ?? 1_000_000)
/** The uploaded bundle's indicators: a million makes 600 MB, over the upload limit (setting importMaxBytes, 512 MB). */
const UPLOAD_OBJECTS = Number(process.env.BENCH_IMPORT_UPLOAD_OBJECTS ?? Math.min(OBJECTS, 500_000))
const TARGET_RATIO = 0.5
const RSS_LIMIT_MB = 256
const MAX_FILE_BYTES = 1_950_000
const PER_JOB = 25_000
const JOBS_IN_FLIGHT = 4
const ADMIN = {
  user: 'bench-admin',
  accessId: '11111111111111111111',
  secretKey: 'bench-secret-key-of-forty-characters-000',
  token: 'bench-token-0000000000000000000000000000000000000000',
  organization: 'Bench Organization',
}

/** The Indicator shapes of a feed, by share: each a STIX pattern of a value numbered n. */
const SHAPES: [share: number, pattern: (n: number) => string][] = [
  [28, (n) => `[ipv4-addr:value = '${10 + (n >>> 24)}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}']`],
  [24, (n) => `[domain-name:value = 'host-${n}.bench.example']`],
  [20, (n) => `[url:value = 'http://site-${n % 50_000}.bench.example/path/${n}?q=1']`],
  [6, (n) => `[file:hashes.MD5 = '${hex(n, 32)}']`],
  [6, (n) => `[file:hashes.'SHA-256' = '${hex(n, 64)}']`],
  [
    4,
    (n) =>
      `[file:hashes.MD5 = '${hex(n + 7, 32)}' AND file:hashes.'SHA-1' = '${hex(n + 7, 40)}' AND file:hashes.'SHA-256' = '${hex(n + 7, 64)}']`,
  ],
  [5, (n) => `[email-addr:value = 'sender-${n}@mail.bench.example']`],
  [2.5, (n) => `[ipv4-addr:value = '172.${(n >>> 16) & 255}.${(n >>> 8) & 255}.0/24']`],
  [
    1.5,
    (n) =>
      `[network-traffic:extensions.'http-request-ext'.request_header.'User-Agent' = 'BenchAgent/${n} (compatible)']`,
  ],
  [1, (n) => `[autonomous-system:number = ${n + 1}]`],
  [1, (n) => `[mutex:name = 'Global\\\\bench-mutex-${n}']`],
  [1, (n) => `[windows-registry-key:key = 'HKEY_LOCAL_MACHINE\\\\SOFTWARE\\\\Bench\\\\Run${n}']`],
]

const hex = (n: number, length: number) => (n.toString(16).padStart(8, '0') + 'deadbeef'.repeat(8)).slice(0, length)

const TLP_AMBER = 'marking-definition--f88d31f6-486f-44da-b317-01333bde0b82'

/** Writes the bundle as a vendor would: one object a line inside `objects`, streamed. */
export async function writeBundle(file: string, count: number) {
  const out = createWriteStream(file)
  const write = (text: string) => (out.write(text) ? undefined : once(out, 'drain'))
  await write('{"type":"bundle","id":"bundle--5d0092c5-5f74-4b6c-9d4a-000000000000","objects":[\n')
  const total = SHAPES.reduce((n, [share]) => n + share, 0)
  for (let i = 0; i < count; i++) {
    // Spread the shapes evenly through the file, in their shares.
    let pick = ((i * 7919) % 1000) / 10
    const shape = SHAPES.find(([share]) => (pick -= (share * 100) / total) < 0) ?? SHAPES[0]
    const created = new Date(Date.UTC(2024, 0, 1) + (i % 600) * 86_400_000).toISOString()
    const object = {
      type: 'indicator',
      spec_version: '2.1',
      id: `indicator--${hex(i, 8)}-0000-4000-8000-${String(i).padStart(12, '0')}`,
      created,
      modified: created,
      name: `Bench indicator ${i}`,
      description: `Seen in campaign ${i % 97} against sector ${i % 13}; first reported by a partner.`,
      indicator_types: ['malicious-activity'],
      labels: [`campaign-${i % 97}`, 'bench'],
      confidence: 50 + (i % 50),
      pattern: shape[1](i),
      pattern_type: 'stix',
      valid_from: created,
      ...(i % 10 === 0 ? { valid_until: '2025-01-01T00:00:00Z' } : {}),
      object_marking_refs: [TLP_AMBER],
    }
    const pending = write(`${i ? ',\n' : ''}${JSON.stringify(object)}`)
    if (pending) await pending
  }
  await write('\n]}\n')
  out.end()
  await once(out, 'finish')
}

/** The STIX reader's items for the bundle, as V2 batch files within the default limits. */
async function batchFilesOf(bundle: string, dir: string): Promise<{ files: string[]; indicators: number }> {
  const files: string[] = []
  let items: string[] = []
  let bytes = 0
  let indicators = 0
  const flush = () => {
    if (!items.length) return
    const file = join(dir, `batch-${files.length}.json`)
    writeFileSync(file, `{"indicator":[${items.join(',')}]}`)
    files.push(file)
    items = []
    bytes = 0
  }
  const input = createReadStream(bundle, { encoding: 'utf8', highWaterMark: 1 << 16 }) as AsyncIterable<string>
  for await (const event of stixBundle.reader!.read(input, { name: bundle })) {
    if (event.kind !== 'element') continue
    for (const { indicator } of event.indicators) {
      const text = JSON.stringify(indicator)
      if (bytes + text.length + 1 > MAX_FILE_BYTES || items.length >= PER_JOB) flush()
      items.push(text)
      bytes += text.length + 1
      indicators++
    }
  }
  flush()
  return { files, indicators }
}

function environment(dataDir: string, databaseUrl: string, port: number, tls: { cert: string; key: string }) {
  return {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BULWARK_'))),
    BULWARK_DATA_DIR: dataDir,
    BULWARK_DATABASE_URL: databaseUrl,
    BULWARK_PORT: String(port),
    BULWARK_HOST: '127.0.0.1',
    BULWARK_TLS_CERT: tls.cert,
    BULWARK_TLS_KEY: tls.key,
    BULWARK_LOG_LEVEL: 'warn',
    BULWARK_ADMIN_USER: ADMIN.user,
    BULWARK_ADMIN_ACCESS_ID: ADMIN.accessId,
    BULWARK_ADMIN_SECRET_KEY: ADMIN.secretKey,
    BULWARK_ADMIN_TOKEN: ADMIN.token,
    BULWARK_ORGANIZATION: ADMIN.organization,
    BULWARK_PUBLIC_URL: `https://127.0.0.1:${port}`,
  }
}

async function freshDatabase(dialect: Dialect, work: string, name: string) {
  const dataDir = join(work, name)
  mkdirSync(dataDir, { recursive: true })
  if (dialect === 'sqlite') return { dataDir, url: `sqlite:${join(dataDir, 'bulwark.db')}`, drop: async () => {} }
  const database = await createDatabase(`bulwark_import_${name.replace(/\W/g, '_')}`)
  return { dataDir, url: database.url, drop: database.drop }
}

/** Every file through POST /v2/batch, four jobs in flight; seconds from the first POST to the last Completed. */
async function runBaseline(port: number, files: string[]) {
  const started = performance.now()
  const pending: number[] = []
  let success = 0
  let errors = 0
  const waitOldest = async () => {
    const id = pending.shift()!
    for (;;) {
      const status = (await call(port, ADMIN.token, 'GET', `/api/v2/batch/${id}`)).json.data?.batchStatus
      if (status?.status === 'Completed') {
        success += status.successCount
        errors += status.errorCount
        return
      }
      await new Promise((r) => setTimeout(r, 25))
    }
  }
  const definition = JSON.stringify({
    version: 'V2',
    owner: ADMIN.organization,
    haltOnError: false,
    action: 'Create',
    attributeWriteType: 'Append',
  })
  for (const file of files) {
    if (pending.length >= JOBS_IN_FLIGHT) await waitOldest()
    const created = await call(port, ADMIN.token, 'POST', '/api/v2/batch', definition)
    if (created.status !== 201) throw new Error(`POST /v2/batch: ${created.status} ${JSON.stringify(created.json)}`)
    const id = created.json.data.batchId
    const body = readFileSync(file, 'utf8')
    const uploaded = await call(port, ADMIN.token, 'POST', `/api/v2/batch/${id}`, body, 'application/octet-stream')
    if (uploaded.status !== 202) throw new Error(`POST /v2/batch/${id}: ${uploaded.status}`)
    pending.push(id)
  }
  while (pending.length) await waitOldest()
  return { seconds: (performance.now() - started) / 1000, success, errors }
}

/** Runs `bulwark import` as a user would, sampling its RSS. */
async function runImport(env: NodeJS.ProcessEnv, bundle: string) {
  const run = await runCli(['import', bundle, '--owner', ADMIN.organization, '--json'], env)
  if (run.status !== 0) throw new Error(`bulwark import exited ${run.status}: ${run.stderr.slice(-2000)}`)
  return { seconds: run.seconds, peakRssMb: run.peakRssMb, result: JSON.parse(run.stdout) }
}

/**
 * The same kind of bundle uploaded to a server (`POST /api/v3/imports`, streamed from the file) and run by
 * its import worker: seconds from the first byte sent to the job Completed, and the server's peak RSS.
 */
async function runUpload(port: number, serverPid: number | undefined, bundle: string) {
  const started = performance.now()
  let peak = 0
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(serverPid))), 100)
  try {
    const created = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: `/api/v3/imports?owner=${encodeURIComponent(ADMIN.organization)}&fileName=bundle.json`,
          rejectUnauthorized: false,
          headers: { authorization: `TC-Token ${ADMIN.token}`, 'content-type': 'application/json' },
        },
        (res) => {
          let body = ''
          res.setEncoding('utf8').on('data', (c: string) => (body += c))
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
        },
      )
      req.on('error', reject)
      createReadStream(bundle).pipe(req)
    })
    if (created.status !== 201) throw new Error(`POST /v3/imports: ${created.status} ${created.body.slice(0, 500)}`)
    const id = JSON.parse(created.body).data.id as number
    for (;;) {
      const job = (await call(port, ADMIN.token, 'GET', `/api/v3/imports/${id}`)).json.data
      if (job.status === 'Completed' || job.status === 'Failed')
        return { seconds: (performance.now() - started) / 1000, peakRssMb: peak, job }
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
  } finally {
    clearInterval(sampler)
  }
}

const round = (n: number) => Math.round(n * 100) / 100

export async function run() {
  const work = mkdtempSync(join(tmpdir(), 'bulwark-bench-import-'))
  const rows = []
  try {
    const tls = await loadTlsMaterial({ dataDir: work }).then(() => ({
      cert: join(work, 'tls', 'self-signed.crt'),
      key: join(work, 'tls', 'self-signed.key'),
    }))
    const bundle = join(work, 'bundle.json')
    console.log(`import: writing a STIX 2.1 bundle of ${OBJECTS} indicators`)
    await writeBundle(bundle, OBJECTS)
    const batches = await batchFilesOf(bundle, work)
    console.log(`import: ${batches.indicators} Indicators in ${batches.files.length} V2 batch files`)
    const uploadBundle = join(work, 'upload.json')
    await writeBundle(uploadBundle, UPLOAD_OBJECTS)
    for (const dialect of DIALECTS) {
      // The baseline: the same items through the V2 batch API of a server.
      const base = await freshDatabase(dialect, work, `${dialect}-batch`)
      const port = await freePort()
      const server = await startServer(
        SERVER,
        environment(base.dataDir, base.url, port, tls),
        join(work, `${dialect}-batch.log`),
      )
      let serverPeak = 0
      const sampler = setInterval(() => (serverPeak = Math.max(serverPeak, rssMb(server.child.pid))), 100)
      const baseline = await runBaseline(port, batches.files)
      clearInterval(sampler)
      await server.stop()
      await base.drop()
      // The import, on a database the same first start made.
      const db = await freshDatabase(dialect, work, `${dialect}-import`)
      const env = environment(db.dataDir, db.url, await freePort(), tls)
      const imported = await runImport(env, bundle)
      await db.drop()
      // The upload: a server's import worker reads the file the API stored.
      const target = await freshDatabase(dialect, work, `${dialect}-upload`)
      const uploadPort = await freePort()
      const uploadServer = await startServer(
        SERVER,
        environment(target.dataDir, target.url, uploadPort, tls),
        join(work, `${dialect}-upload.log`),
      )
      const uploaded = await runUpload(uploadPort, uploadServer.child.pid, uploadBundle)
      await uploadServer.stop()
      await target.drop()
      if (uploaded.job.status !== 'Completed')
        throw new Error(`the uploaded import ended ${JSON.stringify(uploaded.job)}`)
      const baselineRate = batches.indicators / baseline.seconds
      const importRate = batches.indicators / imported.seconds
      const row = {
        dialect,
        objects: OBJECTS,
        indicators: batches.indicators,
        importSeconds: round(imported.seconds),
        importIndicatorsPerSecond: Math.round(importRate),
        importPeakRssMb: imported.peakRssMb,
        importJobs: imported.result.jobs,
        importErrors: imported.result.errorCount,
        uploadObjects: UPLOAD_OBJECTS,
        uploadSeconds: round(uploaded.seconds),
        uploadIndicatorsPerSecond: Math.round(uploaded.job.successCount / uploaded.seconds),
        uploadServerPeakRssMb: uploaded.peakRssMb,
        uploadErrors: uploaded.job.errorCount,
        batchSeconds: round(baseline.seconds),
        batchIndicatorsPerSecond: Math.round(baselineRate),
        batchServerPeakRssMb: serverPeak,
        batchErrors: baseline.errors,
        ratio: round(importRate / baselineRate),
        target: TARGET_RATIO,
        rssLimitMb: RSS_LIMIT_MB,
      }
      console.log(JSON.stringify(row))
      rows.push(row)
    }
    mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true })
    writeFileSync(
      join(ROOT, 'bench', 'results', 'import.json'),
      `${JSON.stringify({ machine: { cpus: cpus().length, load: loadavg().map(round) }, rows }, null, 2)}\n`,
    )
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

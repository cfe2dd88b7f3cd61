/**
 * Benchmark datasets loaded the way users load data: through `POST /api/v2/batch` of a Bulwark
 * child process at default settings (2 MB uploads, 25,000 Indicators a job), so a dataset holds
 * only what the API wrote and whatever statistics the server gathered by itself. The shape
 * follows real feeds: owners of very different sizes, five Indicator types, every Indicator
 * with one tag and a Description attribute, Groups associated with Indicators of their owner.
 *
 * A loaded dataset is kept under .bench/datasets/<key> (ignored by git), keyed by its
 * parameters and the migration list: SQLite keeps the database file and copies it for each
 * run; PostgreSQL keeps a template database and each run gets `CREATE DATABASE … TEMPLATE`.
 * `startDatasetServer` hands out a running server on a private copy; `loadDataset` always
 * loads afresh and reports the ingest figures (bench/batch.ts).
 *
 * Environment: BENCH_INDICATORS (default 1,000,000), BENCH_DATASET_CACHE=off to reload,
 * BENCH_JOBS_IN_FLIGHT (default 4), BENCH_CPU_PROFILE_DIR (profile the loading server),
 * BENCH_LOAD_NODE_ARGS (more node flags for the loading server, e.g. --trace-gc),
 * BENCH_POSTGRES_URL.
 */
import { createHash } from 'node:crypto'
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { request } from 'node:https'
import { join } from 'node:path'
import pg from 'pg'
import { prepareDatabase } from '../../src/bootstrap.js'
import { createOwner, setMembership } from '../../src/domain/access/accounts.js'
import { generateAccessId, generateSecretKey, generateToken } from '../../src/domain/access/credentials.js'
import { loadTlsMaterial } from '../../src/protocols/http/tls.js'
import { openStore } from '../../src/store/connect.js'
import { type DiskUsage, diskUsage } from './disk.js'
import { POSTGRES_ADMIN_URL } from './postgres.js'
import { GROUP_EVERY, REALISTIC_OWNER_SHARES, realisticGroupCount, realisticJobs } from './realistic.js'
import { type ChildServer, ROOT, freePort, readCpuMicros, startServer } from './processes.js'

export type Dialect = 'sqlite' | 'postgres'

/** The databases a benchmark measures: BENCH_DB, comma-separated, else the benchmark's own default. */
export function benchDialects(fallback: 'sqlite' | 'sqlite,postgres'): Dialect[] {
  return (process.env.BENCH_DB ?? fallback).split(',').map((d) => d.trim()) as Dialect[]
}

/**
 * `classic`: the first benchmarks' shape (five types, MD5-only Files, 70/25/5 % owners, 200 Groups of 10), which
 * the read benchmarks' filter values name. `realistic`: bench/lib/realistic.ts (ten types, every hash combination,
 * 92/4/4 % owners, Group associations, a tenth of each later job re-sending stored Indicators).
 */
export type DatasetShape = 'classic' | 'realistic'

export interface DatasetSpec {
  dialect: Dialect
  /** Default `classic`; `bench/batch.ts` loads `realistic` unless BENCH_DATASET=classic. */
  shape?: DatasetShape
  /** Indicators over all owners; default BENCH_INDICATORS or 1,000,000. */
  indicators?: number
  /** Each owner's share of the Indicators, largest first; the first owner is the Organization. Default 70/25/5 %. */
  ownerShares?: number[]
  /** Groups over all owners (spread by share); default 200. */
  groups?: number
  associationsPerGroup?: number
}

export interface DatasetOwner {
  name: string
  type: 'Organization' | 'Community' | 'Source'
  indicators: number
  groups: number
}

export interface Credentials {
  userName: string
  accessId: string
  secretKey: string
  token: string
  organization: string
}

/** What a cached dataset records about itself. */
export interface DatasetManifest {
  key: string
  spec: Required<DatasetSpec>
  owners: DatasetOwner[]
  credentials: Credentials
  /** The load ran between these instants: every Indicator's dateAdded lies inside. */
  loadStartedAt: string
  loadFinishedAt: string
  load: LoadFigures
  /** PostgreSQL: the template database. */
  template?: string
}

export interface LoadFigures {
  indicators: number
  groups: number
  associations: number
  jobs: number
  seconds: number
  indicatorsPerSecond: number
  errors: number
  /** Largest VmRSS of the server, sampled every 100 ms from its start to the last job Completed. */
  peakRssMb: number
  /** The server's CPU time over the load (user + system), in seconds. */
  serverCpuSeconds?: number
  /** PostgreSQL: CPU time of the backends serving the server over the load. */
  databaseCpuSeconds?: number
  /** Each job's seconds from claim to Completed, as the server recorded them. */
  jobSeconds: number[]
  /** Items in each job's file, in the same order (realistic: new Indicators plus re-sent ones). */
  jobItems?: number[]
  /** Items that re-sent a stored Indicator (realistic shape). */
  updates?: number
  /** Each job's new Indicators in submission order (a few thousand entries at 10,000,000, not one per Indicator). */
  extents?: JobExtent[]
  /** What the loaded store occupies on disk (bench/lib/disk.ts), measured after the server stopped. */
  disk?: DiskUsage
}

export interface DatasetServer {
  manifest: DatasetManifest
  /** True when this call loaded the dataset rather than copying a cached one. */
  loadedNow: boolean
  url: string
  port: number
  credentials: Credentials
  dataDir: string
  databaseUrl: string
  server: ChildServer
  pid: number
  /** The environment the server runs with (restart it with startServer('src/main.ts', env, …)). */
  env: NodeJS.ProcessEnv
  tls: { cert: string; key: string }
  /** Stops the server and discards this run's copy of the database. */
  close(): Promise<void>
}

/** Files within the default limits: 25,000 Indicators and 2,000,000 bytes; a margin for the wrapper. */
const PER_JOB = 25_000
const MAX_FILE_BYTES = 1_950_000
/** Bumped when what the loader writes changes, so cached datasets of the old shape are not reused. */
const SHAPE_VERSION = 2
const CACHE_DIR = join(ROOT, '.bench', 'datasets')
const TYPES = ['Host', 'Address', 'EmailAddress', 'URL', 'File'] as const
const GROUP_TYPES = ['Adversary', 'Threat', 'Intrusion Set'] as const
const OWNER_NAMES: { name: string; type: DatasetOwner['type'] }[] = [
  { name: 'Bench Organization', type: 'Organization' },
  { name: 'Bench Community', type: 'Community' },
  { name: 'Bench Source', type: 'Source' },
]

export function defaultIndicators(): number {
  return Number(process.env.BENCH_INDICATORS ?? 1_000_000)
}

function completeSpec(spec: DatasetSpec): Required<DatasetSpec> {
  const shape = spec.shape ?? 'classic'
  const ownerShares = spec.ownerShares ?? (shape === 'realistic' ? REALISTIC_OWNER_SHARES : [0.7, 0.25, 0.05])
  if (ownerShares.length < 1 || ownerShares.length > OWNER_NAMES.length)
    throw new Error(`ownerShares: 1 to ${OWNER_NAMES.length} owners`)
  const indicators = spec.indicators ?? defaultIndicators()
  if (shape === 'realistic') {
    // Groups and their associations follow from the Indicators (bench/lib/realistic.ts).
    const groups = split(indicators, ownerShares).reduce((n, k) => n + realisticGroupCount(k), 0)
    return { dialect: spec.dialect, shape, indicators, ownerShares, groups, associationsPerGroup: 0 }
  }
  return {
    dialect: spec.dialect,
    shape,
    indicators,
    ownerShares,
    groups: spec.groups ?? 200,
    associationsPerGroup: spec.associationsPerGroup ?? 10,
  }
}

/** Splits `total` by shares so the parts add up exactly. */
function split(total: number, shares: number[]): number[] {
  const sum = shares.reduce((a, b) => a + b, 0)
  const parts = shares.map((s) => Math.floor((total * s) / sum))
  parts[0] += total - parts.reduce((a, b) => a + b, 0)
  return parts
}

function ownersOf(spec: Required<DatasetSpec>): DatasetOwner[] {
  const indicators = split(spec.indicators, spec.ownerShares)
  const groups =
    spec.shape === 'realistic' ? indicators.map((n) => realisticGroupCount(n)) : split(spec.groups, spec.ownerShares)
  return spec.ownerShares.map((_, k) => ({ ...OWNER_NAMES[k], indicators: indicators[k], groups: groups[k] }))
}

/** The key: parameters, loader shape and every migration, so a schema change loads anew. */
function datasetKey(spec: Required<DatasetSpec>): string {
  const migrations = readdirSync(join(ROOT, 'src', 'store', 'migrations'))
    .filter((f) => !f.endsWith('.test.ts'))
    .sort()
  // A classic spec hashes as it did before shapes existed, so its cached datasets stay valid.
  const { shape, ...rest } = spec
  const keyed = shape === 'classic' ? rest : spec
  return createHash('sha256')
    .update(JSON.stringify({ spec: keyed, SHAPE_VERSION, migrations }))
    .digest('hex')
    .slice(0, 16)
}

/** Indicator i of owner o: unique across owners, one tag of 50 per owner and a Description. */
export function datasetIndicator(o: number, i: number) {
  const n = o * 10_000_000 + i
  const common = {
    rating: (Math.floor(i / TYPES.length) % 5) + 1,
    confidence: i % 101,
    tag: [{ name: `feed-${o}-tag-${i % 50}` }],
    attribute: [{ type: 'Description', value: `Seen in feed ${o}, record ${i}` }],
  }
  switch (TYPES[i % TYPES.length]) {
    case 'Host':
      return { ...common, type: 'Host', summary: `h${n}.o${o}.bench.example` }
    case 'Address':
      return { ...common, type: 'Address', summary: `${10 + o}.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` }
    case 'EmailAddress':
      return { ...common, type: 'EmailAddress', summary: `user${n}@bench.example` }
    case 'URL':
      return { ...common, type: 'URL', summary: `https://bench.example/o${o}/path/${i}` }
    default:
      return { ...common, type: 'File', summary: createHash('md5').update(String(n)).digest('hex').toUpperCase() }
  }
}

/**
 * Group g of owner o and its associations: Indicators of that owner spread evenly over its
 * range, given inline as associatedIndicators.
 */
function datasetGroup(o: number, g: number, owner: DatasetOwner, perGroup: number) {
  const step = Math.max(1, Math.floor(owner.indicators / Math.max(1, owner.groups * perGroup)))
  const associatedIndicators = Array.from({ length: Math.min(perGroup, owner.indicators) }, (_, k) => {
    const it = datasetIndicator(o, ((g * perGroup + k) * step) % owner.indicators)
    return { indicatorType: it.type, summary: it.summary }
  })
  return {
    type: GROUP_TYPES[g % GROUP_TYPES.length],
    name: `Bench group ${o}-${g}`,
    xid: `bench-group-${o}-${g}`,
    associatedIndicators,
  }
}

export interface JobFile {
  owner: number
  file: string
  items: number
  updates: number
  /** The file's new Indicators are the owner's `first` … `first + created - 1`. */
  first: number
  created: number
}

/** Where a job's new Indicators lie: owner, first index, count. The raw baselines insert them in the same chunks. */
export type JobExtent = [owner: number, first: number, created: number]

/**
 * The files of a realistic load of `total` Indicators (bench/lib/realistic.ts) split over `owners` by the realistic
 * shares, within the default limits: what bench/read-while-write.ts sends to a store that already holds a dataset
 * (its values, tags and Group xids differ from the classic shape's, so nothing collides).
 */
export function realisticLoadFiles(total: number, owners: number): Generator<JobFile> {
  return realisticJobs(split(total, REALISTIC_OWNER_SHARES.slice(0, owners)), MAX_FILE_BYTES, PER_JOB)
}

/** Every batch file of the dataset in submission order. */
function* datasetFiles(spec: Required<DatasetSpec>, owners: DatasetOwner[]): Generator<JobFile> {
  if (spec.shape === 'realistic') {
    yield* realisticJobs(
      owners.map((o) => o.indicators),
      MAX_FILE_BYTES,
      PER_JOB,
    )
    return
  }
  for (const [o, owner] of owners.entries())
    for (const file of batchFiles(o, owner, spec.associationsPerGroup))
      yield { owner: o, items: file.created, updates: 0, ...file }
}

/** One owner's batch files in order, each within the default limits; Groups ride in the last file. */
function* batchFiles(
  o: number,
  owner: DatasetOwner,
  perGroup: number,
): Generator<{ file: string; first: number; created: number }> {
  let items: string[] = []
  let bytes = 20
  let first = 0
  for (let i = 0; i < owner.indicators; i++) {
    const item = JSON.stringify(datasetIndicator(o, i))
    if (items.length === PER_JOB || bytes + item.length + 1 > MAX_FILE_BYTES) {
      yield { file: `{"indicator":[${items.join(',')}]}`, first, created: items.length }
      first += items.length
      items = []
      bytes = 20
    }
    items.push(item)
    bytes += item.length + 1
  }
  const groups = Array.from({ length: owner.groups }, (_, g) => JSON.stringify(datasetGroup(o, g, owner, perGroup)))
  const groupBytes = groups.reduce((n, g) => n + g.length + 1, 12)
  if (items.length && bytes + groupBytes <= MAX_FILE_BYTES) {
    yield { file: `{"indicator":[${items.join(',')}],"group":[${groups.join(',')}]}`, first, created: items.length }
  } else {
    if (items.length) yield { file: `{"indicator":[${items.join(',')}]}`, first, created: items.length }
    if (groups.length) yield { file: `{"group":[${groups.join(',')}]}`, first: owner.indicators, created: 0 }
  }
}

export function call(
  port: number,
  token: string,
  method: string,
  path: string,
  body?: string,
  contentType = 'application/json',
): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method,
        rejectUnauthorized: false,
        headers: {
          authorization: `TC-Token ${token}`,
          ...(body !== undefined ? { 'content-type': contentType, 'content-length': Buffer.byteLength(body) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = []
        res
          .on('data', (c) => chunks.push(c))
          .on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8')
            try {
              resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) })
            } catch {
              resolve({ status: res.statusCode ?? 0, json: text })
            }
          })
      },
    )
    req.on('error', reject)
    if (body !== undefined) req.write(body)
    req.end()
  })
}

export function rssMb(pid: number | undefined): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Math.round(Number(m[1]) / 1024) : 0
  } catch {
    return 0
  }
}

const JOBS_IN_FLIGHT = Number(process.env.BENCH_JOBS_IN_FLIGHT ?? 4)

/**
 * Submits every owner's files, keeping JOBS_IN_FLIGHT jobs queued or running (as a feed client
 * with several uploads in flight would), and waits for the last one.
 */
export async function submitAll(
  port: number,
  token: string,
  owners: DatasetOwner[],
  files: Iterable<JobFile>,
  attributeWriteType: 'Append' | 'Replace',
): Promise<{
  jobs: number
  errors: number
  success: number
  jobItems: number[]
  updates: number
  extents: JobExtent[]
}> {
  const pending: number[] = []
  const jobItems: number[] = []
  const extents: JobExtent[] = []
  let updates = 0
  let jobs = 0
  let errors = 0
  let success = 0
  const waitOldest = async () => {
    const id = pending.shift()!
    for (;;) {
      const { json } = await call(port, token, 'GET', `/api/v2/batch/${id}`)
      const status = json.data?.batchStatus
      if (status?.status === 'Completed') {
        errors += status.errorCount
        success += status.successCount
        return
      }
      await new Promise((r) => setTimeout(r, 25))
    }
  }
  for (const { owner: o, file, items, updates: resent, first, created: fresh } of files) {
    const owner = owners[o]!
    {
      if (pending.length >= JOBS_IN_FLIGHT) await waitOldest()
      const created = await call(
        port,
        token,
        'POST',
        '/api/v2/batch',
        JSON.stringify({
          version: 'V2',
          owner: owner.name,
          haltOnError: false,
          action: 'Create',
          attributeWriteType,
        }),
      )
      if (created.status !== 201) throw new Error(`POST /v2/batch: ${created.status} ${JSON.stringify(created.json)}`)
      const id = created.json.data.batchId
      const uploaded = await call(port, token, 'POST', `/api/v2/batch/${id}`, file, 'application/octet-stream')
      if (uploaded.status !== 202)
        throw new Error(`POST /v2/batch/${id}: ${uploaded.status} ${JSON.stringify(uploaded.json)}`)
      pending.push(id)
      jobs++
      jobItems.push(items)
      if (fresh > 0) extents.push([o, first, fresh])
      updates += resent
    }
  }
  while (pending.length) await waitOldest()
  return { jobs, errors, success, jobItems, updates, extents }
}

async function jobSeconds(databaseUrl: string): Promise<number[]> {
  const store = openStore(databaseUrl)
  try {
    const rows = await store.db.selectFrom('batch_job').select(['started_at', 'completed_at']).orderBy('id').execute()
    return rows.map((r) => Math.round((Date.parse(r.completed_at ?? '') - Date.parse(r.started_at ?? '')) / 10) / 100)
  } finally {
    await store.close()
  }
}

async function tlsIn(dir: string): Promise<{ cert: string; key: string }> {
  await loadTlsMaterial({ dataDir: dir })
  return { cert: join(dir, 'tls', 'self-signed.crt'), key: join(dir, 'tls', 'self-signed.key') }
}

function serverEnv(
  dataDir: string,
  databaseUrl: string,
  port: number,
  tls: { cert: string; key: string },
  credentials: Credentials,
  extra: NodeJS.ProcessEnv = {},
): NodeJS.ProcessEnv {
  return {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BULWARK_'))),
    BULWARK_DATA_DIR: dataDir,
    BULWARK_PORT: String(port),
    BULWARK_HOST: '127.0.0.1',
    BULWARK_TLS_CERT: tls.cert,
    BULWARK_TLS_KEY: tls.key,
    BULWARK_LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    BULWARK_ADMIN_USER: credentials.userName,
    BULWARK_ADMIN_ACCESS_ID: credentials.accessId,
    BULWARK_ADMIN_SECRET_KEY: credentials.secretKey,
    BULWARK_ADMIN_TOKEN: credentials.token,
    BULWARK_ORGANIZATION: credentials.organization,
    BULWARK_DATABASE_URL: databaseUrl,
    BULWARK_PUBLIC_URL: `https://127.0.0.1:${port}`,
    ...extra,
  }
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL })
  await client.connect()
  try {
    await client.query(text)
  } finally {
    await client.end()
  }
}

/**
 * A private copy of a cached dataset's template database. Right after the template was loaded, its server's
 * connections may still be closing, and PostgreSQL refuses to copy a database others are connected to (55006).
 */
async function copyTemplate(copy: string, template: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await adminQuery(`CREATE DATABASE ${copy} TEMPLATE ${template}`)
    } catch (error) {
      if ((error as { code?: string }).code !== '55006' || attempt >= 50) throw error
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }
}

/**
 * PostgreSQL: gives the loading server the vacuum it makes once its batch queue drains (planner-statistics.ts)
 * before it is stopped, as a live server makes it: waits until the written tables were vacuumed after the last job
 * completed, for at most `timeoutMs` (a server that wrote under MIN_ROWS rows since its last vacuum owes no pass).
 * Stopped the moment its last job ended, the server could skip the pass, and reads measured on copies of the store
 * then visited the table for each of the newest rows (TQL `tag =` at 10,000,000: 11 ms against 7).
 */
async function settled(databaseUrl: string, timeoutMs = 60_000): Promise<void> {
  if (!databaseUrl.startsWith('postgres')) return
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    for (const deadline = Date.now() + timeoutMs; Date.now() < deadline;) {
      const owed = await client.query(
        `select relname from pg_stat_user_tables
          where relname in ('indicator', 'item_tag', 'attribute')
            and (last_vacuum is null or last_vacuum < (select max(completed_at)::timestamptz from batch_job))`,
      )
      if (owed.rowCount === 0) return
      await new Promise((resolve) => setTimeout(resolve, 500))
    }
  } finally {
    await client.end()
  }
}

function databaseUrlFor(name: string): string {
  const url = new URL(POSTGRES_ADMIN_URL)
  url.pathname = `/${name}`
  return url.toString()
}

/**
 * Loads the dataset into `databaseUrl` (an empty database) through a child server's batch API
 * and stops the server. The server's RSS is sampled throughout.
 */
async function loadInto(
  spec: Required<DatasetSpec>,
  dataDir: string,
  databaseUrl: string,
  tls: { cert: string; key: string },
  logFile: string,
): Promise<Omit<DatasetManifest, 'key' | 'template'>> {
  const owners = ownersOf(spec)
  const credentials: Credentials = {
    userName: 'bench-admin',
    accessId: generateAccessId(),
    secretKey: generateSecretKey(),
    token: generateToken(),
    organization: owners[0].name,
  }
  const prepared = openStore(databaseUrl)
  try {
    await prepareDatabase(prepared)
  } finally {
    await prepared.close()
  }
  const port = await freePort()
  const loadStartedAt = new Date().toISOString()
  const profile = process.env.BENCH_CPU_PROFILE_DIR
    ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROFILE_DIR]
    : []
  const extra = process.env.BENCH_LOAD_NODE_ARGS?.split(' ').filter(Boolean) ?? []
  const server = await startServer('src/main.ts', serverEnv(dataDir, databaseUrl, port, tls, credentials), logFile, [
    ...profile,
    ...extra,
  ])
  let peakRssMb = rssMb(server.child.pid)
  const sampler = setInterval(() => {
    peakRssMb = Math.max(peakRssMb, rssMb(server.child.pid))
  }, 100)
  const backends = spec.dialect === 'postgres' ? new BackendCpu(databaseUrl) : undefined
  try {
    // The other owners are set up the way an operator does it (bulwark owners create / memberships set).
    const setup = openStore(databaseUrl)
    try {
      for (const owner of owners.slice(1)) {
        await createOwner(setup.db, { name: owner.name, type: owner.type }, new Date().toISOString())
        await setMembership(setup.db, credentials.userName, owner.name, 'Director', new Date().toISOString())
      }
    } finally {
      await setup.close()
    }
    // The server caches credentials for up to a second.
    if (owners.length > 1) await new Promise((r) => setTimeout(r, 1100))
    const cpuBefore = server.cpuMicros()
    const started = performance.now()
    const submitted = await submitAll(
      port,
      credentials.token,
      owners,
      datasetFiles(spec, owners),
      spec.shape === 'realistic' ? 'Replace' : 'Append',
    )
    const seconds = (performance.now() - started) / 1000
    const cpuAfter = server.cpuMicros()
    const databaseCpuSeconds = await backends?.stop()
    peakRssMb = Math.max(peakRssMb, rssMb(server.child.pid))
    const loadFinishedAt = new Date().toISOString()
    await settled(databaseUrl)
    clearInterval(sampler)
    await server.stop()
    const associations =
      spec.shape === 'realistic'
        ? owners.reduce((n, o) => n + Math.ceil(o.indicators / GROUP_EVERY), 0)
        : owners.reduce((n, o) => n + o.groups * Math.min(spec.associationsPerGroup, o.indicators), 0)
    const load: LoadFigures = {
      indicators: spec.indicators,
      groups: spec.groups,
      associations,
      jobs: submitted.jobs,
      seconds: Math.round(seconds * 100) / 100,
      indicatorsPerSecond: Math.round(spec.indicators / seconds),
      errors: submitted.errors,
      peakRssMb,
      serverCpuSeconds:
        cpuBefore !== undefined && cpuAfter !== undefined
          ? Math.round((cpuAfter - cpuBefore) / 10_000) / 100
          : undefined,
      databaseCpuSeconds,
      jobSeconds: await jobSeconds(databaseUrl),
      jobItems: submitted.jobItems,
      extents: submitted.extents,
      ...(spec.shape === 'realistic' ? { updates: submitted.updates } : {}),
      disk: await diskUsage(databaseUrl, spec.indicators),
    }
    if (submitted.errors) throw new Error(`${submitted.errors} batch errors while loading the dataset; see ${logFile}`)
    return { spec, owners, credentials, loadStartedAt, loadFinishedAt, load }
  } finally {
    clearInterval(sampler)
    await backends?.stop()
    await server.stop()
  }
}

/**
 * CPU time the PostgreSQL backends serving one database used while this watches (Linux,
 * same machine): their pids are listed every half second and each one's utime + stime kept
 * at its latest reading, so a backend that exits keeps what it had used until then.
 */
export class BackendCpu {
  private readonly first = new Map<number, number>()
  private readonly last = new Map<number, number>()
  private readonly timer: NodeJS.Timeout
  private readonly client: pg.Client
  private ready: Promise<void>
  private stopped?: Promise<number>

  constructor(
    databaseUrl: string,
    private readonly excludePid?: number,
  ) {
    this.client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL })
    this.ready = this.client.connect().then(() => this.sample(new URL(databaseUrl).pathname.slice(1)))
    this.timer = setInterval(() => {
      this.ready = this.ready.then(() => this.sample(new URL(databaseUrl).pathname.slice(1))).catch(() => {})
    }, 500)
  }

  private async sample(database: string): Promise<void> {
    const rows = (
      await this.client.query('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [
        database,
      ])
    ).rows as { pid: number }[]
    for (const { pid } of rows) {
      if (pid === this.excludePid) continue
      const micros = readCpuMicros(pid)
      if (micros === undefined) continue
      if (!this.first.has(pid)) this.first.set(pid, micros)
      this.last.set(pid, micros)
    }
  }

  /** Seconds of backend CPU since the watch began (backends already running count from their first sighting). */
  stop(): Promise<number> {
    this.stopped ??= (async () => {
      clearInterval(this.timer)
      await this.ready.catch(() => {})
      await this.client.end().catch(() => {})
      let micros = 0
      for (const [pid, last] of this.last) micros += last - (this.first.get(pid) ?? last)
      return Math.round(micros / 10_000) / 100
    })()
    return this.stopped
  }
}

/**
 * Loads a dataset afresh into a new database (never from the cache) and returns the figures of
 * the load; the database is dropped afterwards unless `keep` is set (then it becomes the cache).
 */
export async function loadDataset(
  given: DatasetSpec,
  work: string,
  options: { keep?: boolean } = {},
): Promise<DatasetManifest> {
  const spec = completeSpec(given)
  const key = datasetKey(spec)
  const tls = await tlsIn(work)
  const dir = options.keep ? join(CACHE_DIR, key) : join(work, `dataset-${key}`)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  const template =
    spec.dialect === 'postgres' ? `bulwark_ds_${options.keep ? key : `${key}_${process.pid}_${Date.now()}`}` : undefined
  if (template) {
    await adminQuery(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`)
    await adminQuery(`CREATE DATABASE ${template}`)
  }
  const databaseUrl = template ? databaseUrlFor(template) : `sqlite:${join(dir, 'bulwark.db')}`
  try {
    const loaded = await loadInto(spec, dir, databaseUrl, tls, join(work, `dataset-${spec.dialect}.log`))
    const manifest: DatasetManifest = { key, ...loaded, template }
    if (options.keep) writeFileSync(join(dir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`)
    return manifest
  } catch (error) {
    if (options.keep) rmSync(dir, { recursive: true, force: true })
    if (template && options.keep) await adminQuery(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`)
    throw error
  } finally {
    if (!options.keep) {
      rmSync(dir, { recursive: true, force: true })
      if (template) await adminQuery(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`)
    }
  }
}

async function cachedManifest(spec: Required<DatasetSpec>): Promise<DatasetManifest | undefined> {
  if (process.env.BENCH_DATASET_CACHE === 'off') return undefined
  const file = join(CACHE_DIR, datasetKey(spec), 'manifest.json')
  if (!existsSync(file)) return undefined
  const manifest = JSON.parse(readFileSync(file, 'utf8')) as DatasetManifest
  if (manifest.template) {
    const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL })
    await client.connect()
    try {
      const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [manifest.template])
      if (found.rowCount === 0) return undefined
    } finally {
      await client.end()
    }
  } else if (!existsSync(join(CACHE_DIR, manifest.key, 'bulwark.db'))) {
    return undefined
  }
  return manifest
}

/**
 * A running server on a private copy of the dataset, loading it first when it is not cached.
 * `work` is a scratch directory of the caller (the copy and the logs go there).
 * @example const ds = await startDatasetServer({ dialect: 'sqlite' }, work); … await ds.close()
 */
export async function startDatasetServer(
  given: DatasetSpec,
  work: string,
  options: { env?: NodeJS.ProcessEnv; nodeArgs?: string[]; logFile?: string } = {},
): Promise<DatasetServer> {
  const spec = completeSpec(given)
  let manifest = await cachedManifest(spec)
  const loadedNow = !manifest
  if (!manifest) {
    console.log(
      `dataset: loading ${spec.indicators} Indicators on ${spec.dialect} through /v2/batch (cached for later runs)`,
    )
    manifest = await loadDataset(spec, work, { keep: true })
    console.log(
      `dataset: loaded in ${manifest.load.seconds} s (${manifest.load.indicatorsPerSecond} Indicators/s, ${manifest.load.jobs} jobs, peak RSS ${manifest.load.peakRssMb} MB)`,
    )
  }
  const dataDir = join(work, `run-${spec.dialect}-${manifest.key}-${Date.now()}`)
  mkdirSync(dataDir, { recursive: true })
  let databaseUrl: string
  let dropCopy = async () => {}
  if (manifest.template) {
    const copy = `bulwark_run_${process.pid}_${Date.now()}`
    await copyTemplate(copy, manifest.template)
    databaseUrl = databaseUrlFor(copy)
    dropCopy = () => adminQuery(`DROP DATABASE IF EXISTS ${copy} WITH (FORCE)`)
  } else {
    databaseUrl = `sqlite:${join(dataDir, 'bulwark.db')}`
  }
  // The database file (SQLite) and the server key that sealed the stored access-key secrets.
  for (const file of readdirSync(join(CACHE_DIR, manifest.key))) {
    if (file !== 'manifest.json' && !file.endsWith('-shm'))
      copyFileSync(join(CACHE_DIR, manifest.key, file), join(dataDir, file))
  }
  const tls = await tlsIn(work)
  const port = await freePort()
  const env = serverEnv(dataDir, databaseUrl, port, tls, manifest.credentials, options.env)
  let server: ChildServer
  try {
    server = await startServer(
      'src/main.ts',
      env,
      options.logFile ?? join(work, `bulwark-${spec.dialect}.log`),
      options.nodeArgs,
    )
  } catch (error) {
    await dropCopy()
    throw error
  }
  return {
    manifest,
    loadedNow,
    url: `https://127.0.0.1:${port}`,
    port,
    credentials: manifest.credentials,
    dataDir,
    databaseUrl,
    server,
    pid: server.child.pid!,
    env,
    tls,
    async close() {
      await server.stop()
      await dropCopy()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/**
 * No database fault ends a node or becomes a 500: a server that refuses connections, a pooler
 * that goes away and comes back, backends terminated under load and a pool with no connection free
 * are answered 503 with Retry-After in each interface's own envelope, /api/ready says not ready,
 * and the node serves again once the database is back; on SQLite, a write lock another process holds
 * past the busy timeout answers 503 the same way. The pooler scenarios skip when PgBouncer is not installed.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import SqliteDatabase from 'better-sqlite3'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from './app.js'
import { createServices } from './domain/services.js'
import { type Store, type StoreOptions, openStore } from './store/connect.js'
import { CREDENTIAL_CACHE_MS } from './store/engine/credential-cache.js'
import { TEST_DB, type TestAccount, type TestApp, createTestApp, freeLoopbackPort } from './test/harness.js'
import { PGBOUNCER_MISSING, type PgBouncer, startPgBouncer } from './test/pgbouncer.js'
import {
  PG_CLUSTER_MISSING,
  type PgCluster,
  type PgReplica,
  startPgCluster,
  startPgReplica,
} from './test/pg-cluster.js'
import { prepareDatabase } from './bootstrap.js'
import { createAccount, createOwner, issueApiToken } from './domain/access/accounts.js'
import { isoNow } from './core/time.js'
import { startBatchWorker } from './worker/batch-worker.js'
import { BINDING_REQUEST_HEADERS, basic, message, readXml } from './test/taxii11-client.js'

const postgres = TEST_DB === 'postgres'

let t: TestApp
let url: string
let taxii: { userName: string; password: string }
const opened: { store: Store; app: FastifyInstance }[] = []

beforeAll(async () => {
  if (!postgres) return
  t = await createTestApp()
  url = (t.store.pool!.options as { connectionString: string }).connectionString
  const account: TestAccount = await t.createAccount({ kind: 'taxii', password: 'a-taxii-password-1' })
  taxii = { userName: account.userName, password: 'a-taxii-password-1' }
})

afterAll(async () => {
  for (const { store, app } of opened) {
    await app.close()
    await store.close()
  }
  await t?.close()
})

async function nodeOn(databaseUrl: string, options: StoreOptions = {}) {
  const store = openStore(databaseUrl, options)
  const services = createServices(store, { serverKey: 'test-server-key', publicUrl: 'https://bulwark.test' })
  const app = await buildApp({ store, services, trustedProxies: ['127.0.0.1'], logLevel: false })
  opened.push({ store, app })
  return { store, app }
}

const https = { 'x-forwarded-proto': 'https' }
const v2 = (app: FastifyInstance) =>
  app.inject({ url: '/api/v2/owners', headers: { ...https, authorization: `TC-Token ${t.admin.token}` } })
const v3 = (app: FastifyInstance) =>
  app.inject({ url: '/api/v3/indicators', headers: { ...https, authorization: `TC-Token ${t.admin.token}` } })
const taxii21 = (app: FastifyInstance) =>
  app.inject({
    url: '/api/services/taxii/v1/svc_taxii/collections/',
    headers: { ...https, authorization: `Bearer ${t.admin.token}`, accept: 'application/taxii+json;version=2.1' },
  })
const taxii11 = (app: FastifyInstance) =>
  app.inject({
    method: 'POST',
    url: '/api/taxii/discovery/',
    payload: message('Discovery_Request', { message_id: 'd-1' }),
    headers: { ...BINDING_REQUEST_HEADERS, ...https, authorization: basic(taxii) },
  })
const ready = (app: FastifyInstance) => app.inject({ url: '/api/ready' })

function expectTryLater(res: LightMyRequestResponse) {
  expect(res.statusCode).toBe(503)
  expect(res.headers['retry-after']).toBe('1')
}

/** Every interface refuses in its own envelope, and the probe says not ready. */
async function expectUnavailable(app: FastifyInstance) {
  const [a, b, c, d, r] = await Promise.all([v2(app), v3(app), taxii21(app), taxii11(app), ready(app)])
  expectTryLater(a)
  expect(a.json()).toEqual({ status: 'Error', message: 'The database is not answering; try again shortly' })
  expectTryLater(b)
  expect(b.json()).toEqual({
    errCode: '0x1001',
    message: 'The database is not answering; try again shortly',
    status: 'Error',
  })
  expectTryLater(c)
  expect(c.json()).toMatchObject({ title: 'Service Unavailable', http_status: '503' })
  expectTryLater(d)
  const status = readXml(d.body).Status_Message
  expect(status['@status_type']).toBe('RETRY')
  expect(status.Status_Detail.Detail).toMatchObject([{ '@name': 'ESTIMATED_WAIT', '#text': '1' }])
  expect(r.statusCode).toBe(503)
}

async function expectServing(app: FastifyInstance) {
  const answers = await Promise.all([v2(app), v3(app), taxii21(app), taxii11(app), ready(app)])
  expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200, 200])
}

describe.skipIf(!postgres)('a database that does not answer', () => {
  it('refusing connections (nothing listens on its port): 503 with Retry-After everywhere, not ready', async () => {
    const port = await freeLoopbackPort()
    const nowhere = new URL(url)
    nowhere.port = String(port)
    const { app } = await nodeOn(nowhere.toString(), { connectTimeoutMs: 500 })
    await expectUnavailable(app)
  })

  it('with no connection free in time: 503 within the connect timeout, not a wait', async () => {
    const { store, app } = await nodeOn(url, { poolSize: 1, connectTimeoutMs: 300 })
    await expectServing(app)
    let release!: () => void
    const held = store.db.connection().execute(() => new Promise<void>((resolve) => (release = resolve)))
    await new Promise((resolve) => setTimeout(resolve, 50))
    const started = Date.now()
    expectTryLater(await v3(app))
    expect(Date.now() - started).toBeLessThan(2000)
    release()
    await held
    expect((await v3(app)).statusCode).toBe(200)
  })

  it('with its backends terminated under load: every answer 200 or 503, the node lives and serves on', async () => {
    const { store, app } = await nodeOn(url, { poolSize: 4 })
    await expectServing(app)
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    const statuses: number[] = []
    const load = Array.from({ length: 200 }, async (_, i) => {
      await new Promise((resolve) => setTimeout(resolve, i))
      statuses.push((await (i % 2 ? v3(app) : v2(app))).statusCode)
    })
    let terminated = 0
    for (let round = 0; round < 5; round++) {
      await new Promise((resolve) => setTimeout(resolve, 30))
      terminated += (
        await admin.query(
          `select pg_terminate_backend(pid) from pg_stat_activity
         where datname = current_database() and pid <> pg_backend_pid() and application_name = ''`,
        )
      ).rowCount!
    }
    expect(terminated).toBeGreaterThan(0)
    await Promise.all(load)
    await admin.end()
    expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([])
    expect(statuses).toHaveLength(200)
    await expectServing(app)
    expect(store.pool!.totalCount).toBeLessThanOrEqual(4)
  }, 30_000)
})

describe.skipIf(!postgres || !!PGBOUNCER_MISSING)('a pooler that goes away and comes back', () => {
  let bouncer: PgBouncer | undefined
  afterAll(async () => {
    await bouncer?.stop()
  })

  it('answers 503 while it is gone and serves within 5 s of its return', async () => {
    bouncer = await startPgBouncer({ poolMode: 'transaction' })
    const port = bouncer.port
    const { app } = await nodeOn(bouncer.urlFor(url), { pooling: 'transaction', connectTimeoutMs: 1000 })
    await expectServing(app)
    await bouncer.stop()
    bouncer = undefined
    // Credentials stay cached for up to a second; past it every request needs the database.
    await new Promise((resolve) => setTimeout(resolve, CREDENTIAL_CACHE_MS + 100))
    await expectUnavailable(app)
    bouncer = await startPgBouncer({ poolMode: 'transaction', port })
    const back = Date.now()
    let served = 0
    while (Date.now() - back < 5000) {
      if ((await v3(app)).statusCode === 200) {
        served = Date.now() - back
        break
      }
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    expect(served).toBeGreaterThan(0)
    await expectServing(app)
  }, 30_000)
})

const JOB_SIZE = 20_000

interface FaultRun {
  statuses: number[]
  /** The slowest answer, in ms: a request never hangs. */
  slowest: number
  acknowledged: string[]
  /** From the fault's end (the restart returned, the replica promoted and the pooler repointed) to the first 201. */
  firstSuccessAfter: number
  jobAtFault: { status?: string; successCount?: number }
  jobAtEnd: { status?: string; successCount?: number; errorCount?: number }
  /** The Indicators written by the four writers, as stored once it is over. */
  stored: Set<string>
}

/**
 * A node on `store` under load while `fault` runs: a batch job of JOB_SIZE Hosts under way and four
 * writers creating Indicators for 5 s, the fault 800 ms in; then the job waited for (30 s at most).
 */
async function underLoad(store: Store, name: string, fault: () => Promise<void>): Promise<FaultRun> {
  await prepareDatabase(store)
  await createOwner(store.db, { name: `${name} Org`, type: 'Organization' }, isoNow())
  await createAccount(
    store.db,
    { userName: `${name}-admin`, kind: 'api', organization: `${name} Org`, role: 'Organization Administrator' },
    isoNow(),
  )
  const token = (await issueApiToken(store.db, `${name}-admin`, {}, Date.now())).token
  const services = createServices(store, { serverKey: 'test-server-key', publicUrl: 'https://bulwark.test' })
  const app = await buildApp({ store, services, trustedProxies: ['127.0.0.1'], logLevel: false })
  opened.push({ store, app })
  const headers = { ...https, authorization: `TC-Token ${token}` }
  const worker = startBatchWorker(store, services, { pollMs: 200 })
  // A batch job under way when the fault comes: it must complete from its last committed chunk.
  const job = await app.inject({
    method: 'POST',
    url: '/api/v2/batch',
    payload: { owner: `${name} Org`, haltOnError: false, action: 'Create', attributeWriteType: 'Append' },
    headers,
  })
  const jobId = job.json().data.batchId as number
  const hosts = Array.from({ length: JOB_SIZE }, (_, i) => ({ type: 'Host', summary: `job-${i}.example` }))
  const upload = await app.inject({
    method: 'POST',
    url: `/api/v2/batch/${jobId}`,
    payload: JSON.stringify({ indicator: hosts }),
    headers: { ...headers, 'content-type': 'application/octet-stream' },
  })
  expect(upload.statusCode).toBe(202)

  const run: FaultRun = {
    statuses: [],
    slowest: 0,
    acknowledged: [],
    firstSuccessAfter: -1,
    jobAtFault: {},
    jobAtEnd: {},
    stored: new Set(),
  }
  let faultOver = 0
  const until = Date.now() + 5000
  const writer = async (w: number) => {
    for (let n = 0; Date.now() < until; n++) {
      const hostName = `${name}-${w}-${n}.example`
      const sent = Date.now()
      const res = await app.inject({
        method: 'POST',
        url: '/api/v3/indicators',
        payload: { type: 'Host', hostName },
        headers,
      })
      run.slowest = Math.max(run.slowest, Date.now() - sent)
      run.statuses.push(res.statusCode)
      if (res.statusCode === 201) {
        run.acknowledged.push(hostName)
        if (faultOver && run.firstSuccessAfter < 0) run.firstSuccessAfter = Date.now() - faultOver
      }
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
  }
  const faulting = (async () => {
    await new Promise((resolve) => setTimeout(resolve, 800))
    const before = await app.inject({ url: `/api/v2/batch/${jobId}`, headers })
    run.jobAtFault = before.json().data.batchStatus
    await fault()
    faultOver = Date.now()
  })()
  await Promise.all([writer(1), writer(2), writer(3), writer(4), faulting])
  expect(faultOver).toBeGreaterThan(0)
  run.stored = new Set(
    (await store.db.selectFrom('indicator').select('summary').where('summary', 'like', `${name}-%`).execute()).map(
      (r) => r.summary,
    ),
  )
  const deadline = Date.now() + 30_000
  while (Date.now() < deadline) {
    const res = await app.inject({ url: `/api/v2/batch/${jobId}`, headers })
    if (res.statusCode === 200) run.jobAtEnd = res.json().data.batchStatus
    if (run.jobAtEnd.status === 'Completed') break
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  await worker.stop()
  return run
}

/** Every answer 201 or 503, the first success within 5 s of the fault's end, no acknowledged write lost, the job completed. */
function expectRidden(run: FaultRun) {
  expect(run.statuses.filter((s) => s !== 201 && s !== 503)).toEqual([])
  expect(run.firstSuccessAfter).toBeGreaterThanOrEqual(0)
  expect(run.firstSuccessAfter).toBeLessThan(5000)
  expect(run.acknowledged.filter((name) => !run.stored.has(name))).toEqual([])
  expect(run.acknowledged.length).toBeGreaterThan(20)
  // Under way when the fault came, and completed from its last chunk well before its lease would expire.
  expect(run.jobAtFault.status).toBe('Running')
  expect(run.jobAtFault.successCount).toBeLessThan(JOB_SIZE)
  expect(run.jobAtEnd).toMatchObject({ status: 'Completed', successCount: JOB_SIZE, errorCount: 0 })
}

describe.skipIf(!postgres || !!PG_CLUSTER_MISSING).each([
  ['directly', false],
  ['through PgBouncer in transaction mode', true],
])('a PostgreSQL restart under load, %s', (_, pooled) => {
  let cluster: PgCluster | undefined
  let bouncer: PgBouncer | undefined
  afterAll(async () => {
    await bouncer?.stop()
    cluster?.destroy()
  })

  it('answers every write 201 or 503 while it restarts, loses no acknowledged one, and serves within 5 s of its return', async () => {
    if (pooled && PGBOUNCER_MISSING) return console.warn(PGBOUNCER_MISSING)
    cluster = await startPgCluster()
    bouncer = pooled ? await startPgBouncer({ poolMode: 'transaction', target: cluster.url }) : undefined
    const store = bouncer
      ? openStore(bouncer.urlFor(cluster.url), {
          poolSize: 6,
          connectTimeoutMs: 1000,
          pooling: 'transaction',
          listenUrl: cluster.url,
        })
      : openStore(cluster.url, { poolSize: 6, connectTimeoutMs: 1000 })
    const run = await underLoad(store, 'restart', () => cluster!.restart())
    expectRidden(run)
  }, 90_000)
})

describe.skipIf(!postgres || !!PG_CLUSTER_MISSING || !!PGBOUNCER_MISSING)(
  'a failover to a promoted replica under load, behind PgBouncer',
  () => {
    let primary: PgCluster | undefined
    let replica: PgReplica | undefined
    let bouncer: PgBouncer | undefined
    afterAll(async () => {
      await bouncer?.stop()
      replica?.destroy()
      primary?.destroy()
    })

    it('answers every write 201 or 503, serves within 5 s of the promotion, loses no acknowledged write, and completes the batch job', async () => {
      primary = await startPgCluster({ synchronousCommit: true })
      replica = await startPgReplica(primary, { synchronousCommit: true })
      // Synchronous replication: a commit is acknowledged once the replica has it, so the failover loses none.
      const admin = new pg.Client({ connectionString: primary.url })
      admin.on('error', () => {})
      await admin.connect()
      await admin.query(`alter system set synchronous_standby_names = '*'`)
      await admin.query('select pg_reload_conf()')
      await admin.end()
      bouncer = await startPgBouncer({ poolMode: 'transaction', target: primary.url })
      // No listen URL: it would name the primary that goes away; the nodes poll instead.
      const store = openStore(bouncer.urlFor(primary.url), {
        poolSize: 6,
        connectTimeoutMs: 1000,
        pooling: 'transaction',
      })
      let promotedAfter = 0
      const run = await underLoad(store, 'failover', async () => {
        const started = Date.now()
        // The primary fails (no shutdown checkpoint, connections cut), the replica takes over, the pooler follows it.
        await primary!.stop('immediate')
        await replica!.promote()
        await bouncer!.retarget(replica!.url)
        promotedAfter = Date.now() - started
      })
      expectRidden(run)
      expect(run.slowest).toBeLessThan(5000)
      console.log(
        `failover: ${run.statuses.length} writes, ${run.statuses.filter((s) => s === 503).length} answered 503, ` +
          `${run.acknowledged.length} acknowledged and stored; primary stopped to pooler repointed in ${promotedAfter} ms; ` +
          `first success ${run.firstSuccessAfter} ms after; slowest answer ${run.slowest} ms`,
      )
    }, 120_000)
  },
)

describe.skipIf(postgres)('a SQLite file whose write lock another process holds', () => {
  let dir: string | undefined
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('answers writes 503 with Retry-After in each envelope past the busy timeout, then serves once the lock is let go', async () => {
    dir = mkdtempSync(join(tmpdir(), 'bulwark-busy-'))
    const file = join(dir, 'bulwark.db')
    const store = openStore(`sqlite:${file}`, { busyTimeoutMs: 200 })
    await prepareDatabase(store)
    await createOwner(store.db, { name: 'Busy Org', type: 'Organization' }, isoNow())
    await createAccount(
      store.db,
      { userName: 'busy-admin', kind: 'api', organization: 'Busy Org', role: 'Organization Administrator' },
      isoNow(),
    )
    const token = (await issueApiToken(store.db, 'busy-admin', {}, Date.now())).token
    const services = createServices(store, { serverKey: 'test-server-key', publicUrl: 'https://bulwark.test' })
    const app = await buildApp({ store, services, trustedProxies: ['127.0.0.1'], logLevel: false })
    opened.push({ store, app })
    const headers = { ...https, authorization: `TC-Token ${token}` }
    const create = (n: number) =>
      app.inject({
        method: 'POST',
        url: '/api/v3/indicators',
        payload: { type: 'Host', hostName: `busy-${n}.example` },
        headers,
      })
    const createV2 = (n: number) =>
      app.inject({
        method: 'POST',
        url: '/api/v2/indicators/hosts',
        payload: { hostName: `busy-v2-${n}.example` },
        headers,
      })
    expect((await create(0)).statusCode).toBe(201)

    // Another process's connection to the same file, holding the write lock in an open transaction.
    const other = new SqliteDatabase(file)
    other.pragma('busy_timeout = 0')
    other.exec('begin immediate')
    try {
      const started = Date.now()
      const [v3Answer, v2Answer] = [await create(1), await createV2(1)]
      expectTryLater(v3Answer)
      expect(v3Answer.json()).toEqual({
        errCode: '0x1001',
        message: 'The database is not answering; try again shortly',
        status: 'Error',
      })
      expectTryLater(v2Answer)
      expect(v2Answer.json()).toEqual({ status: 'Error', message: 'The database is not answering; try again shortly' })
      // Each waited for the busy timeout, not for ever.
      expect(Date.now() - started).toBeLessThan(3000)
      // Reads go on meanwhile (WAL: readers do not wait for the writer).
      expect((await app.inject({ url: '/api/v3/indicators', headers })).statusCode).toBe(200)
    } finally {
      other.exec('rollback')
      other.close()
    }
    expect((await create(2)).statusCode).toBe(201)
    expect((await createV2(2)).statusCode).toBe(201)
    const stored = await store.db.selectFrom('indicator').select('summary').where('summary', 'like', 'busy-%').execute()
    expect(stored.map((r) => r.summary).sort()).toEqual(['busy-0.example', 'busy-2.example', 'busy-v2-2.example'])
  }, 30_000)
})

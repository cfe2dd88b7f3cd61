/**
 * Read replicas as operators run them (docs/scale-out.md, "Read replicas"): a primary cluster and a
 * streaming replica made with pg_basebackup, each on its own loopback port. Read requests are served
 * by the replica; a caller reads its own writes at once; a stopped replica is bypassed with no error
 * answer; a replica whose replay is paused is bypassed for the callers who wrote, and for every caller
 * once it lags beyond the bound. PostgreSQL only; skipped without Debian's PostgreSQL binaries.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from './app.js'
import { prepareDatabase } from './bootstrap.js'
import { createAccount, createOwner, issueApiToken } from './domain/access/accounts.js'
import { type Services, createServices } from './domain/services.js'
import { exportCommand } from './cli/commands/export.js'
import { createMetrics } from './protocols/http/metrics.js'
import { isoNow } from './core/time.js'
import { type Store, openStore } from './store/connect.js'
import { ReadReplicas, withReadReplicas } from './store/replicas.js'
import { TEST_DB } from './test/harness.js'
import {
  PG_CLUSTER_MISSING,
  type PgCluster,
  type PgReplica,
  startPgCluster,
  startPgReplica,
} from './test/pg-cluster.js'
import { BINDING_REQUEST_HEADERS, basic, pollRequest, readXml } from './test/taxii11-client.js'

const MAX_LAG_MS = 500

describe.skipIf(TEST_DB !== 'postgres' || !!PG_CLUSTER_MISSING)('read replicas', () => {
  let primary: PgCluster
  let replica: PgReplica
  let store: Store
  let routing: ReadReplicas
  let app: FastifyInstance
  let services: Services
  let onReplica: pg.Client
  const tokens: Record<string, string> = {}

  beforeAll(async () => {
    primary = await startPgCluster({ synchronousCommit: true })
    const setup = openStore(primary.url, { poolSize: 2 })
    await prepareDatabase(setup)
    await createOwner(setup.db, { name: 'Replica Org', type: 'Organization' }, isoNow())
    for (const name of ['writer', 'reader', 'other']) {
      await createAccount(
        setup.db,
        { userName: name, kind: 'api', organization: 'Replica Org', role: 'Organization Administrator' },
        isoNow(),
      )
      tokens[name] = (await issueApiToken(setup.db, name, {}, Date.now())).token
    }
    await createAccount(
      setup.db,
      { userName: 'taxii-reader', kind: 'taxii', organization: 'Replica Org', password: 'a-taxii-password-1' },
      isoNow(),
    )
    await setup.close()
    replica = await startPgReplica(primary, { synchronousCommit: true, logStatements: true })
    store = withReadReplicas(openStore(primary.url, { poolSize: 6, connectTimeoutMs: 1000 }), {
      urls: [replica.url],
      maxLagMs: MAX_LAG_MS,
      waitMs: 20,
      checkEveryMs: 50,
      poolSize: 6,
    })
    routing = store.replicas as ReadReplicas
    services = createServices(store, { serverKey: 'test-server-key', publicUrl: 'https://bulwark.test' })
    app = await buildApp({ store, services, trustedProxies: ['127.0.0.1'], logLevel: false })
    onReplica = await connectTo(replica.url)
    await until(() => routing.replicas[0]!.up, 'the replica to be checked')
  }, 60_000)

  afterAll(async () => {
    await onReplica?.end().catch(() => {})
    await app?.close()
    await store?.close()
    replica?.destroy()
    primary?.destroy()
  })

  const headers = (who: string) => ({ 'x-forwarded-proto': 'https', authorization: `TC-Token ${tokens[who]}` })
  const createHost = (who: string, hostName: string) =>
    app.inject({
      method: 'POST',
      url: '/api/v3/indicators',
      payload: { type: 'Host', hostName },
      headers: headers(who),
    })
  const findHost = async (who: string, hostName: string): Promise<number[]> => {
    const tql = encodeURIComponent(`summary = "${hostName}"`)
    const res = await app.inject({ url: `/api/v3/indicators?tql=${tql}`, headers: headers(who) })
    expect(res.statusCode).toBe(200)
    return (res.json().data as { id: number }[]).map((i) => i.id)
  }
  const counters = () => ({ ...routing.counters })

  it('serves listings, TQL, v2, TAXII 2.1 and TAXII 1.1 reads from the replica', async () => {
    expect((await createHost('other', 'seen-by-all.example')).statusCode).toBe(201)
    await until(async () => (await findHost('reader', 'seen-by-all.example')).length === 1, 'the row on the replica')
    const before = counters()
    const replicaLogStart = statSync(replica.logFile).size
    const answers = await Promise.all([
      app.inject({ url: '/api/v3/indicators?resultLimit=5', headers: headers('reader') }),
      app.inject({
        url: `/api/v3/indicators?tql=${encodeURIComponent('summary startswith "seen"')}`,
        headers: headers('reader'),
      }),
      app.inject({ url: '/api/v2/indicators/hosts', headers: headers('reader') }),
      app.inject({
        url: '/api/services/taxii/v1/svc_taxii/collections/',
        headers: {
          'x-forwarded-proto': 'https',
          authorization: `Bearer ${tokens.reader}`,
          accept: 'application/taxii+json;version=2.1',
        },
      }),
      app.inject({
        method: 'POST',
        url: '/api/taxii/poll/',
        payload: pollRequest(
          'p-1',
          'Replica Org',
          new Date(Date.now() - 3_600_000).toISOString(),
          new Date(Date.now() + 60_000).toISOString(),
        ),
        headers: { ...BINDING_REQUEST_HEADERS, 'x-forwarded-proto': 'https', authorization: basic(taxiiCaller) },
      }),
    ])
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200, 200])
    expect(answers[1]!.json().data).toHaveLength(1)
    expect(answers[2]!.json().data.host.map((h: { summary: string }) => h.summary)).toContain('seen-by-all.example')
    expect(readXml(answers[4]!.body).Poll_Response).toBeDefined()
    expect(counters().replica - before.replica).toBe(5)
    // The replica itself ran the listing's statements: its own log shows them.
    const replicaRan = () => readFileSync(replica.logFile).subarray(replicaLogStart).toString('utf8')
    await until(() => /from "indicator"/i.test(replicaRan()), 'the listing in the replica log')
  })

  it('exports from the replica (bulwark export)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bulwark-replica-export-'))
    try {
      const before = counters()
      const output = join(dir, 'export.json')
      const result = await exportCommand(store, services, { owner: 'Replica Org', output, userName: 'reader' })
      expect(result.count).toBeGreaterThan(0)
      expect(readFileSync(output, 'utf8')).toContain('seen-by-all.example')
      expect(counters().replica).toBe(before.replica + 1)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('lets a caller read its own write at once, every time', async () => {
    const before = counters()
    const misses: number[] = []
    const ROUNDS = 200
    for (let i = 0; i < ROUNDS; i++) {
      const hostName = `ryw-${i}.example`
      const created = await createHost('writer', hostName)
      expect(created.statusCode).toBe(201)
      if ((await findHost('writer', hostName)).length !== 1) misses.push(i)
    }
    expect(misses).toEqual([])
    const after = counters()
    const onReplicaAfterWait = after.replica + after.replicaAfterWait - before.replica - before.replicaAfterWait
    const onPrimary = after.primaryForOwnWrite - before.primaryForOwnWrite
    expect(onReplicaAfterWait + onPrimary).toBe(ROUNDS)
    // Most reads still reach the replica: it replays a commit within milliseconds.
    expect(onReplicaAfterWait).toBeGreaterThan(ROUNDS / 2)
    const waited = after.replicaAfterWait - before.replicaAfterWait
    console.log(
      `read-your-writes: ${ROUNDS} write-then-read rounds, ${onReplicaAfterWait} read on the replica ` +
        `(${waited} of them after waiting for its replay), ${onPrimary} on the primary`,
    )
  }, 60_000)

  it("carries a write's position to another node: a caller reads its own write there when it brings it back", async () => {
    // A second node over the same primary and replica, as behind a load balancer.
    const otherStore = withReadReplicas(openStore(primary.url, { poolSize: 4, connectTimeoutMs: 1000 }), {
      urls: [replica.url],
      maxLagMs: MAX_LAG_MS,
      waitMs: 20,
      checkEveryMs: 50,
      poolSize: 4,
    })
    const services = createServices(otherStore, { serverKey: 'test-server-key', publicUrl: 'https://bulwark.test' })
    const other = await buildApp({ store: otherStore, services, trustedProxies: ['127.0.0.1'], logLevel: false })
    try {
      await until(() => (otherStore.replicas as ReadReplicas).replicas[0]!.up, 'the replica to be checked')
      const ROUNDS = 100
      let carried = 0
      let bare = 0
      for (let i = 0; i < ROUNDS; i++) {
        for (const bringsIt of [true, false]) {
          const hostName = `cross-${bringsIt ? 'carried' : 'bare'}-${i}.example`
          const created = await createHost('writer', hostName)
          expect(created.statusCode).toBe(201)
          const position = created.headers['bulwark-wal-position'] as string
          expect(position).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/)
          expect(String(created.headers['set-cookie'])).toContain(
            `bulwark-wal-position=${position}; Path=/api; HttpOnly; Secure`,
          )
          const tql = encodeURIComponent(`summary = "${hostName}"`)
          const res = await other.inject({
            url: `/api/v3/indicators?tql=${tql}`,
            headers: { ...headers('writer'), ...(bringsIt ? { cookie: `bulwark-wal-position=${position}` } : {}) },
          })
          expect(res.statusCode).toBe(200)
          if (res.json().data.length !== 1) bringsIt ? carried++ : bare++
        }
      }
      expect(carried).toBe(0)
      console.log(
        `across two nodes: ${ROUNDS} writes read at once on the other node, ${carried} missed with the position carried, ${bare} missed without it`,
      )
      // A read answer names no position: nothing was written.
      const read = await app.inject({ url: '/api/v3/indicators', headers: headers('writer') })
      expect(read.headers['bulwark-wal-position']).toBeUndefined()
    } finally {
      await other.close()
      await otherStore.close()
    }
  }, 60_000)

  it('bypasses a stopped replica with no error answer, and reads from it again once it is back', async () => {
    // A second node whose health check will not run again: only the retry of a failed statement can save its reads.
    const uncheckedStore = withReadReplicas(openStore(primary.url, { poolSize: 4, connectTimeoutMs: 1000 }), {
      urls: [replica.url],
      maxLagMs: MAX_LAG_MS,
      checkEveryMs: 600_000,
      poolSize: 4,
    })
    const unchecked = uncheckedStore.replicas as ReadReplicas
    const services = createServices(uncheckedStore, { serverKey: 'test-server-key', publicUrl: 'https://bulwark.test' })
    const uncheckedApp = await buildApp({
      store: uncheckedStore,
      services,
      trustedProxies: ['127.0.0.1'],
      logLevel: false,
    })
    try {
      await until(() => unchecked.replicas[0]!.up, 'the replica to be checked')
      expect((await uncheckedApp.inject({ url: '/api/v3/indicators', headers: headers('reader') })).statusCode).toBe(
        200,
      )
      expect(unchecked.counters.replica).toBe(1)

      const before = counters()
      const list = (node: FastifyInstance) =>
        node.inject({ url: '/api/v3/indicators?resultLimit=5', headers: headers('reader') })
      // Reads in flight on both nodes while the replica stops, and after.
      const load = Promise.all(
        Array.from({ length: 60 }, async (_, i) => {
          await new Promise((resolve) => setTimeout(resolve, i * 10))
          return [(await list(app)).statusCode, (await list(uncheckedApp)).statusCode]
        }),
      )
      await new Promise((resolve) => setTimeout(resolve, 100))
      await replica.stop()
      const statuses = (await load).flat()
      expect(statuses.filter((s) => s !== 200)).toEqual([])
      expect(statuses).toHaveLength(120)
      expect(routing.replicas[0]!.up).toBe(false)
      expect(unchecked.replicas[0]!.up).toBe(false)
      // The unchecked node found the replica gone by a failed statement, ran it on the primary, then bypassed it.
      expect(unchecked.counters.retriedOnPrimary).toBeGreaterThanOrEqual(1)
      expect(unchecked.counters.primaryNoReplica).toBeGreaterThan(0)
      const during = counters()
      console.log(
        `replica stopped under load: 120 listings answered 200; checked node: ${during.retriedOnPrimary - before.retriedOnPrimary} ` +
          `statements retried on the primary, ${during.primaryNoReplica - before.primaryNoReplica} requests sent to the primary; ` +
          `unchecked node: ${unchecked.counters.retriedOnPrimary} retried, ${unchecked.counters.primaryNoReplica} sent to the primary`,
      )
    } finally {
      await uncheckedApp.close()
      await uncheckedStore.close()
    }
    await replica.start()
    await onReplica.end().catch(() => {})
    onReplica = await connectTo(replica.url)
    await until(() => routing.replicas[0]!.up, 'the replica to be back')
    const back = counters().replica
    expect((await app.inject({ url: '/api/v3/indicators', headers: headers('reader') })).statusCode).toBe(200)
    expect(counters().replica).toBe(back + 1)
  }, 60_000)

  it('bypasses a replica whose replay is paused: at once for a caller who wrote, beyond the lag bound for everyone', async () => {
    await onReplica.query('select pg_wal_replay_pause()')
    try {
      const before = counters()
      const created = await createHost('writer', 'while-paused.example')
      expect(created.statusCode).toBe(201)
      // The writer reads its write from the primary, after a bounded wait for the replica.
      const started = Date.now()
      expect(await findHost('writer', 'while-paused.example')).toHaveLength(1)
      expect(Date.now() - started).toBeLessThan(1000)
      expect(counters().primaryForOwnWrite).toBe(before.primaryForOwnWrite + 1)
      // Another caller, within the bound, is served by the replica: it has not seen the write yet.
      expect(await findHost('reader', 'while-paused.example')).toEqual([])
      // Beyond the bound the replica is bypassed for every caller.
      await new Promise((resolve) => setTimeout(resolve, MAX_LAG_MS + 200))
      expect(routing.replicas[0]!.lagMs).toBeGreaterThan(MAX_LAG_MS)
      expect(await findHost('reader', 'while-paused.example')).toHaveLength(1)
      expect(counters().primaryNoReplica).toBeGreaterThan(before.primaryNoReplica)
    } finally {
      await onReplica.query('select pg_wal_replay_resume()')
    }
    await until(() => routing.replicas[0]!.lagMs === 0, 'the replica to catch up')
    const back = counters().replica
    expect(await findHost('reader', 'while-paused.example')).toHaveLength(1)
    expect(counters().replica).toBe(back + 1)
    // What an operator's scraper sees.
    const text = await createMetrics(store).registry.metrics()
    expect(text).toContain(`bulwark_db_replica_up{replica="127.0.0.1:${replica.port}"} 1`)
    expect(text).toContain(`bulwark_db_replica_lag_seconds{replica="127.0.0.1:${replica.port}"} 0`)
    expect(text).toMatch(/bulwark_db_read_requests\{read="primary_own_write"\} [1-9]/)
  }, 30_000)

  it('measures listing throughput on the primary against the replica (a figure, not a bound)', async () => {
    const figures: string[] = []
    for (let round = 0; round < 3; round++) {
      for (const [target, node] of [
        ['primary', primaryOnly],
        ['replica', app],
      ] as const) {
        const started = Date.now()
        await Promise.all(
          Array.from({ length: 10 }, async () => {
            for (let i = 0; i < 20; i++) {
              const res = await node.inject({ url: '/api/v3/indicators?resultLimit=100', headers: headers('reader') })
              expect(res.statusCode).toBe(200)
            }
          }),
        )
        figures.push(`${target} ${Math.round(200_000 / (Date.now() - started))}/s`)
      }
    }
    console.log(`v3 listing (resultLimit=100), 10 in flight, 200 requests a run: ${figures.join(', ')}`)
  }, 60_000)

  let primaryOnly: FastifyInstance
  let primaryStore: Store
  beforeAll(async () => {
    primaryStore = openStore(primary.url, { poolSize: 6 })
    const services = createServices(primaryStore, { serverKey: 'test-server-key', publicUrl: 'https://bulwark.test' })
    primaryOnly = await buildApp({ store: primaryStore, services, trustedProxies: ['127.0.0.1'], logLevel: false })
  })
  afterAll(async () => {
    await primaryOnly?.close()
    await primaryStore?.close()
  })
})

const taxiiCaller = { userName: 'taxii-reader', password: 'a-taxii-password-1' }

/** A client of the test's own, which the replica's stop must not turn into an uncaught error. */
async function connectTo(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url })
  client.on('error', () => {})
  await client.connect()
  return client
}

async function until(condition: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (await condition()) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error(`timed out waiting for ${what}`)
}

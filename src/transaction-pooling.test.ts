/**
 * Bulwark behind PgBouncer 1.18 in transaction mode (BULWARK_DB_POOLING=transaction): two nodes
 * start at once through it (migrations, reference data and first start serialized by
 * transaction-scoped locks), then serve reads, writes and batch jobs concurrently with no error,
 * though their twenty client connections share four server connections. PostgreSQL only; skipped
 * when PgBouncer is not installed.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from './app.js'
import { ensureFirstStart, prepareDatabase } from './bootstrap.js'
import { loadConfig } from './config.js'
import { issueApiToken } from './domain/access/accounts.js'
import { createServices, type Services } from './domain/services.js'
import { type Store, openStore } from './store/connect.js'
import { TEST_DB, createDatabase } from './test/harness.js'
import { PGBOUNCER_MISSING, type PgBouncer, startPgBouncer } from './test/pgbouncer.js'
import { type BatchWorkerHandle, startBatchWorker } from './worker/batch-worker.js'

const skip = TEST_DB !== 'postgres' || !!PGBOUNCER_MISSING
if (TEST_DB === 'postgres' && PGBOUNCER_MISSING) console.warn(PGBOUNCER_MISSING)

interface Node {
  store: Store
  services: Services
  app: FastifyInstance
  worker: BatchWorkerHandle
}

let bouncer: PgBouncer
let database: { url: string; drop(): Promise<void> }
let pooledUrl: string
let dataDir: string
const nodes: Node[] = []
let token: string

async function startNode(): Promise<Node> {
  const store = openStore(pooledUrl, { poolSize: 10, pooling: 'transaction' })
  await prepareDatabase(store)
  const config = loadConfig({ BULWARK_DATA_DIR: dataDir, BULWARK_DATABASE_URL: pooledUrl })
  const services = createServices(store, { serverKey: 'pooled-key', publicUrl: 'https://bulwark.test' })
  await ensureFirstStart(store, config, services.secretBox)
  const app = await buildApp({ store, services, trustedProxies: ['127.0.0.1'], logLevel: false })
  const worker = startBatchWorker(store, services, { pollMs: 100 })
  return { store, services, app, worker }
}

beforeAll(async () => {
  if (skip) return
  bouncer = await startPgBouncer({ poolMode: 'transaction', poolSize: 4 })
  database = await createDatabase()
  pooledUrl = bouncer.urlFor(database.url)
  dataDir = mkdtempSync(join(tmpdir(), 'bulwark-pooled-'))
  // Both at once: the migration and first-start locks must hold through the pooler.
  nodes.push(...(await Promise.all([startNode(), startNode()])))
  token = (await issueApiToken(nodes[0].store.db, 'admin-api', {}, Date.now())).token
}, 60_000)

afterAll(async () => {
  if (skip) return
  for (const node of nodes) {
    await node.worker.stop()
    await node.app.close()
    await node.store.close()
  }
  await database?.drop()
  await bouncer?.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

function call(node: Node, method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) {
  return node.app.inject({
    method: method as 'GET',
    url,
    payload: payload as string,
    headers: { 'x-forwarded-proto': 'https', authorization: `TC-Token ${token}`, ...headers },
  })
}

describe.skipIf(skip)('two nodes behind PgBouncer in transaction mode', () => {
  it('started together: one first start, every migration applied once, no lock left behind', async () => {
    const client = new pg.Client({ connectionString: database.url })
    await client.connect()
    try {
      const owners = await client.query('select name from owner')
      expect(owners.rows.map((r) => r.name)).toEqual(['Default Organization'])
      const applied = await client.query('select name, count(*)::int as n from kysely_migration group by name')
      expect(applied.rows.every((r) => r.n === 1)).toBe(true)
      expect(applied.rows.length).toBeGreaterThan(10)
      const locks = await client.query(
        `select count(*)::int as n from pg_locks l join pg_database d on d.oid = l.database
         where l.locktype = 'advisory' and d.datname = current_database()`,
      )
      expect(locks.rows[0].n).toBe(0)
    } finally {
      await client.end()
    }
  })

  it('serve concurrent reads, writes, TQL and batch jobs on both nodes with no error', async () => {
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(nodes[i % 2], 'POST', '/api/v3/indicators', { type: 'Host', hostName: `pooled-${i}.example`, rating: 3 }),
      ),
    )
    expect(created.map((r) => r.statusCode)).toEqual(created.map(() => 201))
    const ids = created.map((r) => r.json().data.id as number)

    const queueJob = async (node: Node, prefix: string) => {
      const job = await call(node, 'POST', '/api/v2/batch', {
        owner: 'Default Organization',
        haltOnError: false,
        action: 'Create',
        attributeWriteType: 'Append',
      })
      expect(job.statusCode).toBe(201)
      const id = job.json().data.batchId as number
      const hosts = Array.from({ length: 300 }, (_, i) => ({ type: 'Host', summary: `${prefix}${i}.example` }))
      const upload = await call(node, 'POST', `/api/v2/batch/${id}`, JSON.stringify({ indicator: hosts }), {
        'content-type': 'application/octet-stream',
      })
      expect(upload.statusCode).toBe(202)
      return id
    }

    const statuses: number[] = []
    const failures: string[] = []
    const record = (label: string, res: { statusCode: number; body: string }) => {
      statuses.push(res.statusCode)
      if (res.statusCode >= 400) failures.push(`${label} → ${res.statusCode} ${res.body.slice(0, 200)}`)
    }
    const load = Array.from({ length: 400 }, async (_, i) => {
      const node = nodes[i % 2]
      const id = ids[i % ids.length]
      switch (i % 8) {
        case 0:
        case 1:
        case 2:
          return record(`GET v3 ${id}`, await call(node, 'GET', `/api/v3/indicators/${id}?fields=tags`))
        case 3:
          return record('list v3', await call(node, 'GET', '/api/v3/indicators?resultLimit=10'))
        case 4:
          return record(
            'tql',
            await call(node, 'GET', `/api/v3/indicators?tql=${encodeURIComponent('rating >= 3')}&resultLimit=5`),
          )
        case 5:
          return record('list v2', await call(node, 'GET', '/api/v2/indicators/hosts?resultLimit=5'))
        case 6:
          return record(
            `update ${id}`,
            await call(node, 'PUT', `/api/v3/indicators/${id}`, {
              rating: 1 + (i % 5),
              tags: { data: [{ name: 't' }] },
            }),
          )
        default:
          return record('owners', await call(node, 'GET', '/api/v2/owners'))
      }
    })
    const jobs = [queueJob(nodes[0], 'job-a-'), queueJob(nodes[1], 'job-b-')]
    await Promise.all(load)
    const jobIds = await Promise.all(jobs)
    expect(failures).toEqual([])
    expect(statuses).toHaveLength(400)

    for (const id of jobIds) {
      const deadline = Date.now() + 30_000
      let status = ''
      while (Date.now() < deadline) {
        const res = await call(nodes[1], 'GET', `/api/v2/batch/${id}`)
        status = res.json().data.batchStatus.status
        if (status === 'Completed') break
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      expect(status).toBe('Completed')
      const done = (await call(nodes[0], 'GET', `/api/v2/batch/${id}`)).json().data.batchStatus
      expect(done).toMatchObject({ successCount: 300, errorCount: 0 })
    }
    const tql = encodeURIComponent('summary startswith "job-"')
    const listed = await call(nodes[0], 'GET', `/api/v3/indicators?tql=${tql}&resultLimit=1&count=true`)
    expect(listed.json().count).toBe(600)
  }, 120_000)

  it('would fail with named statements: the same reads through the pooler in session mode collide', async () => {
    // The control: the default (named prepared statements) over this very pooler.
    const store = openStore(pooledUrl, { poolSize: 10 })
    try {
      const services = createServices(store, { serverKey: 'pooled-key', publicUrl: 'https://bulwark.test' })
      const app = await buildApp({ store, services, trustedProxies: ['127.0.0.1'], logLevel: false })
      const node = { store, services, app } as Node
      const answers = await Promise.all(
        Array.from({ length: 100 }, () => call(node, 'GET', '/api/v2/owners').then((r) => r.statusCode)),
      )
      expect(answers.filter((s) => s !== 200).length).toBeGreaterThan(0)
      await app.close()
    } finally {
      await store.close()
    }
  }, 60_000)
})

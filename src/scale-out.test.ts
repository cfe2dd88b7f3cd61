/**
 * Several nodes over one database behave as one service: what one node writes, another
 * serves; credentials, settings and account state are shared through the database.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { prepareDatabase } from './bootstrap.js'
import { createAccessKey, createAccount, createOwner, issueApiToken, setAccountDisabled } from './domain/access/accounts.js'
import { signRequest } from './domain/access/credentials.js'
import { createServices, type Services } from './domain/services.js'
import { isoNow } from './domain/time.js'
import { buildApp } from './protocols/http/server.js'
import { type Store, openStore } from './store/connect.js'
import { CREDENTIAL_CACHE_MS } from './store/credential-cache.js'
import { TEST_DB, createDatabase } from './test/harness.js'

interface Node { store: Store; services: Services; app: FastifyInstance }

let nodes: Node[] = []
let cleanup: () => Promise<void>
let token: string
let key: { accessId: string; secretKey: string }

async function startNode(url: string): Promise<Node> {
  const store = openStore(url)
  await prepareDatabase(store)
  const services = createServices(store, { serverKey: 'shared-key', publicUrl: 'https://bulwark.test' })
  const app = await buildApp({ store, services, trustedProxies: ['127.0.0.1'], logLevel: false })
  return { store, services, app }
}

function call(node: Node, method: 'GET' | 'POST', url: string, payload?: object, auth = `TC-Token ${token}`) {
  return node.app.inject({ method, url, payload, headers: { 'x-forwarded-proto': 'https', authorization: auth } })
}

beforeAll(async () => {
  let url: string
  if (TEST_DB === 'postgres') {
    const database = await createDatabase()
    url = database.url
    cleanup = database.drop
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'bulwark-nodes-'))
    url = `sqlite:${join(dir, 'shared.db')}`
    cleanup = async () => rmSync(dir, { recursive: true, force: true })
  }
  nodes = [await startNode(url), await startNode(url)]
  const db = nodes[0].store.db
  await createOwner(db, { name: 'Shared Org', type: 'Organization' }, isoNow())
  await createAccount(db, { userName: 'analyst', kind: 'api', organization: 'Shared Org', role: 'Standard User' }, isoNow())
  token = (await issueApiToken(db, 'analyst', {}, Date.now())).token
  key = await createAccessKey(db, nodes[0].services.secretBox, 'analyst', isoNow())
})

afterAll(async () => {
  for (const node of nodes) {
    await node.app.close()
    await node.store.close()
  }
  await cleanup()
})

describe('two nodes over one database', () => {
  it('serve from one node what the other wrote', async () => {
    const created = await call(nodes[0], 'POST', '/api/v2/indicators/hosts', { hostName: 'shared.example', rating: 3 })
    expect(created.statusCode).toBe(201)
    const read = await call(nodes[1], 'GET', '/api/v2/indicators/hosts/shared.example')
    expect(read.statusCode).toBe(200)
    expect(read.json().data.host).toMatchObject({ summary: 'shared.example', rating: 3 })
  })

  it('verify on one node a signature made with a key created through the other', async () => {
    const ts = String(Math.floor(Date.now() / 1000))
    const auth = `TC ${key.accessId}:${signRequest(key.secretKey, '/api/v2/owners', 'GET', ts)}`
    const res = await nodes[1].app.inject({ method: 'GET', url: '/api/v2/owners', headers: { 'x-forwarded-proto': 'https', authorization: auth, timestamp: ts } })
    expect(res.statusCode).toBe(200)
  })

  it('see a setting changed through the other node within a second', async () => {
    expect(await nodes[1].services.settings.get('bulkDeleteEnabled')).toBe(false)
    await nodes[0].services.settings.set('bulkDeleteEnabled', 'true')
    await new Promise((resolve) => setTimeout(resolve, 1100))
    expect(await nodes[1].services.settings.get('bulkDeleteEnabled')).toBe(true)
  })

  it('refuse an account disabled through the other node at once when the write is made in this process', async () => {
    expect((await call(nodes[1], 'GET', '/api/v2/owners')).statusCode).toBe(200)
    await setAccountDisabled(nodes[0].store.db, 'analyst', true, isoNow())
    expect((await call(nodes[1], 'GET', '/api/v2/owners')).statusCode).toBe(401)
    await setAccountDisabled(nodes[0].store.db, 'analyst', false, isoNow())
  })

  it('refuse an account disabled by another process within the cache bound of one second, not before the cache says so', async () => {
    expect((await call(nodes[1], 'GET', '/api/v2/owners')).statusCode).toBe(200)
    // A handle without the cache-emptying plugin writes as another process would: unseen here.
    const elsewhere = nodes[0].store.db.withoutPlugins()
    await setAccountDisabled(elsewhere, 'analyst', true, isoNow())
    try {
      expect((await call(nodes[1], 'GET', '/api/v2/owners')).statusCode).toBe(200)
      await new Promise((resolve) => setTimeout(resolve, CREDENTIAL_CACHE_MS + 100))
      expect((await call(nodes[1], 'GET', '/api/v2/owners')).statusCode).toBe(401)
    } finally {
      await setAccountDisabled(nodes[0].store.db, 'analyst', false, isoNow())
    }
  })
})

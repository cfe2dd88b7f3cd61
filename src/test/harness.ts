/**
 * A fresh Bulwark per test file: a migrated database (in-memory SQLite, or a new
 * PostgreSQL database when BULWARK_TEST_DB=postgres), the HTTP app, an Organization with an
 * administrator, and helpers to make more accounts and send authenticated requests.
 * Requests go through app.inject with X-Forwarded-Proto: https from a trusted proxy.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { type AddressInfo, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { sql } from 'kysely'
import pg from 'pg'
import { prepareDatabase } from '../bootstrap.js'
import { createAccessKey, createAccount, createOwner, issueApiToken, setMembership } from '../domain/access/accounts.js'
import { authenticate } from '../domain/access/authentication.js'
import type { RequestContext } from '../domain/context.js'
import { selectOwner } from '../domain/access/owner-scope.js'
import { signRequest } from '../domain/access/credentials.js'
import { createServices, type Services } from '../domain/services.js'
import { isoNow } from '../core/time.js'
import { type AppOptions, buildApp } from '../app.js'
import { type TlsMaterial, loadTlsMaterial } from '../protocols/http/tls.js'
import { type Store, openStore } from '../store/connect.js'

export const TEST_DB = (process.env.BULWARK_TEST_DB ?? 'sqlite') as 'sqlite' | 'postgres'
export const POSTGRES_ADMIN_URL = process.env.BULWARK_TEST_POSTGRES_URL ?? 'postgres://root@127.0.0.1:5432/test'
export const PUBLIC_URL = 'https://bulwark.test'
export const ORG = 'Test Organization'

export interface TestAccount {
  userName: string
  token: string
  accessId?: string
  secretKey?: string
}

export interface TestRequest extends Omit<InjectOptions, 'headers'> {
  headers?: Record<string, string>
  /** Whose token to send; `null` sends no Authorization header. Default: the administrator. */
  as?: TestAccount | null
  /** Sign with the account's access id and secret key instead of its token. */
  hmac?: boolean
}

export interface TestApp {
  app: FastifyInstance
  /** Where a real client reaches the app (only served when created with `listen`). */
  baseUrl: string
  store: Store
  services: Services
  admin: TestAccount
  request(options: TestRequest): Promise<LightMyRequestResponse>
  /** Creates an account with an Organization role (in ORG) and optional extra memberships. */
  createAccount(options: {
    kind?: 'api' | 'human' | 'taxii'
    role?: string
    memberships?: Record<string, string>
    password?: string
  }): Promise<TestAccount>
  createOwner(name: string, type: 'Organization' | 'Community' | 'Source'): Promise<number>
  /** A RequestContext for domain-level tests, as the REST gate would build it. */
  context(account?: TestAccount, ownerName?: string): Promise<RequestContext>
  close(): Promise<void>
}

/** A new, empty PostgreSQL database for one test file. */
export async function createDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `bulwark_t_${process.pid}_${randomBytes(4).toString('hex')}`
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const url = new URL(POSTGRES_ADMIN_URL)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: POSTGRES_ADMIN_URL })
      await c.connect()
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await c.end()
    },
  }
}

/** PostgreSQL: how many times a table of the store has been vacuumed (by anyone), to see that a vacuum ran. */
export async function vacuumCount(store: Store, table: string): Promise<number> {
  const { rows } = await sql<{
    n: string
  }>`select vacuum_count as n from pg_stat_user_tables where relname = ${table}`.execute(store.db)
  return Number(rows[0]?.n ?? 0)
}

/** A migrated store on the dialect under test, with a cleanup that drops it. */
export async function createTestStore(): Promise<{ store: Store; drop(): Promise<void> }> {
  if (TEST_DB === 'postgres') {
    const database = await createDatabase()
    const store = openStore(database.url)
    await prepareDatabase(store)
    return {
      store,
      drop: async () => {
        await store.close()
        await database.drop()
      },
    }
  }
  // A file, as a node has it: its second, reading connection (store/engine/sqlite-driver.ts) and a batch job's chunks
  // committed together (domain/batch/commit-group.ts) exist only there.
  const dir = mkdtempSync(join(tmpdir(), 'bulwark-test-'))
  const store = openStore(`sqlite:${join(dir, 'bulwark.sqlite')}`)
  await prepareDatabase(store)
  return {
    store,
    drop: async () => {
      await store.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** A migrated store and the domain services over it, as a node has them; drop() removes the store. */
export async function createTestDomain(
  publicUrl = PUBLIC_URL,
): Promise<{ store: Store; services: Services; drop(): Promise<void> }> {
  const { store, drop } = await createTestStore()
  return { store, services: createServices(store, { serverKey: 'test-server-key', publicUrl }), drop }
}

/** One node of a deployment: its own store connection, services and app, over a database other nodes share. */
export interface SharedNode {
  store: Store
  services: Services
  app: FastifyInstance
}

/**
 * Several nodes over one database (a PostgreSQL database of their own, or one SQLite file), each
 * with its own connection and app, as in a scale-out deployment sharing one server key.
 */
export async function startSharedNodes(count: number): Promise<{ nodes: SharedNode[]; close(): Promise<void> }> {
  let url: string
  let dropDatabase: () => Promise<void>
  if (TEST_DB === 'postgres') {
    const database = await createDatabase()
    url = database.url
    dropDatabase = database.drop
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'bulwark-nodes-'))
    url = `sqlite:${join(dir, 'shared.db')}`
    dropDatabase = async () => rmSync(dir, { recursive: true, force: true })
  }
  const nodes: SharedNode[] = []
  for (let i = 0; i < count; i++) {
    const store = openStore(url)
    await prepareDatabase(store)
    const services = createServices(store, { serverKey: 'shared-key', publicUrl: 'https://bulwark.test' })
    nodes.push({
      store,
      services,
      app: await buildApp({ store, services, trustedProxies: ['127.0.0.1'], logLevel: false }),
    })
  }
  return {
    nodes,
    async close() {
      for (const node of nodes) {
        await node.app.close()
        await node.store.close()
      }
      await dropDatabase()
    },
  }
}

let counter = 0

/** A port on 127.0.0.1 that nothing listens on right now. */
export async function freeLoopbackPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

let tls: Promise<TlsMaterial> | undefined
/** One self-signed certificate per test process, made in a temporary folder. */
function testTlsMaterial(): Promise<TlsMaterial> {
  tls ??= loadTlsMaterial({ dataDir: mkdtempSync(join(tmpdir(), 'bulwark-tls-')) })
  return tls
}

export interface TestAppOptions {
  /**
   * Also serve real HTTPS (self-signed) on a loopback port, for clients that are not
   * app.inject: `baseUrl` and the public URL (webLink, next, TAXII addresses) then name it.
   */
  listen?: boolean
  /** TAXII 1.1 poll sizes (Indicators per result part and per Content_Block). */
  taxii11Poll?: AppOptions['taxii11Poll']
  /** The console's build folder, sign-in throttle and session lifetime. */
  console?: AppOptions['console']
}

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const port = options.listen ? await freeLoopbackPort() : undefined
  const baseUrl = port === undefined ? PUBLIC_URL : `https://127.0.0.1:${port}`
  const { store, services, drop } = await createTestDomain(baseUrl)
  const now = isoNow()
  await createOwner(store.db, { name: ORG, type: 'Organization' }, now)

  const makeAccount: TestApp['createAccount'] = async (options) => {
    const kind = options.kind ?? 'api'
    const userName = `${kind}-user-${++counter}-${randomBytes(3).toString('hex')}`
    await createAccount(
      store.db,
      {
        userName,
        kind,
        organization: ORG,
        role: options.role ?? 'Standard User',
        password: options.password,
        firstName: 'Test',
        lastName: `User ${counter}`,
      },
      isoNow(),
    )
    for (const [owner, role] of Object.entries(options.memberships ?? {}))
      await setMembership(store.db, userName, owner, role, isoNow())
    if (kind === 'taxii') return { userName, token: '' }
    const { token } = await issueApiToken(store.db, userName, {}, Date.now())
    if (kind !== 'api') return { userName, token }
    const key = await createAccessKey(store.db, services.secretBox, userName, isoNow())
    return { userName, token, accessId: key.accessId, secretKey: key.secretKey }
  }

  const admin = await makeAccount({ role: 'Organization Administrator' })
  const https = port === undefined ? undefined : await testTlsMaterial()
  const app = await buildApp({
    store,
    services,
    https,
    trustedProxies: ['127.0.0.1'],
    logLevel: false,
    taxii11Poll: options.taxii11Poll,
    console: options.console,
  })
  await app.ready()
  if (port !== undefined) await app.listen({ host: '127.0.0.1', port })

  return {
    app,
    store,
    services,
    admin,
    baseUrl,
    createAccount: makeAccount,
    createOwner: async (name, type) => (await createOwner(store.db, { name, type }, isoNow())).id,
    async context(account = admin, ownerName) {
      const caller = await authenticate(
        services,
        {
          authorization: `TC-Token ${account.token}`,
          timestamp: undefined,
          pathAndQuery: '/',
          method: 'GET',
          nowMs: Date.now(),
        },
        ['token'],
      )
      const membership = selectOwner(caller, ownerName)
      return {
        store,
        services,
        caller,
        membership,
        now: isoNow(),
        owner: { id: membership.ownerId, name: membership.ownerName, type: membership.ownerType },
      }
    },
    request({ as, hmac, headers, ...rest }) {
      const account = as === undefined ? admin : as
      const all: Record<string, string> = { 'x-forwarded-proto': 'https', ...headers }
      if (account && !all.authorization) {
        if (hmac) {
          const timestamp = String(Math.floor(Date.now() / 1000))
          all.timestamp = timestamp
          all.authorization = `TC ${account.accessId}:${signRequest(account.secretKey!, String(rest.url), String(rest.method ?? 'GET'), timestamp)}`
        } else {
          all.authorization = `TC-Token ${account.token}`
        }
      }
      return app.inject({ ...rest, headers: all } as InjectOptions)
    },
    async close() {
      await app.close()
      await drop()
    },
  }
}

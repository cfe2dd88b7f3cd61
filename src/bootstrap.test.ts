import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ensureFirstStart, loadServerKey, prepareDatabase } from './bootstrap.js'
import { type Config, loadConfig } from './config.js'
import { signRequest } from './domain/access/credentials.js'
import type { Services } from './domain/services.js'
import { buildApp } from './app.js'
import type { Store } from './store/connect.js'
import { TEST_DB, createTestDomain } from './test/harness.js'

let dataDir: string
let store: Store
let services: Services
let drop: () => Promise<void>
const dirs: string[] = []

function freshDataDir() {
  const dir = mkdtempSync(join(tmpdir(), 'bulwark-boot-'))
  dirs.push(dir)
  return dir
}

beforeEach(() => {
  dataDir = freshDataDir()
})
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

beforeAll(async () => {
  ;({ store, services, drop } = await createTestDomain())
})
afterAll(async () => {
  await drop()
})

/** Each first-start test begins from a database that has never started (cheaper than a new database). */
function withFreshStore() {
  afterEach(async () => {
    for (const table of ['api_token', 'access_key', 'membership', 'user_account', 'owner'] as const)
      await store.db.deleteFrom(table).execute()
  })
}

/** Calls GET /api/v2/owners through the real app with a token or a signature. */
async function ownersWith(credentials: { token?: string; accessId?: string; secretKey?: string }) {
  const app = await buildApp({ store, services, trustedProxies: ['127.0.0.1'], logLevel: false })
  try {
    const headers: Record<string, string> = { 'x-forwarded-proto': 'https' }
    if (credentials.token) headers.authorization = `TC-Token ${credentials.token}`
    else {
      headers.timestamp = String(Math.floor(Date.now() / 1000))
      headers.authorization = `TC ${credentials.accessId}:${signRequest(credentials.secretKey!, '/api/v2/owners', 'GET', headers.timestamp)}`
    }
    return await app.inject({ method: 'GET', url: '/api/v2/owners', headers })
  } finally {
    await app.close()
  }
}

async function administrators() {
  return store.db
    .selectFrom('user_account as u')
    .innerJoin('membership as m', 'm.user_id', 'u.id')
    .innerJoin('owner as o', 'o.id', 'm.owner_id')
    .select(['u.user_name', 'u.kind', 'u.system_role', 'o.name as owner', 'o.type as owner_type', 'm.role'])
    .execute()
}

describe('ensureFirstStart', () => {
  withFreshStore()

  it('creates the Default Organization and an Organization Administrator API account', async () => {
    const config = loadConfig({ BULWARK_DATA_DIR: dataDir })
    const result = await ensureFirstStart(store, config, services.secretBox)
    expect(result).toEqual({
      organization: 'Default Organization',
      userName: 'admin-api',
      credentialsFile: join(dataDir, 'admin-credentials.json'),
    })
    expect(await store.db.selectFrom('owner').select(['id', 'name', 'type']).execute()).toEqual([
      { id: expect.any(Number), name: 'Default Organization', type: 'Organization' },
    ])
    expect(await administrators()).toEqual([
      {
        user_name: 'admin-api',
        kind: 'api',
        system_role: 'Administrator',
        owner: 'Default Organization',
        owner_type: 'Organization',
        role: 'Organization Administrator',
      },
    ])
  })

  it('writes working credentials to admin-credentials.json, readable by the owner only', async () => {
    const config = loadConfig({ BULWARK_DATA_DIR: dataDir })
    await ensureFirstStart(store, config, services.secretBox)
    const file = join(dataDir, 'admin-credentials.json')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const credentials = JSON.parse(readFileSync(file, 'utf8'))
    expect(Object.keys(credentials).sort()).toEqual(['accessId', 'organization', 'secretKey', 'token', 'userName'])
    expect(credentials).toMatchObject({
      userName: 'admin-api',
      organization: 'Default Organization',
      accessId: expect.stringMatching(/^\d{20}$/),
    })
    const byToken = await ownersWith({ token: credentials.token })
    expect(byToken.statusCode).toBe(200)
    expect(byToken.json()).toEqual({
      status: 'Success',
      data: { resultCount: 1, owner: [{ id: expect.any(Number), name: 'Default Organization', type: 'Organization' }] },
    })
    expect((await ownersWith({ accessId: credentials.accessId, secretKey: credentials.secretKey })).statusCode).toBe(
      200,
    )
    expect((await ownersWith({ accessId: credentials.accessId, secretKey: 'not-the-secret-key' })).statusCode).toBe(401)
  })

  it('gives the administrator exactly the credentials from the environment and writes no file', async () => {
    const config = loadConfig({
      BULWARK_DATA_DIR: dataDir,
      BULWARK_ORGANIZATION: 'Blue Team',
      BULWARK_ADMIN_USER: 'root-api',
      BULWARK_ADMIN_ACCESS_ID: '12345678901234567890',
      BULWARK_ADMIN_SECRET_KEY: 'environment-secret-key-0123456789',
      BULWARK_ADMIN_TOKEN: 'environment-token-0123456789',
    })
    expect(await ensureFirstStart(store, config, services.secretBox)).toEqual({
      organization: 'Blue Team',
      userName: 'root-api',
    })
    expect(existsSync(join(dataDir, 'admin-credentials.json'))).toBe(false)
    expect((await ownersWith({ token: 'environment-token-0123456789' })).json().data.owner).toEqual([
      { id: expect.any(Number), name: 'Blue Team', type: 'Organization' },
    ])
    expect(
      (await ownersWith({ accessId: '12345678901234567890', secretKey: 'environment-secret-key-0123456789' }))
        .statusCode,
    ).toBe(200)
    expect(await administrators()).toMatchObject([{ user_name: 'root-api', role: 'Organization Administrator' }])
  })

  it('does nothing on a later start', async () => {
    const config = loadConfig({ BULWARK_DATA_DIR: dataDir })
    await ensureFirstStart(store, config, services.secretBox)
    const written = readFileSync(join(dataDir, 'admin-credentials.json'), 'utf8')
    expect(await ensureFirstStart(store, config, services.secretBox)).toBeUndefined()
    expect(await ensureFirstStart(store, { ...config, dataDir: freshDataDir() }, services.secretBox)).toBeUndefined()
    expect(readFileSync(join(dataDir, 'admin-credentials.json'), 'utf8')).toBe(written)
    expect(await store.db.selectFrom('owner').select('name').execute()).toHaveLength(1)
    expect(await store.db.selectFrom('user_account').select('user_name').execute()).toHaveLength(1)
    expect(await store.db.selectFrom('api_token').select('id').execute()).toHaveLength(1)
  })

  it.runIf(TEST_DB === 'postgres')('creates one administrator when several nodes start at once', async () => {
    const configs: Config[] = [0, 1, 2].map(() => loadConfig({ BULWARK_DATA_DIR: freshDataDir() }))
    const results = await Promise.all(configs.map((c) => ensureFirstStart(store, c, services.secretBox)))
    expect(results.filter(Boolean)).toHaveLength(1)
    expect(await administrators()).toHaveLength(1)
  })
})

describe('prepareDatabase', () => {
  withFreshStore()

  it('can run again on a prepared database without duplicating reference data', async () => {
    const count = async () => (await store.db.selectFrom('association_type').select('id').execute()).length
    const before = await count()
    expect(before).toBeGreaterThan(0)
    await prepareDatabase(store)
    expect(await count()).toBe(before)
  })
})

describe('loadServerKey', () => {
  it('makes a key file once, readable by the owner only, and reuses it', () => {
    const config = loadConfig({ BULWARK_DATA_DIR: join(dataDir, 'nested') })
    const key = loadServerKey(config)
    expect(Buffer.from(key, 'base64')).toHaveLength(32)
    expect(statSync(join(dataDir, 'nested', 'server.key')).mode & 0o777).toBe(0o600)
    expect(loadServerKey(config)).toBe(key)
  })

  it('prefers BULWARK_SECRET_KEY and then writes nothing', () => {
    expect(loadServerKey(loadConfig({ BULWARK_DATA_DIR: dataDir, BULWARK_SECRET_KEY: 'shared-by-all-nodes' }))).toBe(
      'shared-by-all-nodes',
    )
    expect(existsSync(join(dataDir, 'server.key'))).toBe(false)
  })
})

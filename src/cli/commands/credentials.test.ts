import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAccount, createOwner } from '../../domain/access/accounts.js'
import { authenticate } from '../../domain/access/authentication.js'
import { signRequest } from '../../domain/access/credentials.js'
import type { Services } from '../../domain/services.js'
import { DAY_MS, HOUR_MS, isoNow } from '../../core/time.js'
import type { Store } from '../../store/connect.js'
import { createTestDomain } from '../../test/harness.js'
import { createKeyCommand, revokeKeysCommand } from './keys.js'
import { createTokenCommand, revokeTokensCommand } from './tokens.js'

let store: Store
let services: Services
let drop: () => Promise<void>

beforeAll(async () => {
  ;({ store, services, drop } = await createTestDomain())
  await createOwner(store.db, { name: 'Acme', type: 'Organization' }, isoNow())
  await createAccount(store.db, { userName: 'svc', kind: 'api', organization: 'Acme', role: 'Standard User' }, isoNow())
  await createAccount(
    store.db,
    { userName: 'viewer', kind: 'api', organization: 'Acme', role: 'Read Only User', tokenLifetimeDays: 2 },
    isoNow(),
  )
  await createAccount(
    store.db,
    { userName: 'feed', kind: 'taxii', organization: 'Acme', password: 'feed-password' },
    isoNow(),
  )
})
afterAll(async () => {
  await drop()
})

const byToken = (token: string, nowMs = Date.now()) =>
  authenticate(
    services,
    { authorization: `TC-Token ${token}`, timestamp: undefined, pathAndQuery: '/api/v2/owners', method: 'GET', nowMs },
    ['token', 'hmac'],
  )

function bySignature(accessId: string, secretKey: string) {
  const timestamp = String(Math.floor(Date.now() / 1000))
  const signature = signRequest(secretKey, '/api/v2/owners', 'GET', timestamp)
  return authenticate(
    services,
    {
      authorization: `TC ${accessId}:${signature}`,
      timestamp,
      pathAndQuery: '/api/v2/owners',
      method: 'GET',
      nowMs: Date.now(),
    },
    ['token', 'hmac'],
  )
}

describe('tokens create|revoke', () => {
  it('issues a permanent token that authenticates the account', async () => {
    const result = await createTokenCommand(store, services, { userName: 'svc' })
    expect(result).toMatchObject({ userName: 'svc', kind: 'api', expiresAt: null })
    expect(result.token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect((await byToken(result.token)).account.userName).toBe('svc')
  })

  it("honours --lifetime-days, else the account's token lifetime", async () => {
    const before = Date.now()
    const given = await createTokenCommand(store, services, { userName: 'svc', lifetimeDays: '10' })
    expect(Date.parse(given.expiresAt!) - before).toBeGreaterThanOrEqual(10 * DAY_MS)
    expect(Date.parse(given.expiresAt!) - before).toBeLessThan(10 * DAY_MS + 5000)
    const inherited = await createTokenCommand(store, services, { userName: 'viewer' })
    expect(Date.parse(inherited.expiresAt!) - before).toBeGreaterThanOrEqual(2 * DAY_MS)
    await expect(byToken(inherited.token, Date.parse(inherited.expiresAt!))).rejects.toMatchObject({
      code: 'unauthenticated',
      message: 'Unauthorized: the token has expired',
    })
  })

  it('issues a 4-hour temporary token to a Standard User only', async () => {
    const before = Date.now()
    const temporary = await createTokenCommand(store, services, { userName: 'svc', temporary: true })
    expect(temporary.kind).toBe('temporary')
    expect(Date.parse(temporary.expiresAt!) - before).toBeGreaterThanOrEqual(4 * HOUR_MS)
    expect(Date.parse(temporary.expiresAt!) - before).toBeLessThan(4 * HOUR_MS + 5000)
    await expect(createTokenCommand(store, services, { userName: 'viewer', temporary: true })).rejects.toMatchObject({
      code: 'forbidden',
    })
    await expect(
      createTokenCommand(store, services, { userName: 'svc', temporary: true, lifetimeDays: '1' }),
    ).rejects.toMatchObject({ code: 'invalid' })
  })

  it('refuses TAXII accounts, unknown accounts and a bad lifetime', async () => {
    await expect(createTokenCommand(store, services, { userName: 'feed' })).rejects.toMatchObject({
      code: 'invalid',
      message: 'TAXII accounts use Basic authentication, not API tokens',
    })
    await expect(createTokenCommand(store, services, { userName: 'ghost' })).rejects.toMatchObject({
      code: 'not_found',
    })
    await expect(createTokenCommand(store, services, { userName: 'svc', lifetimeDays: '0' })).rejects.toMatchObject({
      code: 'invalid',
    })
    await expect(createTokenCommand(store, services, { userName: 'svc', lifetimeDays: '1.5' })).rejects.toMatchObject({
      code: 'invalid',
    })
  })

  it('revokes every token of the account at once', async () => {
    const { token } = await createTokenCommand(store, services, { userName: 'svc' })
    const result = await revokeTokensCommand(store, services, { userName: 'svc' })
    expect(result).toEqual({ userName: 'svc', revoked: 4 })
    await expect(byToken(token)).rejects.toMatchObject({ code: 'unauthenticated' })
    expect(await revokeTokensCommand(store, services, { userName: 'svc' })).toEqual({ userName: 'svc', revoked: 0 })
  })
})

describe('keys create|revoke', () => {
  it('creates an access id and secret key that sign requests', async () => {
    const key = await createKeyCommand(store, services, { userName: 'svc' })
    expect(key.accessId).toMatch(/^[1-9]\d{19}$/)
    expect(key.secretKey.length).toBeGreaterThanOrEqual(32)
    expect((await bySignature(key.accessId, key.secretKey)).account.userName).toBe('svc')
  })

  it('keeps the secret key sealed at rest', async () => {
    const key = await createKeyCommand(store, services, { userName: 'svc' })
    const row = await store.db
      .selectFrom('access_key')
      .selectAll()
      .where('access_id', '=', key.accessId)
      .executeTakeFirstOrThrow()
    expect(row.secret_ciphertext).not.toContain(key.secretKey)
  })

  it('refuses a key for a TAXII account', async () => {
    await expect(createKeyCommand(store, services, { userName: 'feed' })).rejects.toMatchObject({ code: 'invalid' })
  })

  it('revokes one key by access id, then the rest', async () => {
    const first = await createKeyCommand(store, services, { userName: 'viewer' })
    const second = await createKeyCommand(store, services, { userName: 'viewer' })
    expect(await revokeKeysCommand(store, services, { userName: 'viewer', accessId: first.accessId })).toEqual({
      userName: 'viewer',
      revoked: 1,
    })
    await expect(bySignature(first.accessId, first.secretKey)).rejects.toMatchObject({ code: 'unauthenticated' })
    expect((await bySignature(second.accessId, second.secretKey)).account.userName).toBe('viewer')
    await expect(
      revokeKeysCommand(store, services, { userName: 'viewer', accessId: first.accessId }),
    ).rejects.toMatchObject({ code: 'not_found' })
    expect(await revokeKeysCommand(store, services, { userName: 'viewer' })).toEqual({ userName: 'viewer', revoked: 1 })
  })
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Store } from '../../store/connect.js'
import { createTestDomain } from '../../test/harness.js'
import {
  createAccount,
  createOwner,
  issueApiToken,
  issueTemporaryToken,
  setAccountDisabled,
  setMembership,
  setPassword,
} from './accounts.js'
import { type Scheme, authenticate } from './authentication.js'
import { hashToken } from './credentials.js'
import type { Services } from '../services.js'
import { DAY_MS, HOUR_MS, isoNow } from '../../core/time.js'

let store: Store
let services: Services
let drop: () => Promise<void>
const NOW = Date.parse('2030-06-01T12:00:00.000Z')
const TAXII: Scheme[] = ['basic']
const REST: Scheme[] = ['token', 'hmac']

beforeAll(async () => {
  ;({ store, services, drop } = await createTestDomain())
  const now = isoNow()
  await createOwner(store.db, { name: 'Acme', type: 'Organization' }, now)
  await createOwner(store.db, { name: 'Circle', type: 'Community' }, now)
  await createAccount(
    store.db,
    { userName: 'feed', kind: 'taxii', organization: 'Acme', password: 'feed-password' },
    now,
  )
  await createAccount(
    store.db,
    { userName: 'alice', kind: 'human', organization: 'Acme', password: 'alice-password' },
    now,
  )
  await setMembership(store.db, 'feed', 'Circle', 'Subscriber', now)
})
afterAll(async () => {
  await drop()
})

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`

function login(authorization: string | undefined, accepted: Scheme[], nowMs = Date.now()) {
  return authenticate(
    services,
    { authorization, timestamp: undefined, pathAndQuery: '/api/v2/owners', method: 'GET', nowMs },
    accepted,
  )
}

describe('Basic authentication (TAXII accounts)', () => {
  it('accepts the right password and returns the account with its memberships', async () => {
    const caller = await login(basic('feed', 'feed-password'), TAXII)
    expect(caller.account).toMatchObject({ userName: 'feed', kind: 'taxii', systemRole: 'Taxii User' })
    expect(caller.memberships.map((m) => [m.ownerName, m.role])).toEqual([
      ['Acme', 'Standard User'],
      ['Circle', 'Subscriber'],
    ])
  })

  it('refuses a wrong password, an unknown user and malformed credentials as unauthenticated', async () => {
    await expect(login(basic('feed', 'wrong-password'), TAXII)).rejects.toMatchObject({
      code: 'unauthenticated',
      message: 'Access Denied: wrong user name or password',
    })
    await expect(login(basic('nobody', 'feed-password'), TAXII)).rejects.toMatchObject({
      code: 'unauthenticated',
      message: 'Access Denied: wrong user name or password',
    })
    await expect(login(`Basic ${Buffer.from('no-colon').toString('base64')}`, TAXII)).rejects.toMatchObject({
      code: 'unauthenticated',
    })
    await expect(login('Basic', TAXII)).rejects.toMatchObject({ code: 'no_credentials' })
  })

  it('refuses Basic for an account that is not a TAXII account, even with its right password', async () => {
    await expect(login(basic('alice', 'alice-password'), TAXII)).rejects.toMatchObject({
      code: 'unauthenticated',
      message: 'Access Denied: only TAXII accounts use Basic authentication',
    })
  })

  it('refuses a TAXII account presenting an API token', async () => {
    const token = 'a-token-that-should-never-exist-for-taxii'
    const feed = await store.db
      .selectFrom('user_account')
      .select('id')
      .where('user_name', '=', 'feed')
      .executeTakeFirstOrThrow()
    await store.db
      .insertInto('api_token')
      .values({ user_id: feed.id, token_hash: hashToken(token), kind: 'api', expires_at: null, date_added: isoNow() })
      .execute()
    await expect(login(`TC-Token ${token}`, REST)).rejects.toMatchObject({
      code: 'unauthenticated',
      message: 'Access Denied: TAXII accounts may only use the TAXII services',
    })
  })

  it('is not offered where the interface takes only REST schemes', async () => {
    await expect(login(basic('feed', 'feed-password'), REST)).rejects.toMatchObject({ code: 'no_credentials' })
    await expect(login(undefined, TAXII)).rejects.toMatchObject({
      code: 'no_credentials',
      message: 'Authorization required: use Basic <credentials>',
    })
  })

  it('refuses a disabled TAXII account, then accepts it again once enabled', async () => {
    await login(basic('feed', 'feed-password'), TAXII)
    await setAccountDisabled(store.db, 'feed', true, isoNow())
    await expect(login(basic('feed', 'feed-password'), TAXII)).rejects.toMatchObject({
      code: 'unauthenticated',
      message: 'Access Denied: the account is disabled',
    })
    await setAccountDisabled(store.db, 'feed', false, isoNow())
    expect((await login(basic('feed', 'feed-password'), TAXII)).account.userName).toBe('feed')
  })

  it('stays correct across the verification cache: a changed password is refused at once', async () => {
    await createAccount(
      store.db,
      { userName: 'rotating', kind: 'taxii', organization: 'Acme', password: 'first-password' },
      isoNow(),
    )
    expect((await login(basic('rotating', 'first-password'), TAXII)).account.userName).toBe('rotating')
    expect((await login(basic('rotating', 'first-password'), TAXII)).account.userName).toBe('rotating')
    await setPassword(store.db, 'rotating', 'second-password', isoNow())
    await expect(login(basic('rotating', 'first-password'), TAXII)).rejects.toMatchObject({ code: 'unauthenticated' })
    expect((await login(basic('rotating', 'second-password'), TAXII)).account.userName).toBe('rotating')
    await expect(login(basic('rotating', 'second-passwordX'), TAXII)).rejects.toMatchObject({ code: 'unauthenticated' })
  })
})

describe('temporary tokens', () => {
  it('authenticate for 4 hours and expire exactly then', async () => {
    await createAccount(
      store.db,
      { userName: 'analyst', kind: 'api', organization: 'Acme', role: 'Standard User' },
      isoNow(),
    )
    const issued = await issueTemporaryToken(store.db, 'analyst', NOW)
    expect(issued).toMatchObject({ kind: 'temporary', expiresAt: new Date(NOW + 4 * HOUR_MS).toISOString() })
    expect((await login(`TC-Token ${issued.token}`, REST, NOW + 4 * HOUR_MS - 1)).account.userName).toBe('analyst')
    await expect(login(`TC-Token ${issued.token}`, REST, NOW + 4 * HOUR_MS)).rejects.toMatchObject({
      code: 'unauthenticated',
      message: 'Unauthorized: the token has expired',
    })
  })

  it('are given to Standard User, Sharing User, Organization Administrator and App Developer only', async () => {
    const roles = [
      'Standard User',
      'Sharing User',
      'Organization Administrator',
      'App Developer',
      'Read Only User',
      'Read Only Commenter',
    ]
    const outcomes: Record<string, string> = {}
    for (const role of roles) {
      const userName = `temp-${role.replace(/ /g, '-').toLowerCase()}`
      await createAccount(store.db, { userName, kind: 'api', organization: 'Acme', role }, isoNow())
      outcomes[role] = await issueTemporaryToken(store.db, userName, NOW).then(
        () => 'issued',
        (e) => e.code,
      )
    }
    expect(outcomes).toEqual({
      'Standard User': 'issued',
      'Sharing User': 'issued',
      'Organization Administrator': 'issued',
      'App Developer': 'issued',
      'Read Only User': 'forbidden',
      'Read Only Commenter': 'forbidden',
    })
    await expect(issueTemporaryToken(store.db, 'feed', NOW)).rejects.toMatchObject({ code: 'forbidden' })
  })
})

describe('API token lifetime', () => {
  it("follows the account's lifetime in days", async () => {
    await createAccount(
      store.db,
      { userName: 'five-days', kind: 'api', organization: 'Acme', tokenLifetimeDays: 5 },
      isoNow(),
    )
    const issued = await issueApiToken(store.db, 'five-days', {}, NOW)
    expect(issued).toMatchObject({ kind: 'api', expiresAt: new Date(NOW + 5 * DAY_MS).toISOString() })
    expect((await login(`Svc-Token ${issued.token}`, REST, NOW + 5 * DAY_MS - 1)).account.userName).toBe('five-days')
    await expect(login(`Svc-Token ${issued.token}`, REST, NOW + 5 * DAY_MS)).rejects.toMatchObject({
      code: 'unauthenticated',
    })
  })

  it('takes a lifetime given at issue over the account one, and never expires without either', async () => {
    const oneDay = await issueApiToken(store.db, 'five-days', { lifetimeDays: 1 }, NOW)
    expect(oneDay.expiresAt).toBe(new Date(NOW + DAY_MS).toISOString())
    const forever = await issueApiToken(store.db, 'analyst', {}, NOW)
    expect(forever.expiresAt).toBeNull()
    expect((await login(`TC-Token ${forever.token}`, REST, NOW + 3650 * DAY_MS)).account.userName).toBe('analyst')
  })

  it('refuses a lifetime that is not a whole number of days, and a disabled account', async () => {
    for (const lifetimeDays of [0, -1, 1.5]) {
      await expect(issueApiToken(store.db, 'analyst', { lifetimeDays }, NOW)).rejects.toMatchObject({ code: 'invalid' })
    }
    const issued = await issueApiToken(store.db, 'analyst', {}, NOW)
    await setAccountDisabled(store.db, 'analyst', true, isoNow())
    await expect(login(`TC-Token ${issued.token}`, REST, NOW)).rejects.toMatchObject({
      message: 'Access Denied: the account is disabled',
    })
    await expect(login('TC-Token unknown-token-value-xyz', REST, NOW)).rejects.toMatchObject({
      message: 'Unauthorized: the token is not valid',
    })
  })
})

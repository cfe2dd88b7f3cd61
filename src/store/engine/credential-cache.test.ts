import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setAccountDisabled } from '../../domain/access/accounts.js'
import { hashToken } from '../../domain/access/credentials.js'
import { isoNow } from '../../core/time.js'
import { type TestApp, createTestApp } from '../../test/harness.js'
import { CREDENTIAL_CACHE_MS, CredentialCache, forgetCredentials } from './credential-cache.js'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(async () => {
  await t.close()
})

describe('credential cache', () => {
  it('serves a value for at most its lifetime and forgets it when credentials change', async () => {
    const cache = new CredentialCache<number>()
    let loads = 0
    const load = async () => ++loads
    expect(await cache.get('k', load)).toBe(1)
    expect(await cache.get('k', load)).toBe(1)
    forgetCredentials()
    expect(await cache.get('k', load)).toBe(2)
    await new Promise((resolve) => setTimeout(resolve, CREDENTIAL_CACHE_MS + 50))
    expect(await cache.get('k', load)).toBe(3)
  })

  it('does not remember misses', async () => {
    const cache = new CredentialCache<number>()
    let value: number | undefined
    expect(await cache.get('k', async () => value)).toBeUndefined()
    value = 7
    expect(await cache.get('k', async () => value)).toBe(7)
  })

  it('is emptied by any write to the account tables through the query layer', async () => {
    const account = await t.createAccount({})
    const first = await t.services.auth.findByTokenHash(hashToken(account.token))
    expect(first?.disabled).toBe(0)
    await setAccountDisabled(t.store.db, account.userName, true, isoNow())
    const second = await t.services.auth.findByTokenHash(hashToken(account.token))
    expect(second?.disabled).toBe(1)
  })
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { signRequest } from '../../domain/access/credentials.js'
import { setAccountDisabled } from '../../domain/access/accounts.js'
import { isoNow } from '../../core/time.js'
import { type TestApp, createTestApp } from '../../test/harness.js'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(async () => {
  await t.close()
})

describe('REST authentication', () => {
  it('accepts a TC-Token and the Svc-Token synonym', async () => {
    for (const scheme of ['TC-Token', 'Svc-Token']) {
      const res = await t.request({
        method: 'GET',
        url: '/api/v2/owners',
        headers: { authorization: `${scheme} ${t.admin.token}` },
      })
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({
        status: 'Success',
        data: { resultCount: 1, owner: [{ id: 1, name: 'Test Organization', type: 'Organization' }] },
      })
    }
  })

  it('accepts an HMAC signature over the path and query as sent', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v2/owners?resultStart=0&resultLimit=5', hmac: true })
    expect(res.statusCode).toBe(200)
  })

  it('accepts the Svc scheme word for signatures', async () => {
    const ts = String(Math.floor(Date.now() / 1000))
    const sig = signRequest(t.admin.secretKey!, '/api/v2/owners', 'GET', ts)
    const res = await t.request({
      method: 'GET',
      url: '/api/v2/owners',
      headers: { authorization: `Svc ${t.admin.accessId}:${sig}`, timestamp: ts },
    })
    expect(res.statusCode).toBe(200)
  })

  it('refuses a signature made over a different query string', async () => {
    const ts = String(Math.floor(Date.now() / 1000))
    const sig = signRequest(t.admin.secretKey!, '/api/v2/owners', 'GET', ts)
    const res = await t.request({
      method: 'GET',
      url: '/api/v2/owners?resultLimit=1',
      headers: { authorization: `TC ${t.admin.accessId}:${sig}`, timestamp: ts },
    })
    expect(res.statusCode).toBe(401)
    expect(res.json()).toEqual({ status: 'Error', message: 'Signature Data Did Not Match Expected Result' })
  })

  it('refuses a wrong signature with 401', async () => {
    const ts = String(Math.floor(Date.now() / 1000))
    const res = await t.request({
      method: 'GET',
      url: '/api/v2/owners',
      headers: { authorization: `TC ${t.admin.accessId}:AAAA`, timestamp: ts },
    })
    expect(res.statusCode).toBe(401)
    expect(res.json().status).toBe('Error')
  })

  it('gives a timestamp error outside the five-minute window', async () => {
    const stale = String(Math.floor(Date.now() / 1000) - 301)
    const sig = signRequest(t.admin.secretKey!, '/api/v2/owners', 'GET', stale)
    const res = await t.request({
      method: 'GET',
      url: '/api/v2/owners',
      headers: { authorization: `TC ${t.admin.accessId}:${sig}`, timestamp: stale },
    })
    expect(res.statusCode).toBe(401)
    expect(res.json().message).toMatch(/Timestamp Out of Acceptable Time Range/)
  })

  it('gives a timestamp error when the Timestamp header is missing', async () => {
    const res = await t.request({
      method: 'GET',
      url: '/api/v2/owners',
      headers: { authorization: `TC ${t.admin.accessId}:x` },
    })
    expect(res.statusCode).toBe(401)
    expect(res.json().message).toMatch(/Timestamp header required/)
  })

  it('answers 403 without a supported scheme, and 403 for Basic on the REST API', async () => {
    const none = await t.request({ method: 'GET', url: '/api/v2/owners', as: null })
    expect(none.statusCode).toBe(403)
    expect(none.json().status).toBe('Error')
    const basic = await t.request({
      method: 'GET',
      url: '/api/v2/owners',
      headers: { authorization: 'Basic dXNlcjpwYXNz' },
    })
    expect(basic.statusCode).toBe(403)
  })

  it('answers 403 when the request did not come over HTTPS', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v2/owners', headers: { 'x-forwarded-proto': 'http' } })
    expect(res.statusCode).toBe(403)
    expect(res.json()).toEqual({ status: 'Error', message: 'HTTPS is required' })
  })

  it('does not believe X-Forwarded-Proto from an untrusted address', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v2/owners',
      remoteAddress: '10.9.9.9',
      headers: { 'x-forwarded-proto': 'https', authorization: `TC-Token ${t.admin.token}` },
    })
    expect(res.statusCode).toBe(403)
  })

  it('refuses an unknown token and an expired one', async () => {
    const unknown = await t.request({
      method: 'GET',
      url: '/api/v2/owners',
      headers: { authorization: 'TC-Token nope-nope-nope-nope' },
    })
    expect(unknown.statusCode).toBe(401)
    const account = await t.createAccount({})
    await t.store.db
      .updateTable('api_token')
      .set({ expires_at: '2000-01-01T00:00:00.000Z' })
      .where(
        'user_id',
        '=',
        (
          await t.store.db
            .selectFrom('user_account')
            .select('id')
            .where('user_name', '=', account.userName)
            .executeTakeFirstOrThrow()
        ).id,
      )
      .execute()
    const expired = await t.request({ method: 'GET', url: '/api/v2/owners', as: account })
    expect(expired.statusCode).toBe(401)
    expect(expired.json().message).toMatch(/expired/)
  })

  it('refuses a disabled account, by token and by signature', async () => {
    const account = await t.createAccount({})
    expect((await t.request({ method: 'GET', url: '/api/v2/owners', as: account })).statusCode).toBe(200)
    await setAccountDisabled(t.store.db, account.userName, true, isoNow())
    const byToken = await t.request({ method: 'GET', url: '/api/v2/owners', as: account })
    expect(byToken.statusCode).toBe(401)
    expect(byToken.json().message).toMatch(/disabled/)
    expect((await t.request({ method: 'GET', url: '/api/v2/owners', as: account, hmac: true })).statusCode).toBe(401)
  })

  it('returns a request id on every response, errors included', async () => {
    const ok = await t.request({ method: 'GET', url: '/api/v2/owners' })
    const bad = await t.request({ method: 'GET', url: '/api/v2/owners', as: null })
    expect(ok.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
    expect(bad.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
    expect(ok.headers['x-request-id']).not.toBe(bad.headers['x-request-id'])
  })
})

describe('owner selection', () => {
  it('defaults to the caller Organization and honours owner=<name>', async () => {
    await t.createOwner('Sharing Community', 'Community')
    const member = await t.createAccount({ memberships: { 'Sharing Community': 'Editor' } })
    const res = await t.request({ method: 'GET', url: '/api/v2/owners/mine?owner=Sharing%20Community', as: member })
    expect(res.statusCode).toBe(200)
    const owners = await t.request({ method: 'GET', url: '/api/v2/owners', as: member })
    expect(owners.json().data.owner.map((o: { name: string }) => o.name)).toEqual([
      'Test Organization',
      'Sharing Community',
    ])
  })

  it('answers 403 for an owner that does not exist or that the caller cannot access', async () => {
    await t.createOwner('Private Source', 'Source')
    const missing = await t.request({ method: 'GET', url: '/api/v2/owners?owner=Nobody' })
    expect(missing.statusCode).toBe(403)
    expect(missing.json()).toEqual({
      status: 'Error',
      message: "Owner 'Nobody' does not exist or you do not have access to it",
    })
    const notMember = await t.request({ method: 'GET', url: '/api/v2/owners?owner=Private%20Source' })
    expect(notMember.statusCode).toBe(403)
  })

  it('treats a Banned community member as having no access', async () => {
    await t.createOwner('Closed Community', 'Community')
    const banned = await t.createAccount({ memberships: { 'Closed Community': 'Banned' } })
    expect(
      (await t.request({ method: 'GET', url: '/api/v2/owners?owner=Closed%20Community', as: banned })).statusCode,
    ).toBe(403)
    const owners = await t.request({ method: 'GET', url: '/api/v2/owners', as: banned })
    expect(owners.json().data.owner.map((o: { name: string }) => o.name)).toEqual(['Test Organization'])
  })
})

describe('credentials served from the credential cache', () => {
  it('are checked as strictly as fresh ones: a wrong signature, a stale timestamp and a bad owner still fail', async () => {
    const account = await t.createAccount({})
    expect((await t.request({ method: 'GET', url: '/api/v2/owners', as: account, hmac: true })).statusCode).toBe(200)
    const ts = String(Math.floor(Date.now() / 1000))
    const wrong = await t.request({
      method: 'GET',
      url: '/api/v2/owners',
      headers: {
        authorization: `TC ${account.accessId}:${signRequest('not-the-secret-key', '/api/v2/owners', 'GET', ts)}`,
        timestamp: ts,
      },
    })
    expect(wrong.json()).toEqual({ status: 'Error', message: 'Signature Data Did Not Match Expected Result' })
    const stale = String(Math.floor(Date.now() / 1000) - 400)
    const old = await t.request({
      method: 'GET',
      url: '/api/v2/owners',
      headers: {
        authorization: `TC ${account.accessId}:${signRequest(account.secretKey!, '/api/v2/owners', 'GET', stale)}`,
        timestamp: stale,
      },
    })
    expect(old.statusCode).toBe(401)
    expect(
      (await t.request({ method: 'GET', url: '/api/v2/owners?owner=Nowhere', as: account, hmac: true })).statusCode,
    ).toBe(403)
  })

  it('notice an expiry that passes while the token is cached', async () => {
    const account = await t.createAccount({})
    const userId = (
      await t.store.db
        .selectFrom('user_account')
        .select('id')
        .where('user_name', '=', account.userName)
        .executeTakeFirstOrThrow()
    ).id
    const soon = new Date(Date.now() + 1500).toISOString()
    await t.store.db.updateTable('api_token').set({ expires_at: soon }).where('user_id', '=', userId).execute()
    expect((await t.request({ method: 'GET', url: '/api/v2/owners', as: account })).statusCode).toBe(200)
    await new Promise((resolve) => setTimeout(resolve, 1600))
    const expired = await t.request({ method: 'GET', url: '/api/v2/owners', as: account })
    expect(expired.json()).toEqual({ status: 'Error', message: 'Unauthorized: the token has expired' })
  })
})

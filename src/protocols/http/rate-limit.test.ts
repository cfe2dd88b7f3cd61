/**
 * Per-account rate limiting through HTTP: off by default; when set, the request over the limit
 * gets 429 in its interface's envelope with Retry-After, and other accounts are not affected.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestAccount, type TestApp, createTestApp } from '../../test/harness.js'
import { buildApp } from '../../app.js'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(async () => {
  await t.close()
})

describe('rate limits', () => {
  it('are off by default', async () => {
    for (let i = 0; i < 30; i++)
      expect((await t.request({ method: 'GET', url: '/api/v2/owners' })).statusCode).toBe(200)
  })

  it('refuse the request over the limit with 429 and Retry-After, per account, across v2 and v3, until the window ends', async () => {
    const app = await buildApp({
      store: t.store,
      services: t.services,
      logLevel: false,
      trustedProxies: ['127.0.0.1'],
      rateLimit: { max: 3, windowMs: 2000 },
    })
    const other = await t.createAccount({})
    const get = (url: string, account: TestAccount = t.admin) =>
      app.inject({
        method: 'GET',
        url,
        headers: { 'x-forwarded-proto': 'https', authorization: `TC-Token ${account.token}` },
      })
    for (const url of ['/api/v2/owners', '/api/v3/tags', '/api/v2/owners'])
      expect((await get(url)).statusCode, url).toBe(200)
    const v2 = await get('/api/v2/owners')
    const v3 = await get('/api/v3/indicators')
    expect(v2.statusCode).toBe(429)
    const retryAfter = v2.headers['retry-after']
    expect(['1', '2']).toContain(retryAfter)
    expect(v2.json()).toEqual({
      status: 'Error',
      message: `Rate limit exceeded: at most 3 requests per 2 s for this account; retry after ${retryAfter} s`,
    })
    expect(v3.statusCode).toBe(429)
    expect(v3.json()).toMatchObject({
      errCode: '0x1001',
      status: 'Error',
      message: expect.stringMatching(/^Rate limit exceeded/),
    })
    expect((await get('/api/v2/owners', other)).statusCode).toBe(200)
    await new Promise((resolve) => setTimeout(resolve, 2100))
    expect((await get('/api/v2/owners')).statusCode).toBe(200)
    await app.close()
  })
})

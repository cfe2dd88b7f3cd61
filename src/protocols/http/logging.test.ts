import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, createTestApp, createTestDomain } from '../../test/harness.js'
import { buildApp } from '../../app.js'

let t: TestApp
const lines: Record<string, unknown>[] = []

beforeAll(async () => {
  t = await createTestApp()
})
afterAll(async () => {
  await t.close()
})

describe('request logging', () => {
  it('logs each request under the id the response carries, without credentials', async () => {
    const { store, services, drop } = await createTestDomain()
    const app = await buildApp({
      store,
      services,
      trustedProxies: ['127.0.0.1'],
      logLevel: 'info',
      logStream: {
        write: (line) => {
          lines.push(JSON.parse(line))
        },
      },
    })
    const secret = 'TC-Token super-secret-token-value'
    const res = await app.inject({
      method: 'GET',
      url: '/api/v2/owners',
      headers: { 'x-forwarded-proto': 'https', authorization: secret, timestamp: '123' },
    })
    expect(res.statusCode).toBe(401)
    const id = res.headers['x-request-id']
    const mine = lines.filter((l) => l.reqId === id)
    expect(mine).toEqual([
      expect.objectContaining({ msg: 'request completed', method: 'GET', url: '/api/v2/owners', statusCode: 401 }),
    ])
    expect(JSON.stringify(lines)).not.toContain('super-secret-token-value')
    await app.close()
    await drop()
  })
})

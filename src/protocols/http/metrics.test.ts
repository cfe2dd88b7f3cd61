/**
 * Prometheus metrics through HTTP: behind a token on the main listener, or on a listener of
 * their own; absent unless configured.
 */
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, createTestApp } from '../../test/harness.js'
import { createMetrics, serveMetrics } from './metrics.js'
import { buildApp } from '../../app.js'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(async () => {
  await t.close()
})

describe('metrics', () => {
  it('are off by default: no route, nothing collected', async () => {
    const res = await t.request({ method: 'GET', url: '/api/metrics', headers: { authorization: 'Bearer anything' } })
    expect(res.statusCode).toBe(404)
  })

  it('counts requests by route pattern and status, batch jobs by state, and the process, behind a bearer token', async () => {
    // A second app over the test app's database, which has an owner and an account for the jobs.
    const { store, services } = t
    const metrics = createMetrics(store)
    const app = await buildApp({
      store,
      services,
      logLevel: false,
      metrics,
      metricsToken: 'scrape-secret',
      trustedProxies: ['127.0.0.1'],
    })
    const headers = { 'x-forwarded-proto': 'https' }
    for (const url of ['/api/v2/owners', '/api/v2/owners', '/api/v3/indicators/12', '/api/nowhere'])
      await app.inject({ method: 'GET', url, headers })
    await store.db
      .insertInto('batch_job')
      .values([
        {
          owner_id: 1,
          user_id: 1,
          status: 'Queued',
          options: '{}',
          date_added: new Date(Date.now() - 60_000).toISOString(),
        },
        { owner_id: 1, user_id: 1, status: 'Completed', options: '{}', date_added: new Date().toISOString() },
      ] as never)
      .execute()

    expect((await app.inject({ method: 'GET', url: '/api/metrics', headers })).statusCode).toBe(401)
    expect(
      (await app.inject({ method: 'GET', url: '/api/metrics', headers: { ...headers, authorization: 'Bearer wrong' } }))
        .statusCode,
    ).toBe(401)
    const res = await app.inject({
      method: 'GET',
      url: '/api/metrics',
      headers: { ...headers, authorization: 'Bearer scrape-secret' },
    })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/)
    const text = res.body
    expect(text).toContain(
      'bulwark_http_request_duration_seconds_count{method="GET",route="/api/v2/owners",status="403"} 2',
    )
    expect(text).toContain(
      'bulwark_http_request_duration_seconds_count{method="GET",route="/api/v3/indicators/:id",status="403"} 1',
    )
    expect(text).toContain('bulwark_http_request_duration_seconds_count{method="GET",route="unmatched",status="404"} 1')
    expect(text).toContain('bulwark_batch_jobs{state="Queued"} 1')
    expect(text).toContain('bulwark_batch_jobs{state="Completed"} 1')
    expect(text).toContain('bulwark_batch_jobs{state="Running"} 0')
    const age = Number(/^bulwark_batch_queue_oldest_age_seconds (\S+)$/m.exec(text)?.[1])
    expect(age).toBeGreaterThanOrEqual(59)
    expect(age).toBeLessThan(600)
    expect(text).toMatch(/^bulwark_db_connections\{state="total"\} [1-9]/m)
    expect(text).toMatch(/^bulwark_process_resident_memory_bytes [1-9]/m)
    expect(text).toMatch(/^bulwark_nodejs_eventloop_lag_seconds \d/m)
    await app.close()
  })

  it('serve GET /metrics alone on a separate listener', async () => {
    const metrics = createMetrics(t.store)
    const server = await serveMetrics(metrics, '127.0.0.1', 0)
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const res = await fetch(`${base}/metrics`)
    expect(res.status).toBe(200)
    expect(await res.text()).toMatch(/^bulwark_batch_jobs\{state="Created"\} 0$/m)
    expect((await fetch(`${base}/api/v2/owners`)).status).toBe(404)
    await new Promise((resolve) => server.close(resolve))
  })
})

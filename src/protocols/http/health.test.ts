/**
 * /api/health and /api/ready through HTTP: no credentials needed, nothing revealed, and ready
 * only while the database answers, every migration is applied and the worker runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sql } from 'kysely'
import { createTestApp, createTestDomain, type TestApp } from '../../test/harness.js'
import { buildApp } from '../../app.js'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(async () => {
  await t.close()
})

describe('health and readiness', () => {
  it('answers both without credentials and says nothing more than yes', async () => {
    for (const url of ['/api/health', '/api/ready']) {
      const res = await t.request({ method: 'GET', url, as: null })
      expect(res.statusCode, url).toBe(200)
      expect(res.json(), url).toEqual({ status: 'Success' })
    }
  })

  it('is not ready while the worker is stopped, and ready again once it runs', async () => {
    const { store, services, drop } = await createTestDomain()
    let running = false
    const app = await buildApp({ store, services, logLevel: false, readiness: { workerRunning: () => running } })
    expect((await app.inject({ method: 'GET', url: '/api/ready' })).json()).toEqual({
      status: 'Error',
      message: 'Not ready',
    })
    expect((await app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200)
    running = true
    expect((await app.inject({ method: 'GET', url: '/api/ready' })).statusCode).toBe(200)
    await app.close()
    await drop()
  })

  it('is not ready while a migration this node knows is not applied, nor once the database is gone', async () => {
    const { store, services, drop } = await createTestDomain()
    const app = await buildApp({ store, services, logLevel: false })
    // As when a newer node's code meets a database not migrated yet.
    await sql`delete from kysely_migration where name = '0090-prefix-pattern-indexes'`.execute(store.db)
    const unmigrated = await app.inject({ method: 'GET', url: '/api/ready' })
    expect(unmigrated.statusCode).toBe(503)
    expect(unmigrated.json()).toEqual({ status: 'Error', message: 'Not ready' })
    await sql`insert into kysely_migration (name, timestamp) values ('0090-prefix-pattern-indexes', '2026-11-24T00:00:00.000Z')`.execute(
      store.db,
    )
    expect((await app.inject({ method: 'GET', url: '/api/ready' })).statusCode).toBe(200)
    await drop()
    expect((await app.inject({ method: 'GET', url: '/api/ready' })).statusCode).toBe(503)
    expect((await app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200)
    await app.close()
  })
})

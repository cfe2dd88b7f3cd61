import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ORG, TEST_DB, type TestApp, createTestApp } from '../../test/harness.js'
import { runPendingJobs } from '../../worker/batch-worker.js'
import { CHUNK_SIZE } from './run-job.js'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(async () => {
  await t.close()
})

describe('a batch job and the requests of its node', () => {
  // SQLite answers synchronously: without a yield between chunks a whole job is one turn of the event loop.
  it('gives the event loop a turn between chunks, so requests are not held up for the whole job', async () => {
    const chunks = 3
    const indicators = Array.from({ length: CHUNK_SIZE * chunks }, (_, i) => ({
      type: 'Host',
      summary: `turn${i}.example`,
    }))
    const created = await t.request({
      method: 'POST',
      url: '/api/v2/batch',
      payload: { owner: ORG, haltOnError: false, action: 'Create', attributeWriteType: 'Append' },
    })
    const uploaded = await t.request({
      method: 'POST',
      url: `/api/v2/batch/${created.json().data.batchId}`,
      payload: JSON.stringify({ indicator: indicators }),
      headers: { 'content-type': 'application/octet-stream' },
    })
    expect(uploaded.statusCode).toBe(202)
    let turns = 0
    let running = true
    const tick = () => {
      if (running) {
        turns++
        setImmediate(tick)
      }
    }
    setImmediate(tick)
    expect(await runPendingJobs(t.store, t.services)).toBe(1)
    running = false
    expect(turns).toBeGreaterThanOrEqual(chunks)
  })

  // A SQLite file's job commits several chunks at once (commit-group.ts): the writing connection is held meanwhile.
  it.runIf(TEST_DB === 'sqlite')('answers reads while its chunks are not yet committed, from what was', async () => {
    const indicators = Array.from({ length: 6_000 }, (_, i) => ({ type: 'Host', summary: `beside${i}.example` }))
    const created = await t.request({
      method: 'POST',
      url: '/api/v2/batch',
      payload: { owner: ORG, haltOnError: false, action: 'Create', attributeWriteType: 'Append' },
    })
    await t.request({
      method: 'POST',
      url: `/api/v2/batch/${created.json().data.batchId}`,
      payload: JSON.stringify({ indicator: indicators }),
      headers: { 'content-type': 'application/octet-stream' },
    })
    const counts: number[] = []
    let running = true
    const read = () => {
      if (!running) return
      if (!t.store.sqlite!.inTransaction) return setImmediate(read)
      // Asked and answered while the job's group is open: a read that waited for its commit would come after.
      void t.request({ method: 'GET', url: '/api/v2/indicators/hosts?resultLimit=1' }).then((r) => {
        if (t.store.sqlite!.inTransaction) counts.push(r.json().data.resultCount)
        setImmediate(read)
      })
    }
    setImmediate(read)
    await runPendingJobs(t.store, t.services)
    running = false
    const done = await t.request({ method: 'GET', url: '/api/v2/indicators/hosts?resultLimit=1' })
    const total = done.json().data.resultCount
    expect(total).toBeGreaterThanOrEqual(6_000)
    expect(counts.length).toBeGreaterThan(0)
    // Each count is a committed state: never the whole load before it was committed.
    expect(Math.min(...counts)).toBeLessThan(total)
  })
})

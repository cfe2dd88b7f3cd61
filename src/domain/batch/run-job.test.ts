import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ORG, type TestApp, createTestApp } from '../../test/harness.js'
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
})

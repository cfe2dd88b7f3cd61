import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ORG, TEST_DB, type TestApp, createTestApp } from '../../test/harness.js'
import { queueBatchThroughApi } from '../../test/batch.js'
import { runPendingJobs } from '../../worker/batch-worker.js'
import { claimBatchJob, findBatchJob, listBatchErrors } from '../../store/repositories/batch.repository.js'
import { CHUNK_SIZE, runBatchJob } from './run-job.js'

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

describe('jobs of one owner run side by side (several nodes, or lanes of one)', () => {
  const queued = (file: unknown) => queueBatchThroughApi(t, file)
  const later = (ms: number) => new Date(Date.now() + ms).toISOString()
  const claim = (id: number, worker: string, leaseMs: number) =>
    claimBatchJob(t.store.db, id, worker, new Date().toISOString(), later(leaseMs))
  const statusOf = async (id: number) => (await findBatchJob(t.store.db, id))!.status
  const errorsOf = (id: number) => listBatchErrors(t.store.db, id)

  it('waits for the job queued before it when a Group names Indicators that job is still writing', async () => {
    const first = await queued({ indicator: [{ type: 'Host', summary: 'written-first.example' }] })
    const second = await queued({
      group: [
        {
          type: 'Adversary',
          name: 'Side by side',
          xid: 'side-by-side-1',
          associatedIndicators: [{ indicatorType: 'Host', summary: 'written-first.example' }],
        },
      ],
    })
    // The first job is claimed by another node, which has not written its chunk yet.
    expect(await claim(first, 'node-a', 60_000)).toBe(true)
    expect(await claim(second, 'node-b', 60_000)).toBe(true)
    // A lease shorter than the wait: the waiting job keeps renewing it, so no other node takes the job over meanwhile.
    const running = runBatchJob(t.store, t.services, second, { workerId: 'node-b', leaseMs: 300 })
    await new Promise((resolve) => setTimeout(resolve, 500))
    const waiting = (await findBatchJob(t.store.db, second))!
    expect(waiting.status).toBe('Running')
    expect(Date.parse(waiting.lease_expires!)).toBeGreaterThan(Date.now())
    await runBatchJob(t.store, t.services, first, { workerId: 'node-a' })
    await running
    expect(await statusOf(second)).toBe('Completed')
    expect(await errorsOf(second)).toEqual([])
    const group = await t.request({ method: 'GET', url: '/api/v2/groups/adversaries?filters=name=Side by side' })
    const id = group.json().data.adversary[0].id
    const hosts = await t.request({ method: 'GET', url: `/api/v2/groups/adversaries/${id}/indicators/hosts` })
    expect(hosts.json().data.host.map((h: { summary: string }) => h.summary)).toEqual(['written-first.example'])
  })

  it('does not wait for a job whose node died (its lease ran out): the Indicator is reported not found', async () => {
    const first = await queued({ indicator: [{ type: 'Host', summary: 'never-written.example' }] })
    const second = await queued({
      group: [
        {
          type: 'Adversary',
          name: 'Orphaned',
          xid: 'side-by-side-2',
          associatedIndicators: [{ indicatorType: 'Host', summary: 'never-written.example' }],
        },
      ],
    })
    expect(await claim(first, 'node-gone', -1_000)).toBe(true)
    expect(await claim(second, 'node-b', 60_000)).toBe(true)
    await runBatchJob(t.store, t.services, second, { workerId: 'node-b' })
    expect(await statusOf(second)).toBe('Completed')
    expect((await errorsOf(second)).map((e) => e.code)).toEqual(['0x1009'])
    expect(await statusOf(first)).toBe('Running')
    // What the dead node left is claimed and run by the next worker that looks.
    expect(await runPendingJobs(t.store, t.services)).toBe(1)
    expect(await statusOf(first)).toBe('Completed')
  })
})

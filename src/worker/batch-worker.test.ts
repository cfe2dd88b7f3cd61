import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHUNK_SIZE } from '../domain/batch/run-job.js'
import { chunkSizer } from '../domain/batch/chunk-size.js'
import { createServices } from '../domain/services.js'
import { commitBatchProgress, findBatchJob } from '../store/repositories/batch.repository.js'
import { openStore } from '../store/connect.js'
import { ORG, PUBLIC_URL, TEST_DB, type TestApp, createTestApp, vacuumCount } from '../test/harness.js'
import { claimJob } from '../domain/batch/leases.js'
import { runPendingJobs, startBatchWorker } from './batch-worker.js'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(async () => {
  await t.close()
})

async function queuedJob(input: unknown): Promise<number> {
  const created = await t.request({
    method: 'POST',
    url: '/api/v2/batch',
    payload: { owner: ORG, haltOnError: false, action: 'Create', attributeWriteType: 'Append' },
  })
  const id = created.json().data.batchId
  await t.request({
    method: 'POST',
    url: `/api/v2/batch/${id}`,
    payload: JSON.stringify(input),
    headers: { 'content-type': 'application/octet-stream' },
  })
  return id
}

const hosts = (prefix: string, n: number) => ({
  indicator: Array.from({ length: n }, (_, i) => ({ type: 'Host', summary: `${prefix}${i}.example` })),
})

describe('batch worker leases', () => {
  it('lets exactly one of two racing workers claim a job', async () => {
    const id = await queuedJob(hosts('race', 1))
    const wins = await Promise.all([claimJob(t.store, id, 'node-a'), claimJob(t.store, id, 'node-b')])
    expect(wins.filter(Boolean)).toHaveLength(1)
    const job = (await findBatchJob(t.store.db, id))!
    expect(job.status).toBe('Running')
    expect(job.lease_owner).toBe(wins[0] ? 'node-a' : 'node-b')
    expect(await claimJob(t.store, id, 'node-c')).toBe(false)
    await t.store.db
      .updateTable('batch_job')
      .set({ lease_expires: '2000-01-01T00:00:00.000Z' })
      .where('id', '=', id)
      .execute()
    await runPendingJobs(t.store, t.services)
  })

  it('reclaims a job whose lease expired, and fences the old holder out', async () => {
    const id = await queuedJob(hosts('expired', 2))
    expect(await claimJob(t.store, id, 'dead-node', -1000)).toBe(true)
    expect(await claimJob(t.store, id, 'new-node')).toBe(true)
    const stale = await commitBatchProgress(t.store.db, id, 'dead-node', {
      progress: '{}',
      successCount: 9,
      errorCount: 9,
      leaseUntil: new Date(Date.now() + 60_000).toISOString(),
    })
    expect(stale).toBe(false)
    await t.store.db
      .updateTable('batch_job')
      .set({ lease_expires: '2000-01-01T00:00:00.000Z' })
      .where('id', '=', id)
      .execute()
    expect(await runPendingJobs(t.store, t.services, { workerId: 'fresh' })).toBe(1)
    expect(await findBatchJob(t.store.db, id)).toMatchObject({
      status: 'Completed',
      success_count: 2,
      lease_owner: null,
    })
  })

  it('resumes a job left Running by a dead node at its committed offset', async () => {
    const id = await queuedJob(hosts('resume', 3))
    expect(await claimJob(t.store, id, 'dead-node', -1000)).toBe(true)
    const progress = { phase: 'indicators', offset: 2, counts: { successIndicatorCount: 2 } }
    await t.store.db
      .updateTable('batch_job')
      .set({ progress: JSON.stringify(progress), success_count: 2 })
      .where('id', '=', id)
      .execute()
    const restarted = createServices(t.store, { serverKey: 'test-server-key', publicUrl: PUBLIC_URL })
    expect(await runPendingJobs(t.store, restarted)).toBe(1)
    expect(await findBatchJob(t.store.db, id)).toMatchObject({ status: 'Completed', success_count: 3, error_count: 0 })
    const made = await t.store.db
      .selectFrom('indicator')
      .select('summary')
      .where('summary', 'like', 'resume%')
      .orderBy('summary')
      .execute()
    expect(made.map((r) => r.summary)).toEqual(['resume2.example'])
  })

  it('stopping hands the job back at a commit point, and another worker resumes it at once without repeating a chunk', async () => {
    const id = await queuedJob(hosts('handback', CHUNK_SIZE + 500))
    let checks = 0
    // Stop once the first chunk is committed, as SIGTERM would arrive mid-job.
    expect(await runPendingJobs(t.store, t.services, { workerId: 'stopping-node', stopping: () => ++checks > 2 })).toBe(
      0,
    )
    const paused = (await findBatchJob(t.store.db, id))!
    // The first chunk: CHUNK_SIZE on PostgreSQL, SQLite's first time-sized chunk there (chunk-size.ts).
    const firstChunk = chunkSizer(t.store.dialect).size
    expect(paused).toMatchObject({ status: 'Running', lease_owner: null, success_count: firstChunk })
    expect(Date.parse(paused.lease_expires!)).toBeLessThanOrEqual(Date.now())
    expect(JSON.parse(paused.progress!)).toMatchObject({ phase: 'indicators', offset: firstChunk })
    expect(await runPendingJobs(t.store, t.services, { workerId: 'other-node' })).toBe(1)
    expect(await findBatchJob(t.store.db, id)).toMatchObject({
      status: 'Completed',
      success_count: CHUNK_SIZE + 500,
      error_count: 0,
    })
    const made = await t.store.db
      .selectFrom('indicator')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('summary', 'like', 'handback%')
      .executeTakeFirstOrThrow()
    expect(Number(made.n)).toBe(CHUNK_SIZE + 500)
  })

  it('completes a submitted job with a freshly started worker instance', async () => {
    const id = await queuedJob(hosts('fresh', 5))
    const worker = startBatchWorker(
      t.store,
      createServices(t.store, { serverKey: 'test-server-key', publicUrl: PUBLIC_URL }),
      { pollMs: 20 },
    )
    try {
      for (let i = 0; i < 200 && (await findBatchJob(t.store.db, id))!.status !== 'Completed'; i++)
        await new Promise((r) => setTimeout(r, 20))
    } finally {
      await worker.stop()
    }
    expect(await findBatchJob(t.store.db, id)).toMatchObject({ status: 'Completed', success_count: 5 })
  })

  it('starts a queued job at once and runs jobs queued meanwhile back to back, never waiting for the poll interval', async () => {
    const worker = startBatchWorker(t.store, t.services, { pollMs: 60_000 })
    try {
      // The first pass (at start) finds nothing; from here only a wake-up can start a job.
      await new Promise((r) => setTimeout(r, 200))
      const queuedAt = Date.now()
      const ids = [
        await queuedJob(hosts('woken-a', 3)),
        await queuedJob(hosts('woken-b', 4)),
        await queuedJob(hosts('woken-c', 5)),
      ]
      await waitForCompleted(ids, 10_000)
      expect(Date.now() - queuedAt).toBeLessThan(10_000)
      for (const [k, id] of ids.entries())
        expect(await findBatchJob(t.store.db, id)).toMatchObject({ status: 'Completed', success_count: 3 + k })
    } finally {
      await worker.stop()
    }
  })

  it.runIf(TEST_DB === 'postgres')('vacuums the uploads its jobs deleted once its queue has drained', async () => {
    // With autovacuum off (as in CI) nothing else reclaims them: 64.6 MB after a 1,000,000-Indicator load.
    const vacuums = () => vacuumCount(t.store, 'batch_input')
    const before = await vacuums()
    const id = await queuedJob(hosts('reclaimed', 10))
    await runPendingJobs(t.store, t.services)
    expect(await findBatchJob(t.store.db, id)).toMatchObject({ status: 'Completed', success_count: 10 })
    expect(await vacuums()).toBeGreaterThan(before)
  })

  it.runIf(TEST_DB === 'postgres')(
    'runs two jobs at once in lanes of its own, and both store a value they share once',
    async () => {
      // A transaction left open holds a value both jobs carry: each job's insert waits for it, so both are running.
      const blocker = await t.store.pool!.connect()
      const worker = startBatchWorker(t.store, t.services, { pollMs: 60_000, lanes: 2, workerId: 'laned' })
      try {
        const owner = await t.store.db
          .selectFrom('owner')
          .select('id')
          .where('name', '=', ORG)
          .executeTakeFirstOrThrow()
        await blocker.query('begin')
        await blocker.query(
          `insert into indicator (owner_id, type, summary, date_added, last_modified) values ($1, 'Host', 'shared.lane', $2, $2)`,
          [owner.id, new Date().toISOString()],
        )
        const withShared = (prefix: string) => ({
          indicator: [...hosts(prefix, 3).indicator, { type: 'Host', summary: 'shared.lane', rating: 2 }],
        })
        const ids = [await queuedJob(withShared('lane-a')), await queuedJob(withShared('lane-b'))]
        const running = async () => {
          for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
            const jobs = await Promise.all(ids.map((id) => findBatchJob(t.store.db, id)))
            if (jobs.every((j) => j?.status === 'Running')) return jobs.map((j) => j!.lease_owner)
            await new Promise((r) => setTimeout(r, 20))
          }
          throw new Error('the two jobs never ran at once')
        }
        expect((await running()).sort()).toEqual(['laned', 'laned/1'])
        await blocker.query('rollback')
        await waitForCompleted(ids, 10_000)
        for (const id of ids)
          expect(await findBatchJob(t.store.db, id)).toMatchObject({
            status: 'Completed',
            success_count: 4,
            error_count: 0,
          })
        const shared = await t.store.db
          .selectFrom('indicator')
          .select('rating')
          .where('summary', '=', 'shared.lane')
          .execute()
        expect(shared).toEqual([{ rating: 2 }])
      } finally {
        await blocker.query('rollback').catch(() => undefined)
        blocker.release()
        await worker.stop()
      }
    },
  )

  it.runIf(TEST_DB === 'postgres')('wakes a worker of another node through NOTIFY', async () => {
    const otherNode = openStore((t.store.pool!.options as { connectionString: string }).connectionString)
    const worker = startBatchWorker(
      otherNode,
      createServices(otherNode, { serverKey: 'test-server-key', publicUrl: PUBLIC_URL }),
      { pollMs: 60_000, workerId: 'node-b' },
    )
    try {
      await new Promise((r) => setTimeout(r, 300))
      const id = await queuedJob(hosts('notified', 2))
      await waitForCompleted([id], 10_000)
      expect(await findBatchJob(t.store.db, id)).toMatchObject({ status: 'Completed', success_count: 2 })
    } finally {
      await worker.stop()
      await otherNode.close()
    }
  })
})

/** Waits until every job completed, well inside the 60 s poll interval the tests set. */
async function waitForCompleted(ids: number[], withinMs: number) {
  const deadline = Date.now() + withinMs
  for (;;) {
    const jobs = await Promise.all(ids.map((id) => findBatchJob(t.store.db, id)))
    if (jobs.every((j) => j?.status === 'Completed')) return
    if (Date.now() > deadline)
      throw new Error(`jobs not completed within ${withinMs} ms: ${jobs.map((j) => j?.status).join(', ')}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

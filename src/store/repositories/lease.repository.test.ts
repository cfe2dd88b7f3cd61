/**
 * The one lease mechanism as import jobs and scheduled tasks use it (batch jobs: worker/batch-worker.test.ts):
 * a claim goes to exactly one of racing workers, a lease that ran out can be claimed by another, and the old
 * holder is fenced out of every later write.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_DB, type TestApp, createTestApp } from '../../test/harness.js'
import { captureStatements, explain, installStatementCapture, isPlannable } from '../../test/statement-plans.js'
import { batchJobLease, claimBatchJob, commitBatchProgress, insertBatchJob } from './batch.repository.js'
import {
  claimImportJob,
  findImportJob,
  finishImportJob,
  importJobLease,
  insertImportJob,
  queueImportJob,
  recordImportProgress,
} from './import-job.repository.js'
import {
  claimScheduledTask,
  findScheduledTask,
  finishScheduledTask,
  renewScheduledTask,
} from './lifecycle.repository.js'

installStatementCapture()

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(async () => {
  await t.close()
})

const at = (minutes: number) => new Date(Date.UTC(2030, 0, 1, 0, minutes)).toISOString()
const tally = { items: 1, jobs: 1, successCount: 1, errorCount: 0 }

/** An import job whose file is still arriving. */
async function receivingImport(): Promise<number> {
  const ctx = await t.context()
  return insertImportJob(t.store.db, {
    ownerId: ctx.owner.id,
    userId: ctx.caller.account.id,
    request: '{}',
    now: at(0),
  })
}

async function queuedImport(): Promise<number> {
  const id = await receivingImport()
  await queueImportJob(t.store.db, id, 10)
  return id
}

describe('import job leases', () => {
  it('lists only queued jobs and running ones whose lease ran out, and lets one of racing workers claim', async () => {
    const id = await queuedImport()
    expect(await importJobLease.claimable(t.store.db, at(1), 1000)).toContain(id)
    const wins = await Promise.all(
      ['node-a', 'node-b', 'node-c'].map((node) => claimImportJob(t.store.db, id, node, at(1), at(2))),
    )
    expect(wins.filter(Boolean)).toHaveLength(1)
    const holder = ['node-a', 'node-b', 'node-c'][wins.indexOf(true)]
    expect(await findImportJob(t.store.db, id)).toMatchObject({
      status: 'Running',
      lease_owner: holder,
      lease_expires: at(2),
      started_at: at(1),
    })
    expect(await importJobLease.claimable(t.store.db, at(1), 1000)).not.toContain(id)
    expect(await importJobLease.claimable(t.store.db, at(3), 1000)).toContain(id)
  })

  it('gives a job whose lease ran out to another worker, and fences the old holder out', async () => {
    const id = await queuedImport()
    expect(await claimImportJob(t.store.db, id, 'dead-node', at(1), at(2))).toBe(true)
    expect(await claimImportJob(t.store.db, id, 'new-node', at(1), at(3))).toBe(false)
    expect(await claimImportJob(t.store.db, id, 'new-node', at(5), at(6))).toBe(true)
    expect(await recordImportProgress(t.store.db, id, 'dead-node', at(9), tally)).toBe(false)
    expect(await finishImportJob(t.store.db, id, 'dead-node', { status: 'Failed', now: at(5), errors: [] })).toBe(false)
    expect(await recordImportProgress(t.store.db, id, 'new-node', at(7), tally)).toBe(true)
    expect(await findImportJob(t.store.db, id)).toMatchObject({
      status: 'Running',
      lease_owner: 'new-node',
      lease_expires: at(7),
      started_at: at(5),
      items: 1,
    })
    expect(await finishImportJob(t.store.db, id, 'new-node', { status: 'Completed', now: at(6), errors: [] })).toBe(
      true,
    )
    expect(await findImportJob(t.store.db, id)).toMatchObject({
      status: 'Completed',
      lease_owner: null,
      lease_expires: null,
      completed_at: at(6),
    })
    expect(await claimImportJob(t.store.db, id, 'late-node', at(60), at(61))).toBe(false)
    expect(await importJobLease.claimable(t.store.db, at(60), 1000)).not.toContain(id)
  })

  it('never claims a job still receiving its file', async () => {
    const id = await receivingImport()
    expect(await claimImportJob(t.store.db, id, 'node-a', at(1), at(2))).toBe(false)
    expect(await importJobLease.claimable(t.store.db, at(1), 1000)).not.toContain(id)
  })
})

describe('scheduled task leases', () => {
  it('claims a task that is due and free, for one of racing workers', async () => {
    const wins = await Promise.all(
      ['node-a', 'node-b'].map((node) => claimScheduledTask(t.store.db, 'lease-test', node, at(10), at(15), at(10))),
    )
    expect(wins.filter(Boolean)).toHaveLength(1)
    const holder = wins[0] ? 'node-a' : 'node-b'
    expect(await findScheduledTask(t.store.db, 'lease-test')).toMatchObject({
      lease_owner: holder,
      lease_expires: at(15),
      last_started: at(10),
    })
    // Held: nobody else claims it before the lease runs out, however due it is.
    expect(await claimScheduledTask(t.store.db, 'lease-test', 'node-c', at(12), at(20), at(12))).toBe(false)
    expect(await renewScheduledTask(t.store.db, 'lease-test', 'node-c', at(30))).toBe(false)
    expect(await renewScheduledTask(t.store.db, 'lease-test', holder, at(20))).toBe(true)
    await finishScheduledTask(t.store.db, 'lease-test', 'node-c', at(13), 'not mine')
    await finishScheduledTask(t.store.db, 'lease-test', holder, at(14), '{"outcome":1}')
    expect(await findScheduledTask(t.store.db, 'lease-test')).toMatchObject({
      lease_owner: null,
      lease_expires: null,
      last_finished: at(14),
      last_outcome: '{"outcome":1}',
    })
    // Free, but not due again: it last started at minute 10.
    expect(await claimScheduledTask(t.store.db, 'lease-test', 'node-c', at(15), at(20), at(5))).toBe(false)
    expect(await claimScheduledTask(t.store.db, 'lease-test', 'node-c', at(15), at(20), at(11))).toBe(true)
  })

  it('gives a task whose holder died to another worker once the lease ran out', async () => {
    expect(await claimScheduledTask(t.store.db, 'lease-dead', 'dead-node', at(0), at(5), at(0))).toBe(true)
    expect(await claimScheduledTask(t.store.db, 'lease-dead', 'new-node', at(4), at(9), at(4))).toBe(false)
    expect(await claimScheduledTask(t.store.db, 'lease-dead', 'new-node', at(6), at(11), at(6))).toBe(true)
    expect(await renewScheduledTask(t.store.db, 'lease-dead', 'dead-node', at(20))).toBe(false)
    expect((await findScheduledTask(t.store.db, 'lease-dead'))?.lease_owner).toBe('new-node')
  })
})

describe('lease statements', () => {
  // SQLite plans these small tables as it would large ones; PostgreSQL's planner rightly scans a table of a few
  // pages, so there the plans say nothing about a large one (statement-plans.test.ts holds it to the same rule).
  it.runIf(TEST_DB === 'sqlite')(
    'read each table by its key, and the claimable list by the (status, id) index',
    async () => {
      const ctx = await t.context()
      const batchId = await insertBatchJob(t.store.db, {
        ownerId: ctx.owner.id,
        userId: ctx.caller.account.id,
        options: '{}',
        now: at(0),
      })
      const importId = await queuedImport()
      const statements = await captureStatements(async () => {
        await batchJobLease.claimable(t.store.db, at(1), 10)
        await claimBatchJob(t.store.db, batchId, 'node-a', at(1), at(2))
        await commitBatchProgress(t.store.db, batchId, 'node-a', {
          progress: '{}',
          successCount: 0,
          errorCount: 0,
          leaseUntil: at(3),
        })
        await batchJobLease.release(t.store.db, batchId, 'node-a', at(1))
        await importJobLease.claimable(t.store.db, at(1), 10)
        await claimImportJob(t.store.db, importId, 'node-a', at(1), at(2))
        await recordImportProgress(t.store.db, importId, 'node-a', at(3), tally)
        await finishImportJob(t.store.db, importId, 'node-a', { status: 'Completed', now: at(3), errors: [] })
        await claimScheduledTask(t.store.db, 'lease-plans', 'node-a', at(1), at(2), at(1))
        await renewScheduledTask(t.store.db, 'lease-plans', 'node-a', at(3))
        await finishScheduledTask(t.store.db, 'lease-plans', 'node-a', at(3), '{}')
      })
      const leased = /^(batch_job|import_job|scheduled_task)$/
      const reads: string[] = []
      for (const statement of statements.filter((s) => isPlannable(s.sql) && !/^\s*(insert|delete)/i.test(s.sql)))
        for (const read of (await explain(t.store, statement)).reads)
          if (leased.test(read.table)) reads.push(`${read.table} ${read.index} ${read.seek.join(',')}`)
      expect(reads).toEqual([
        // Queued ones, then Running ones: the OR is read as two seeks of the index.
        'batch_job batch_job_status status',
        'batch_job batch_job_status status',
        'batch_job (pk) id',
        'batch_job (pk) id',
        'batch_job (pk) id',
        // Queued ones, then Running ones: the OR is read as two seeks of the index.
        'import_job import_job_status status',
        'import_job import_job_status status',
        'import_job (pk) id',
        'import_job (pk) id',
        'import_job (pk) id',
        'scheduled_task sqlite_autoindex_scheduled_task_1 name',
        'scheduled_task sqlite_autoindex_scheduled_task_1 name',
        'scheduled_task sqlite_autoindex_scheduled_task_1 name',
      ])
    },
  )
})

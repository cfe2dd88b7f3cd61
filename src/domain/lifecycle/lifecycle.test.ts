/**
 * Indicators expire: an owner's Indicators not seen again within the days of their type go inactive
 * (defaults in model/lifecycle.ts, or the owner's own), locked ones never; an observation, a change or
 * an import that meets them again renews them, and one that meets a stale Indicator makes it active
 * again, while one an analyst turned inactive stays so. One node at a time runs it.
 */
import { sql } from 'kysely'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ORG, type TestApp, createTestApp } from '../../test/harness.js'
import { createBatchJob, uploadBatchInput } from '../batch/jobs.js'
import { runPendingJobs } from '../../worker/batch-worker.js'
import { expireStaleIndicators, lifecyclePolicy, runLifecycle, setLifecyclePolicy } from './lifecycle.js'

let t: TestApp
let orgId: number
beforeAll(async () => {
  t = await createTestApp()
  orgId = (await t.store.db.selectFrom('owner').select('id').where('name', '=', ORG).executeTakeFirstOrThrow()).id
})
afterAll(() => t.close())

const NOW = new Date('2026-06-01T00:00:00.000Z')
const daysBefore = (days: number) => new Date(NOW.getTime() - days * 86_400_000).toISOString()

/** Imports items the way `bulwark import` does (sourceVersions when they carry their source's versions). */
async function importItems(indicator: unknown[], sourceVersions = false) {
  const ctx = await t.context()
  const id = await createBatchJob(
    ctx,
    { owner: ORG, haltOnError: false, action: 'Create', attributeWriteType: 'Append' },
    sourceVersions ? { sourceVersions: true } : {},
  )
  await uploadBatchInput(ctx, id, JSON.stringify({ indicator }))
  await runPendingJobs(t.store, t.services)
}

/** Makes an Indicator look untouched for that many days before NOW. */
async function age(summary: string, days: number, extra: Record<string, unknown> = {}) {
  await t.store.db
    .updateTable('indicator')
    .set({ date_added: daysBefore(days), last_modified: daysBefore(days), last_sighted: null, ...extra })
    .where(sql`lower(summary)`, '=', summary.toLowerCase())
    .execute()
}

async function state(summary: string) {
  return t.store.db
    .selectFrom('indicator')
    .select(['active', 'active_locked', 'last_modified', 'last_sighted', 'stale_since'])
    .where(sql`lower(summary)`, '=', summary.toLowerCase())
    .executeTakeFirstOrThrow()
}

const MD5 = 'a'.repeat(32)

beforeEach(async () => {
  await t.store.db.deleteFrom('indicator').execute()
  await t.store.db.deleteFrom('indicator_lifecycle_policy').execute()
  await importItems([
    { type: 'Address', summary: '192.0.2.31' },
    { type: 'Address', summary: '192.0.2.29' },
    { type: 'Address', summary: '192.0.2.77' },
    { type: 'Address', summary: '192.0.2.78' },
    { type: 'Host', summary: 'stale.example' },
    { type: 'File', summary: MD5 },
  ])
  await age('192.0.2.31', 31)
  await age('192.0.2.29', 29)
  await age('192.0.2.77', 40, { active_locked: 1 })
  await age('192.0.2.78', 40, { last_observed: daysBefore(3) })
  await age('stale.example', 31)
  await age(MD5, 100)
})

describe('the Indicator lifecycle', () => {
  it('turns Indicators inactive past their type’s days, stamps the change, and leaves the rest', async () => {
    const outcome = await expireStaleIndicators(t.store, { now: NOW })
    expect(outcome).toMatchObject({ deactivated: 1, byType: { Address: 1 } })
    expect(await state('192.0.2.31')).toMatchObject({
      active: 0,
      last_modified: NOW.toISOString(),
      stale_since: NOW.toISOString(),
    })
    // 29 days (Address: 30), a Host at 31 days (60), a File at 100 days (365)
    for (const summary of ['192.0.2.29', 'stale.example', MD5])
      expect(await state(summary)).toMatchObject({ active: 1, stale_since: null })
  })

  it('never touches a locked Indicator, and counts an observation as being seen again', async () => {
    await expireStaleIndicators(t.store, { now: NOW })
    expect(await state('192.0.2.77')).toMatchObject({ active: 1, active_locked: 1 })
    expect(await state('192.0.2.78')).toMatchObject({ active: 1 })
  })

  it('follows the owner’s own days per type: shorter, longer, or never', async () => {
    await setLifecyclePolicy(t.store.db, orgId, 'Host', 10)
    await setLifecyclePolicy(t.store.db, orgId, 'Address', 0)
    expect((await lifecyclePolicy(t.store.db, orgId)).filter((p) => p.own)).toEqual([
      { type: 'Address', days: 0, own: true },
      { type: 'Host', days: 10, own: true },
    ])
    await expireStaleIndicators(t.store, { now: NOW })
    expect((await state('stale.example')).active).toBe(0)
    expect((await state('192.0.2.31')).active).toBe(1)
    await expect(setLifecyclePolicy(t.store.db, orgId, 'Hots', 3)).rejects.toThrow(/not an Indicator type/)
    await expect(setLifecyclePolicy(t.store.db, orgId, 'Host', -1)).rejects.toThrow(/whole number/)
  })

  it('makes a stale Indicator active again when an import meets it again', async () => {
    await expireStaleIndicators(t.store, { now: NOW })
    await importItems([{ type: 'Address', summary: '192.0.2.31' }])
    expect(await state('192.0.2.31')).toMatchObject({ active: 1, stale_since: null })
  })

  it('makes it active again when a source whose version is held already sends it again', async () => {
    const item = { type: 'Address', summary: '192.0.2.31', externalLastModified: daysBefore(31) }
    await importItems([item], true)
    await age('192.0.2.31', 31, { external_last_modified: daysBefore(31) })
    await expireStaleIndicators(t.store, { now: NOW })
    await importItems([item], true)
    expect(await state('192.0.2.31')).toMatchObject({ active: 1, stale_since: null })
  })

  it('keeps inactive what the item itself says is inactive, or what an analyst turned inactive', async () => {
    await expireStaleIndicators(t.store, { now: NOW })
    await importItems([{ type: 'Address', summary: '192.0.2.31', active: false }])
    expect(await state('192.0.2.31')).toMatchObject({ active: 0, stale_since: null })
    await importItems([{ type: 'Address', summary: '192.0.2.31' }])
    expect((await state('192.0.2.31')).active).toBe(0)
  })

  it('makes a stale Indicator active again when someone observes it', async () => {
    await expireStaleIndicators(t.store, { now: NOW })
    const observed = await t.request({
      method: 'POST',
      url: '/api/v2/indicators/addresses/192.0.2.31/observations',
      payload: { count: 2 },
    })
    expect(observed.statusCode, observed.body).toBeLessThan(300)
    const after = await state('192.0.2.31')
    expect(after).toMatchObject({ active: 1, stale_since: null })
    expect(after.last_modified > NOW.toISOString()).toBe(true)
  })

  it('leaves a locked Indicator’s active flag alone when an import says otherwise', async () => {
    await importItems([{ type: 'Address', summary: '192.0.2.77', active: false }])
    expect(await state('192.0.2.77')).toMatchObject({ active: 1, active_locked: 1 })
  })

  it('renews an Indicator an import meets unchanged, writing that at most once a day', async () => {
    const item = { type: 'Address', summary: '192.0.2.31', externalLastModified: daysBefore(40) }
    await importItems([item], true)
    await age('192.0.2.31', 31, { external_last_modified: daysBefore(40) })
    await importItems([item], true)
    const sighted = (await state('192.0.2.31')).last_sighted
    expect(sighted).not.toBeNull()
    expect((await state('192.0.2.31')).last_modified).toBe(daysBefore(31))
    await importItems([item], true)
    expect((await state('192.0.2.31')).last_sighted).toBe(sighted)
    await expireStaleIndicators(t.store, { now: NOW })
    expect((await state('192.0.2.31')).active).toBe(1)
  })

  it('runs on one node at a time, and again only when due', async () => {
    await t.store.db.deleteFrom('scheduled_task').execute()
    const hour = 3_600_000
    const [a, b] = await Promise.all([runLifecycle(t.store, 'node-a', hour), runLifecycle(t.store, 'node-b', hour)])
    expect([a, b].filter((o) => o !== undefined)).toHaveLength(1)
    expect(await runLifecycle(t.store, 'node-c', hour)).toBeUndefined()
    expect(await runLifecycle(t.store, 'node-c', 0)).toMatchObject({ owners: expect.any(Number) })
  })
})

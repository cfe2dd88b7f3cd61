/**
 * Mirror mode: each run of a mirrored list notes the values it brought; once the whole list is
 * stored, the owner's Indicators of the values no longer listed become inactive (stamped, as
 * automation does, so they come back when the list brings them again), locked ones excepted, a
 * File kept while the list brings any of its hashes, and a value another mirrored feed of the
 * owner still lists kept. Lists are read by the plain list reader and written by the batch job,
 * as a run does.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { plainList } from '../../formats/text/text.js'
import { type TestAccount, type TestApp, createTestApp } from '../../test/harness.js'
import { runPendingJobs } from '../../worker/batch-worker.js'
import { createBatchJob, uploadBatchInput } from '../batch/jobs.js'
import { noteListValues, retireMissingValues, storedValueKeys } from './mirror.js'

const SOURCE = 'Mirror Source'
const MD5 = 'd41d8cd98f00b204e9800998ecf8427e'
const SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'

let t: TestApp
let writer: TestAccount
let ownerId: number
let feedA: number
let feedB: number

beforeAll(async () => {
  t = await createTestApp()
  ownerId = await t.createOwner(SOURCE, 'Source')
  writer = await t.createAccount({ memberships: { [SOURCE]: 'Editor' } })
})
afterAll(() => t.close())

async function createFeed(name: string) {
  const now = new Date().toISOString()
  const row = await t.store.db
    .insertInto('feed')
    .values({
      name,
      kind: 'text',
      url: `https://lists.example/${name}.txt`,
      owner_id: ownerId,
      interval_seconds: 3600,
      settings: JSON.stringify({ mirror: true }),
      next_run_at: now,
      date_added: now,
      last_modified: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

beforeEach(async () => {
  await t.store.db.deleteFrom('feed').execute()
  await t.store.db.deleteFrom('indicator').execute()
  feedA = await createFeed('list-a')
  feedB = await createFeed('list-b')
})

async function importItems(indicator: unknown[]) {
  const ctx = await t.context(writer, SOURCE)
  const id = await createBatchJob(ctx, {
    owner: SOURCE,
    haltOnError: false,
    action: 'Create',
    attributeWriteType: 'Append',
  })
  await uploadBatchInput(ctx, id, JSON.stringify({ indicator }))
  await runPendingJobs(t.store, t.services)
}

/** One run of a mirrored list as the runner does it: read, stored, its values noted, then the missing ones retired. */
async function runList(feedId: number, runId: number, lines: string[]) {
  const items: { type: string; summary: string }[] = []
  const input = (async function* () {
    yield lines.join('\n')
  })()
  for await (const e of plainList.reader!.read(input, { name: 'list' }))
    if (e.kind === 'element') for (const i of e.indicators) items.push(i.indicator as { type: string; summary: string })
  if (items.length) await importItems(items)
  const ctx = await t.context(writer, SOURCE)
  await noteListValues(ctx, feedId, runId, items)
  return { retired: await retireMissingValues(ctx, feedId, runId), now: ctx.now }
}

async function state(type: string, summary: string) {
  return t.store.db
    .selectFrom('indicator')
    .select(['active', 'last_modified', 'stale_since'])
    .where('owner_id', '=', ownerId)
    .where('type', '=', type)
    .where('summary', '=', summary)
    .executeTakeFirstOrThrow()
}

const feedValues = (feedId: number) =>
  t.store.db
    .selectFrom('feed_value')
    .select(['type', 'summary', 'last_run_id'])
    .where('feed_id', '=', feedId)
    .orderBy('type')
    .orderBy('summary')
    .execute()

const RUN_1 = ['# run 1', '192.0.2.1', '192.0.2.2', 'EVIL.Example', 'hxxp://bad[.]example/gate.php', MD5]

describe('mirror mode', () => {
  it('the values that left the list become inactive, stamped; the others stay; their rows are forgotten', async () => {
    expect((await runList(feedA, 1, RUN_1)).retired).toBe(0)
    expect(await feedValues(feedA)).toEqual([
      { type: 'Address', summary: '192.0.2.1', last_run_id: 1 },
      { type: 'Address', summary: '192.0.2.2', last_run_id: 1 },
      { type: 'File', summary: MD5.toUpperCase(), last_run_id: 1 },
      { type: 'Host', summary: 'evil.example', last_run_id: 1 },
      { type: 'URL', summary: 'http://bad.example/gate.php', last_run_id: 1 },
    ])
    const tallyBefore = await t.store.db
      .selectFrom('indicator_tally')
      .select(['type', 'active', (eb) => eb.fn.sum<number>('n').as('n')])
      .where('owner_id', '=', ownerId)
      .groupBy(['type', 'active'])
      .orderBy('type')
      .orderBy('active')
      .execute()
    expect(tallyBefore.map((r) => `${r.type} ${r.active} ${Number(r.n)}`)).toEqual([
      'Address 1 2',
      'File 1 1',
      'Host 1 1',
      'URL 1 1',
    ])

    const run2 = await runList(feedA, 2, ['192.0.2.1', 'evil.example', MD5.toUpperCase()])
    expect(run2.retired).toBe(2)
    expect(await state('Address', '192.0.2.2')).toEqual({ active: 0, last_modified: run2.now, stale_since: run2.now })
    expect(await state('URL', 'http://bad.example/gate.php')).toMatchObject({ active: 0 })
    expect(await state('Address', '192.0.2.1')).toMatchObject({ active: 1, stale_since: null })
    expect(await state('Host', 'evil.example')).toMatchObject({ active: 1 })
    expect(await state('File', MD5.toUpperCase())).toMatchObject({ active: 1 })
    expect((await feedValues(feedA)).map((v) => `${v.type} ${v.summary} ${v.last_run_id}`)).toEqual([
      'Address 192.0.2.1 2',
      `File ${MD5.toUpperCase()} 2`,
      'Host evil.example 2',
    ])
    // The owner's tallies follow the flag.
    const tally = await t.store.db
      .selectFrom('indicator_tally')
      .select([(eb) => eb.fn.sum<number>('n').as('n')])
      .where('owner_id', '=', ownerId)
      .where('active', '=', 0)
      .executeTakeFirstOrThrow()
    expect(Number(tally.n)).toBe(2)
  })

  it('a value the list brings back is active again', async () => {
    await runList(feedA, 1, RUN_1)
    await runList(feedA, 2, ['192.0.2.1'])
    expect(await state('Address', '192.0.2.2')).toMatchObject({ active: 0 })
    const run3 = await runList(feedA, 3, ['192.0.2.1', '192.0.2.2'])
    expect(run3.retired).toBe(0)
    expect(await state('Address', '192.0.2.2')).toMatchObject({ active: 1, stale_since: null })
  })

  it('a locked Indicator keeps its flag', async () => {
    await runList(feedA, 1, RUN_1)
    await t.store.db
      .updateTable('indicator')
      .set({ active_locked: 1 })
      .where('owner_id', '=', ownerId)
      .where('summary', '=', '192.0.2.2')
      .execute()
    expect((await runList(feedA, 2, ['192.0.2.1'])).retired).toBe(3)
    expect(await state('Address', '192.0.2.2')).toMatchObject({ active: 1 })
  })

  it('a File stays while the list brings any of its hashes, and goes when it brings none', async () => {
    await runList(feedA, 1, [MD5])
    // Another import tells the File's SHA-256: the batch writer merges it into the row of the MD5.
    await importItems([{ type: 'File', summary: `${MD5} : ${SHA256}` }])
    const file = `${MD5.toUpperCase()} : ${SHA256.toUpperCase()}`
    expect(await state('File', file)).toMatchObject({ active: 1 })
    expect((await runList(feedA, 2, [SHA256])).retired).toBe(0)
    expect(await state('File', file)).toMatchObject({ active: 1 })
    expect((await runList(feedA, 3, ['192.0.2.9'])).retired).toBe(1)
    expect(await state('File', file)).toMatchObject({ active: 0 })
  })

  it('a value another mirrored list of the owner still holds stays active', async () => {
    await runList(feedA, 1, ['192.0.2.1', '192.0.2.2'])
    await runList(feedB, 7, ['192.0.2.2'])
    expect((await runList(feedA, 2, ['192.0.2.1'])).retired).toBe(0)
    expect(await state('Address', '192.0.2.2')).toMatchObject({ active: 1 })
    // Feed A no longer holds it; once feed B drops it too, it goes.
    expect((await feedValues(feedA)).map((v) => v.summary)).toEqual(['192.0.2.1'])
    expect((await runList(feedB, 8, ['192.0.2.3'])).retired).toBe(1)
    expect(await state('Address', '192.0.2.2')).toMatchObject({ active: 0 })
  })

  it('retires a long list in chunks: 2,500 values, 1,500 of them gone', async () => {
    const values = Array.from({ length: 2_500 }, (_, i) => `10.1.${i >> 8}.${i & 255}`)
    expect((await runList(feedA, 1, values)).retired).toBe(0)
    expect((await runList(feedA, 2, values.slice(0, 1_000))).retired).toBe(1_500)
    const counts = await t.store.db
      .selectFrom('indicator')
      .select(['active', (eb) => eb.fn.countAll<number>().as('n')])
      .where('owner_id', '=', ownerId)
      .groupBy('active')
      .orderBy('active')
      .execute()
    expect(counts.map((c) => [c.active, Number(c.n)])).toEqual([
      [0, 1_500],
      [1, 1_000],
    ])
    expect(await feedValues(feedA)).toHaveLength(1_000)
  })

  it('a feed deleted takes its values with it', async () => {
    await runList(feedA, 1, ['192.0.2.1'])
    await t.store.db.deleteFrom('feed').where('id', '=', feedA).execute()
    expect(await feedValues(feedA)).toEqual([])
  })

  it('keys a read Indicator as the batch writer stores it', () => {
    expect(storedValueKeys({ type: 'Host', summary: 'EVIL.Example.' })).toEqual([
      { type: 'Host', summary: 'evil.example' },
    ])
    expect(storedValueKeys({ type: 'File', summary: `${MD5} : ${SHA256}` })).toEqual([
      { type: 'File', summary: MD5.toUpperCase() },
      { type: 'File', summary: SHA256.toUpperCase() },
    ])
    expect(storedValueKeys({ type: 'File', value3: SHA256 })).toEqual([{ type: 'File', summary: SHA256.toUpperCase() }])
    expect(storedValueKeys({ type: 'Address', summary: 'not an address' })).toEqual([])
    expect(storedValueKeys({ type: 'Nope', summary: 'x' })).toEqual([])
  })
})

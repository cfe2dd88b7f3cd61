import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ORG, TEST_DB, type TestApp, createTestApp, vacuumCount } from '../../test/harness.js'
import { runPendingJobs } from '../../worker/batch-worker.js'
import { setFixedChunkSize } from '../../domain/batch/chunk-size.js'
import {
  FOLD_AFTER_ROWS,
  VACUUM_AFTER_FOLDED,
  countIndicatorsAddedByTally,
  countIndicatorsByTally,
  dayFoldThreshold,
} from './indicator-tally.repository.js'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(async () => {
  await t.close()
})

type Counts = Record<string, number>

const orgId = async () =>
  (await t.store.db.selectFrom('owner').select('id').where('name', '=', ORG).executeTakeFirstOrThrow()).id

const asCounts = (list: { key: string; n: number | string }[]): Counts =>
  Object.fromEntries(list.map((r) => [r.key, Number(r.n)]))

/**
 * Indicators per key, counted from the rows and as a tally holds them (its rows or deltas summed, keys that sum to 0
 * left out): `rowKey` over `indicator` and `tallyKey` over the tally's columns give the same text for the same key.
 */
async function rowsAndTally(rowKey: string, table: string, tallyKey: string): Promise<{ rows: Counts; tally: Counts }> {
  const rows = await sql<{ key: string; n: number }>`select ${sql.raw(rowKey)} as key, count(*) as n
    from indicator group by 1`.execute(t.store.db)
  const tally = await sql<{ key: string; n: number }>`select ${sql.raw(tallyKey)} as key, sum(n) as n
    from ${sql.table(table)} group by 1 having sum(n) <> 0`.execute(t.store.db)
  return { rows: asCounts(rows.rows), tally: asCounts(tally.rows) }
}

/** Indicators per `owner|type|active|rating × 10` (unrated -10), from the rows and from the Indicator tally. */
const counted = () =>
  rowsAndTally(
    `owner_id || '|' || type || '|' || active || '|' || cast(round(coalesce(rating, -1) * 10) as integer)`,
    'indicator_tally',
    `owner_id || '|' || type || '|' || active || '|' || cast(round(rating * 10) as integer)`,
  )

async function expectTallyTrue() {
  const { rows, tally } = await counted()
  expect(tally).toEqual(rows)
}

async function v2(method: string, url: string, payload?: unknown) {
  const res = await t.request({ method: method as 'GET', url: `/api/v2${url}`, payload: payload as object })
  expect(res.statusCode, res.body).toBeLessThan(300)
  return res.json()
}

async function batch(action: 'Create' | 'Delete', indicators: unknown[]) {
  const created = await v2('POST', '/batch', { owner: ORG, haltOnError: false, action, attributeWriteType: 'Append' })
  const res = await t.request({
    method: 'POST',
    url: `/api/v2/batch/${created.data.batchId}`,
    payload: JSON.stringify({ indicator: indicators }),
    headers: { 'content-type': 'application/octet-stream' },
  })
  expect(res.statusCode).toBe(202)
  expect(await runPendingJobs(t.store, t.services)).toBe(1)
}

const hosts = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ type: 'Host', summary: `${prefix}${i}.example` }))

describe('the Indicator tally (migration 0125)', () => {
  it('follows every way Indicators are written: API creates, flag changes, deletes, batch creates and deletes, File merges', async () => {
    await v2('POST', '/indicators/hosts', { hostName: 'one.example' })
    await v2('POST', '/indicators/addresses', { ip: '192.0.2.1' })
    await v2('POST', '/indicators/addresses', { ip: '192.0.2.2', active: false })
    await expectTallyTrue()

    await v2('PUT', '/indicators/addresses/192.0.2.1', { active: false })
    await v2('PUT', '/indicators/addresses/192.0.2.2', { active: true, rating: 3 })
    await expectTallyTrue()

    await batch('Create', [...hosts('batch', 30), { type: 'Address', summary: '192.0.2.1', rating: 2 }])
    await batch('Delete', hosts('batch', 10))
    await v2('DELETE', '/indicators/hosts/one.example')
    await expectTallyTrue()

    // Two Files that one with both hashes merges into one row (the batch's default fileMergeMode, Merge).
    const md5 = 'a'.repeat(32)
    const sha1 = 'b'.repeat(40)
    await v2('POST', '/indicators/files', { md5 })
    await v2('POST', '/indicators/files', { sha1 })
    const created = await v2('POST', '/batch', {
      owner: ORG,
      haltOnError: false,
      action: 'Create',
      attributeWriteType: 'Append',
    })
    await t.request({
      method: 'POST',
      url: `/api/v2/batch/${created.data.batchId}`,
      payload: JSON.stringify({ indicator: [{ type: 'File', summary: `${md5} : ${sha1}` }] }),
      headers: { 'content-type': 'application/octet-stream' },
    })
    await runPendingJobs(t.store, t.services)
    const { rows } = await counted()
    expect(
      Object.entries(rows)
        .filter(([k]) => k.includes('|File|'))
        .map(([, n]) => n),
    ).toEqual([1])
    await expectTallyTrue()
  })

  it('gives v2 listings their resultCount: active Indicators of the owner, or of one type', async () => {
    const { rows } = await counted()
    const activeOf = (type?: string) =>
      Object.entries(rows)
        .filter(([k]) => k.split('|')[2] === '1' && (!type || k.split('|')[1] === type))
        .reduce((n, [, v]) => n + v, 0)
    expect(activeOf('Host')).toBe(20)
    expect((await v2('GET', '/indicators?resultLimit=1')).data.resultCount).toBe(activeOf())
    expect((await v2('GET', '/indicators/hosts?resultLimit=1')).data.resultCount).toBe(20)
    expect((await v2('GET', '/indicators/addresses?resultLimit=1')).data.resultCount).toBe(1)
    // A filter that names active counts the rows themselves: 192.0.2.1 was made inactive.
    expect((await v2('GET', '/indicators/addresses?filters=active%3Dfalse')).data.resultCount).toBe(1)
    expect((await v2('GET', '/indicators/addresses?filters=active%3Dtrue')).data.resultCount).toBe(1)
  })

  it('follows ratings, and counts a v2 list filtered by rating from the tally (migration 0136)', async () => {
    // Ten Hosts rated 1 to 5 twice over, then two of them re-rated by the batch and one by the API.
    await batch(
      'Create',
      Array.from({ length: 10 }, (_, i) => ({ type: 'Host', summary: `rated${i}.example`, rating: (i % 5) + 1 })),
    )
    await batch('Create', [
      { type: 'Host', summary: 'rated0.example', rating: 5 },
      { type: 'Host', summary: 'rated1.example', rating: 4.5 },
    ])
    await v2('PUT', '/indicators/hosts/rated2.example', { rating: 1 })
    await expectTallyTrue()
    const active = async (where: string) =>
      Number(
        (
          await sql<{ n: number }>`select count(*) as n from indicator where active = 1 and ${sql.raw(where)}`.execute(
            t.store.db,
          )
        ).rows[0].n,
      )
    // rated: 5, 4.5, 1, 4, 5, 1, 2, 3, 4, 5 and the Address 192.0.2.2 (3); every other Indicator unrated.
    expect(await active('rating > 2')).toBe(8)
    expect((await v2('GET', '/indicators?filters=rating%3E2&resultLimit=1')).data.resultCount).toBe(8)
    expect((await v2('GET', '/indicators/hosts?filters=rating%3E2&resultLimit=1')).data.resultCount).toBe(7)
    expect((await v2('GET', '/indicators?filters=rating%3C2&resultLimit=1')).data.resultCount).toBe(
      await active('rating < 2'),
    )
    expect(await active('rating < 2')).toBe(2)
    // Not by the tally (another column): counted from the rows, the same answer.
    expect((await v2('GET', '/indicators?filters=rating%3E2,confidence%3E-1&resultLimit=1')).data.resultCount).toBe(
      await active('rating > 2 and confidence > -1'),
    )
  })

  it.runIf(TEST_DB === 'postgres')(
    "on PostgreSQL, folds an owner's deltas into one row per key once they pile up, keeping the sum",
    async () => {
      const owner = await orgId()
      for (let i = 0; i < FOLD_AFTER_ROWS + 1; i++)
        await v2('POST', '/indicators/hosts', { hostName: `fold${i}.example` })
      const deltas = async () =>
        Number(
          (
            await sql<{ n: number }>`select count(*) as n from indicator_tally where owner_id = ${owner}`.execute(
              t.store.db,
            )
          ).rows[0].n,
        )
      expect(await deltas()).toBeGreaterThan(FOLD_AFTER_ROWS)
      const before = await counted()
      const hostsNow = await countIndicatorsByTally(t.store.db, { ownerIds: [owner], type: 'Host', activeOnly: true })
      // The 20 Hosts of the first test, the 10 rated ones of the third, these.
      expect(hostsNow).toBe(30 + FOLD_AFTER_ROWS + 1)
      // One row per key left: owner, type, active flag, rating.
      expect(await deltas()).toBe(Object.keys(before.rows).filter((k) => k.startsWith(`${owner}|`)).length)
      expect((await counted()).tally).toEqual(before.rows)
    },
  )
})

describe('the folds on PostgreSQL', () => {
  it.runIf(TEST_DB === 'postgres')(
    'vacuum the tally after a large fold, so later sums do not read the dead deltas (autovacuum may be off)',
    async () => {
      const owner = await orgId()
      const vacuums = () => vacuumCount(t.store, 'indicator_tally')
      const before = await vacuums()
      const hosts = await countIndicatorsByTally(t.store.db, { ownerIds: [owner], type: 'Host', activeOnly: true })
      // A bulk load's worth of deltas that sum to nothing, as a load's statements leave them before any read.
      await sql`insert into indicator_tally (owner_id, type, active, rating, n)
        select ${owner}, 'Host', 1, -1, 0 from generate_series(1, ${VACUUM_AFTER_FOLDED})`.execute(t.store.db)
      expect(await countIndicatorsByTally(t.store.db, { ownerIds: [owner], type: 'Host', activeOnly: true })).toBe(
        hosts,
      )
      expect(await vacuums()).toBe(before + 1)
      // A small fold leaves its few dead rows to the next vacuum.
      await sql`insert into indicator_tally (owner_id, type, active, rating, n)
        select ${owner}, 'Host', 1, -1, 0 from generate_series(1, ${FOLD_AFTER_ROWS + 1})`.execute(t.store.db)
      expect(await countIndicatorsByTally(t.store.db, { ownerIds: [owner], type: 'Host', activeOnly: true })).toBe(
        hosts,
      )
      expect(await vacuums()).toBe(before + 1)
    },
  )
})

describe('the day tally by type and active flag (migration 0147)', () => {
  /** Indicators per `owner|day|type|active`, from the rows and from the day tally. */
  const days = () =>
    rowsAndTally(
      `owner_id || '|' || substr(date_added, 1, 10) || '|' || type || '|' || active`,
      'indicator_day_tally',
      `owner_id || '|' || day || '|' || type || '|' || active`,
    )

  /** The times the dated Hosts are moved to: midnight, early and late in four days of January 2021. */
  const TIMES = ['00:00:00.000', '03:15:00.000', '11:59:59.999', '12:00:00.000', '18:30:00.000', '23:59:59.999']
  const dated = (i: number) => `dated${i}.example`

  /** Adds n to the tally of one key, as a trigger would (SQLite: its row; PostgreSQL: a delta). */
  async function addToDay(owner: number, day: string, n: number) {
    if (t.store.dialect === 'postgres')
      await sql`insert into indicator_day_tally (owner_id, day, type, active, n) values (${owner}, ${day}, 'Host', 1, ${n})`.execute(
        t.store.db,
      )
    else
      await sql`update indicator_day_tally set n = n + ${n}
        where owner_id = ${owner} and day = ${day} and type = 'Host' and active = 1`.execute(t.store.db)
  }

  beforeAll(async () => {
    await batch('Create', [
      ...Array.from({ length: 24 }, (_, i) => ({ type: 'Host', summary: dated(i) })),
      ...Array.from({ length: 6 }, (_, i) => ({ type: 'Address', summary: `198.51.100.${i + 1}` })),
    ])
    // Hosts i over 2021-01-0{1..4} at TIMES[i % 6]; Addresses on 2021-01-02 at every time.
    for (let i = 0; i < 24; i++)
      await sql`update indicator set date_added = ${`2021-01-0${1 + Math.floor(i / 6)}T${TIMES[i % 6]}Z`}
        where summary = ${dated(i)}`.execute(t.store.db)
    for (let i = 0; i < 6; i++)
      await sql`update indicator set date_added = ${`2021-01-02T${TIMES[i]}Z`} where summary = ${`198.51.100.${i + 1}`}`.execute(
        t.store.db,
      )
    await v2('PUT', `/indicators/hosts/${dated(8)}`, { active: false })
    await v2('DELETE', `/indicators/hosts/${dated(9)}`)
  })

  it('follows creates, moved dates, flag changes and deletes', async () => {
    const { rows, tally } = await days()
    expect(tally).toEqual(rows)
    const owner = await orgId()
    // 2021-01-02: Hosts 6 to 11, of which 8 made inactive and 9 deleted.
    expect([rows[`${owner}|2021-01-02|Host|1`], rows[`${owner}|2021-01-02|Host|0`]]).toEqual([4, 1])
  })

  it('gives a v2 list filtered by dateAdded the exact resultCount, whatever the bounds', async () => {
    const counted = async (path: string, where: string) => {
      const listed = (await v2('GET', `${path}?resultLimit=1&filters=${encodeURIComponent(where)}`)).data.resultCount
      const expected = Number(
        (
          await sql<{ n: number }>`select count(*) as n from indicator where active = 1
            ${sql.raw(path.endsWith('hosts') ? "and type = 'Host'" : '')}
            and ${sql.raw(
              where
                .split(',')
                .map((w) =>
                  w.replace(
                    /^dateAdded([<>])(.*)$/,
                    (_, op, value) =>
                      `date_added ${op} '${new Date(value.includes('T') ? value : `${value}T00:00:00Z`).toISOString()}'`,
                  ),
                )
                .join(' and '),
            )}`.execute(t.store.db)
        ).rows[0].n,
      )
      return { listed, expected }
    }
    const windows = [
      'dateAdded>2021-01-02',
      'dateAdded>2021-01-02T03:15:00Z',
      'dateAdded>2021-01-02T18:30:00Z',
      'dateAdded>2021-01-02T23:59:59.999Z',
      'dateAdded<2021-01-03',
      'dateAdded<2021-01-03T11:59:59.999Z',
      'dateAdded<2021-01-03T12:00:00Z',
      'dateAdded<2021-01-03T23:59:59.999Z',
      'dateAdded>2021-01-01T12:00:00Z,dateAdded<2021-01-04T03:15:00Z',
      'dateAdded>2021-01-02T00:00:00Z,dateAdded<2021-01-02T18:30:00Z',
      'dateAdded>2021-01-02,dateAdded>2021-01-03T03:00:00Z',
      'dateAdded>2021-01-03,dateAdded<2021-01-02',
      'dateAdded>2000-01-01',
      'dateAdded<2000-01-01',
    ]
    for (const path of ['/indicators', '/indicators/hosts'])
      for (const where of windows) {
        const { listed, expected } = await counted(path, where)
        expect(listed, `${path} ${where}`).toBe(expected)
      }
    // The checks are not all empty: a midnight bound keeps that midnight's Host out, a late one most of its day.
    const in2021 = ',dateAdded<2021-01-05'
    expect(await counted('/indicators/hosts', `dateAdded>2021-01-02${in2021}`)).toEqual({ listed: 15, expected: 15 })
    expect(await counted('/indicators/hosts', `dateAdded>2021-01-02T18:30:00Z${in2021}`)).toEqual({
      listed: 13,
      expected: 13,
    })
    expect(await counted('/indicators', 'dateAdded>2020-12-31,dateAdded<2021-01-03T12:00:00Z')).toEqual({
      listed: 19,
      expected: 19,
    })
  })

  it('lists a window of dateAdded in that order, page after page', async () => {
    const page = async (start: number) =>
      (
        await v2(
          'GET',
          `/indicators/hosts?resultStart=${start}&resultLimit=5&filters=${encodeURIComponent('dateAdded>2020-12-31,dateAdded<2021-01-05')}`,
        )
      ).data.host.map((h: { summary: string }) => Number(/^dated(\d+)/.exec(h.summary)![1]))
    // Moved in the order of their numbers (Host 8 inactive, 9 deleted); their ids are in the order they were created.
    expect([
      ...(await page(0)),
      ...(await page(5)),
      ...(await page(10)),
      ...(await page(15)),
      ...(await page(20)),
    ]).toEqual(Array.from({ length: 24 }, (_, i) => i).filter((i) => i !== 8 && i !== 9))
  })

  it("answers from the tally: rows are counted only on the bounds' days", async () => {
    const owner = await orgId()
    // A whole day inside the window is the tally's total: a tally that disagrees with the rows shows in the count.
    await addToDay(owner, '2021-01-03', 100)
    const window = { ownerIds: [owner], type: 'Host', activeOnly: true }
    try {
      // 2021-01-02 after 18:30 (one Host at 23:59:59.999), all of 2021-01-03 (6 + 100), none of 2021-01-04.
      expect(
        await countIndicatorsAddedByTally(t.store.db, {
          ...window,
          after: '2021-01-02T18:30:00.000Z',
          before: '2021-01-04T00:00:00.000Z',
        }),
      ).toBe(1 + 106)
      // Both bounds on one day: the rows themselves, 03:15 to 18:30.
      expect(
        await countIndicatorsAddedByTally(t.store.db, {
          ...window,
          after: '2021-01-03T00:00:00.000Z',
          before: '2021-01-03T23:00:00.000Z',
        }),
      ).toBe(4)
    } finally {
      await addToDay(owner, '2021-01-03', -100)
    }
    const { rows, tally } = await days()
    expect(tally).toEqual(rows)
  })

  it.runIf(TEST_DB === 'postgres')('on PostgreSQL, folds the deltas once they pile up, keeping the sums', async () => {
    const owner = await orgId()
    const before = await days()
    const own = Object.keys(before.rows).filter((k) => k.startsWith(`${owner}|`))
    const dayCount = new Set(own.map((k) => k.split('|')[1])).size
    for (let i = 0; i <= dayFoldThreshold(dayCount, 1); i++) await addToDay(owner, '2021-01-03', 0)
    await countIndicatorsAddedByTally(t.store.db, {
      ownerIds: [owner],
      activeOnly: false,
      after: '2000-01-01T00:00:00.000Z',
    })
    const deltas = await sql<{
      n: number
    }>`select count(*) as n from indicator_day_tally where owner_id = ${owner}`.execute(t.store.db)
    expect(Number(deltas.rows[0].n)).toBe(own.length)
    expect((await days()).tally).toEqual(before.rows)
  })
})

describe('the confidence tally (migration 0271)', () => {
  /** Indicators per `owner|type|active|confidence` (none -1), from the rows and from the confidence tally. */
  const confidences = () =>
    rowsAndTally(
      `owner_id || '|' || type || '|' || active || '|' || coalesce(confidence, -1)`,
      'indicator_confidence_tally',
      `owner_id || '|' || type || '|' || active || '|' || confidence`,
    )

  const sure = (i: number) => `sure${i}.example`
  /** Active Indicators (of the list's type) matching the SQL condition, counted from the rows. */
  const activeWhere = async (where: string, type?: string) =>
    Number(
      (
        await sql<{ n: number }>`select count(*) as n from indicator where active = 1
          ${sql.raw(type ? `and type = '${type}'` : '')} and ${sql.raw(where)}`.execute(t.store.db)
      ).rows[0].n,
    )
  const resultCount = async (path: string, filters: string) =>
    (await v2('GET', `${path}?resultLimit=1&filters=${encodeURIComponent(filters)}`)).data.resultCount

  beforeAll(async () => {
    // Twelve Hosts at confidence 0, 10, …, 110 capped at 100; two re-sent by the batch with another confidence, one
    // changed through the API, one made inactive, one deleted; and Addresses with and without a confidence.
    await batch('Create', [
      ...Array.from({ length: 12 }, (_, i) => ({ type: 'Host', summary: sure(i), confidence: Math.min(i * 10, 100) })),
      { type: 'Address', summary: '203.0.113.7', confidence: 80 },
      { type: 'Address', summary: '203.0.113.8' },
    ])
    await batch('Create', [
      { type: 'Host', summary: sure(1), confidence: 95 },
      { type: 'Host', summary: sure(2), confidence: 51 },
    ])
    await v2('PUT', `/indicators/hosts/${sure(3)}`, { confidence: 50 })
    await v2('PUT', `/indicators/hosts/${sure(4)}`, { active: false })
    await v2('DELETE', `/indicators/hosts/${sure(5)}`)
  })

  it('follows creates, re-sent and changed confidences, flag changes and deletes', async () => {
    const { rows, tally } = await confidences()
    expect(tally).toEqual(rows)
    const owner = await orgId()
    expect([rows[`${owner}|Host|1|95`], rows[`${owner}|Host|1|51`], rows[`${owner}|Host|0|40`]]).toEqual([1, 1, 1])
    expect(rows[`${owner}|Host|1|10`]).toBeUndefined()
  })

  it('gives a v2 list filtered by confidence the exact resultCount, as counting the rows would', async () => {
    // The Hosts above 50: 51, 60, 70, 80, 90, 95, 100, 100 (sure4 at 40 inactive, sure5 deleted).
    expect(await resultCount('/indicators/hosts', 'confidence>50')).toBe(8)
    expect(await activeWhere('confidence > 50', 'Host')).toBe(8)
    for (const filters of [
      'confidence>50',
      'confidence<30',
      'confidence=50',
      'confidence>20,confidence<90',
      'confidence>100',
    ])
      for (const [path, type] of [
        ['/indicators', undefined],
        ['/indicators/hosts', 'Host'],
        ['/indicators/addresses', 'Address'],
      ] as const) {
        const where = filters
          .split(',')
          .map((f) => f.replace('confidence', 'confidence '))
          .join(' and ')
        expect(await resultCount(path, filters), `${path} ${filters}`).toBe(await activeWhere(where, type))
      }
    // No confidence never compares: the Address without one is in neither side.
    expect(await resultCount('/indicators/addresses', 'confidence<101')).toBe(1)
    // Rating and confidence together: no one tally answers, the rows are counted.
    expect(await resultCount('/indicators', 'confidence>50,rating>2')).toBe(
      await activeWhere('confidence > 50 and rating > 2'),
    )
  })

  it('answers from the tally, not from the rows', async () => {
    const owner = await orgId()
    const planted = async (n: number) =>
      t.store.dialect === 'postgres'
        ? sql`insert into indicator_confidence_tally (owner_id, type, active, confidence, n)
            values (${owner}, 'Host', 1, 77, ${n})`.execute(t.store.db)
        : sql`insert into indicator_confidence_tally (owner_id, type, active, confidence, n)
            values (${owner}, 'Host', 1, 77, ${n}) on conflict (owner_id, type, active, confidence)
            do update set n = n + excluded.n`.execute(t.store.db)
    const before = await resultCount('/indicators/hosts', 'confidence>50')
    await planted(1000)
    try {
      expect(await resultCount('/indicators/hosts', 'confidence>50')).toBe(before + 1000)
      expect(await resultCount('/indicators/hosts', 'confidence<50')).toBe(await activeWhere('confidence < 50', 'Host'))
    } finally {
      await planted(-1000)
    }
    const { rows, tally } = await confidences()
    expect(tally).toEqual(rows)
  })

  it.runIf(TEST_DB === 'postgres')(
    'on PostgreSQL, folds once the deltas outnumber the keys, and an owner with many keys is not folded at every read',
    async () => {
      const owner = await orgId()
      const ctids = async () =>
        (
          await sql<{
            ctid: string
          }>`select ctid::text as ctid from indicator_confidence_tally where owner_id = ${owner} order by 1`.execute(
            t.store.db,
          )
        ).rows.map((r) => r.ctid)
      const count = () =>
        countIndicatorsByTally(t.store.db, {
          ownerIds: [owner],
          activeOnly: false,
          compare: { column: 'confidence', conditions: [{ op: '>', value: -5 }] },
        })
      const total = await count()
      // More keys than FOLD_AFTER_ROWS, one delta each (inactive Hosts at confidences no API could set).
      const many = FOLD_AFTER_ROWS * 3
      await sql`insert into indicator_confidence_tally (owner_id, type, active, confidence, n)
        select ${owner}, 'Host', 0, 1000 + k, 1 from generate_series(1, ${many}) k`.execute(t.store.db)
      expect(await count()).toBe(total + many)
      const kept = await ctids()
      expect(await count()).toBe(total + many)
      expect(await ctids()).toEqual(kept)
      await sql`delete from indicator_confidence_tally where owner_id = ${owner} and confidence > 1000`.execute(
        t.store.db,
      )
      // Deltas beyond one a key: folded into one row per key with a count.
      await sql`insert into indicator_confidence_tally (owner_id, type, active, confidence, n)
        select ${owner}, 'Host', 1, 77, 0 from generate_series(1, ${FOLD_AFTER_ROWS + 1})`.execute(t.store.db)
      expect(await count()).toBe(total)
      const { rows, tally } = await confidences()
      expect(tally).toEqual(rows)
      const own = Object.keys(rows).filter((k) => k.startsWith(`${owner}|`)).length
      expect((await ctids()).length).toBe(own)
    },
  )

  it.runIf(TEST_DB === 'postgres')(
    "on PostgreSQL, a batch job folds its owner's deltas when it ends, so a load leaves no pile for the first read",
    async () => {
      const owner = await orgId()
      const rowsOf = async (table: string) =>
        Number(
          (
            await sql<{ n: number }>`select count(*) as n from ${sql.table(table)} where owner_id = ${owner}`.execute(
              t.store.db,
            )
          ).rows[0].n,
        )
      // Twenty chunks of a hundred Hosts, each statement adding a delta for each of its confidences and ratings.
      setFixedChunkSize(100)
      try {
        await batch(
          'Create',
          Array.from({ length: 2000 }, (_, i) => ({
            type: 'Host',
            summary: `piled${i}.example`,
            confidence: i % 101,
            rating: (i % 5) + 1,
          })),
        )
      } finally {
        setFixedChunkSize(undefined)
      }
      const { rows, tally } = await confidences()
      expect(tally).toEqual(rows)
      // One row a key left of the 20 × 100 deltas the chunks wrote: the owner's keys, with none beyond.
      expect(await rowsOf('indicator_confidence_tally')).toBe(
        Object.keys(rows).filter((k) => k.startsWith(`${owner}|`)).length,
      )
      expect(await rowsOf('indicator_tally')).toBe(
        Object.keys((await counted()).rows).filter((k) => k.startsWith(`${owner}|`)).length,
      )
    },
  )
})

describe('the v2 filters counted without reading their rows (migration 0273)', () => {
  const scored = (i: number) => `scored${i}.example`
  /** Indicators per `owner|type|active|ThreatAssess score` (none -1), from the rows and from the score tally. */
  const scores = () =>
    rowsAndTally(
      `owner_id || '|' || type || '|' || active || '|' || coalesce(threat_assess_score, -1)`,
      'indicator_score_tally',
      `owner_id || '|' || type || '|' || active || '|' || score`,
    )
  /** Indicators of the list (active only unless the filters name `active`) matching the SQL condition, counted. */
  const rowsWhere = async (where: string, type?: string, activeOnly = true) =>
    Number(
      (
        await sql<{
          n: number
        }>`select count(*) as n from indicator where ${sql.raw(activeOnly ? 'active = 1' : '1 = 1')}
          ${sql.raw(type ? `and type = '${type}'` : '')} and ${sql.raw(where)}`.execute(t.store.db)
      ).rows[0].n,
    )
  const resultCount = async (path: string, filters: string) =>
    (await v2('GET', `${path}?resultLimit=100&filters=${encodeURIComponent(filters)}`)).data

  beforeAll(async () => {
    // Ten Hosts rated 1…5 or not at all, at confidences 0…90 or none; one observed, two reported false positives,
    // two tracked by DNS, one by WHOIS, one made inactive; Addresses with and without a rating.
    await batch('Create', [
      ...Array.from({ length: 10 }, (_, i) => ({
        type: 'Host',
        summary: scored(i),
        ...(i % 6 === 5 ? {} : { rating: (i % 6) + 1 }),
        ...(i % 4 === 3 ? {} : { confidence: i * 10 }),
      })),
      { type: 'Address', summary: '198.51.100.7', rating: 3, confidence: 70 },
      { type: 'Address', summary: '198.51.100.8' },
    ])
    await v2('POST', `/indicators/hosts/${scored(1)}/observations`, { count: 7 })
    await v2('POST', `/indicators/hosts/${scored(2)}/falsePositive`)
    await v2('POST', `/indicators/hosts/${scored(3)}/falsePositive`)
    await v2('PUT', `/indicators/hosts/${scored(4)}`, { dnsActive: true, whoisActive: true })
    await v2('PUT', `/indicators/hosts/${scored(6)}`, { dnsActive: true })
    await v2('PUT', `/indicators/hosts/${scored(7)}`, { active: false, rating: 2 })
  })

  it('keeps the score tally true through creates, observations, false positives and changes', async () => {
    const { rows, tally } = await scores()
    expect(tally).toEqual(rows)
    // scored1: rating 2 × confidence 10 × 1.6 = 32, and 7 observations add 14.
    expect(await rowsWhere(`summary = '${scored(1)}' and threat_assess_score = 46`)).toBe(1)
  })

  it('gives every filter of ThreatAssess, false positives, tracking and Address data the exact resultCount', async () => {
    expect((await resultCount('/indicators/hosts', 'falsePositive>0')).resultCount).toBe(2)
    expect((await resultCount('/indicators/hosts', 'dnsActive=true')).host.map((h: any) => h.summary)).toEqual([
      scored(4),
      scored(6),
    ])
    // Filters of one type's data (Host flags, Address data) are taken by that type's list only.
    const cases: [filters: string, where: string, activeOnly?: boolean, only?: string][] = [
      ['threatAssessScore>100', 'threat_assess_score > 100'],
      ['threatAssessScore<50', 'threat_assess_score < 50'],
      ['threatAssessScore=0', 'threat_assess_score = 0'],
      ['threatAssessScore>10,threatAssessScore<200', 'threat_assess_score > 10 and threat_assess_score < 200'],
      ['threatAssessRating>2', 'threat_assess_rating > 2'],
      // An unrated Indicator's ThreatAssess rating is 0: it is below 1, where its rating compares with nothing.
      ['threatAssessRating<1', 'threat_assess_rating < 1'],
      ['threatAssessConfidence<25', 'threat_assess_confidence < 25'],
      ['threatAssessConfidence>50', 'threat_assess_confidence > 50'],
      ['falsePositive>0', 'false_positive_count > 0'],
      ['falsePositive=0', 'false_positive_count = 0'],
      ['falsePositive<2', 'false_positive_count < 2'],
      ['falsePositive=1', 'false_positive_count = 1'],
      ['dnsActive=true', 'dns_active = 1', true, 'Host'],
      ['dnsActive=false', 'dns_active = 0', true, 'Host'],
      ['whoisActive=true', 'whois_active = 1', true, 'Host'],
      ['active=false', 'active = 0', false],
      ['active=true,rating>2', 'active = 1 and rating > 2', false],
      ['active=false,falsePositive=0', 'active = 0 and false_positive_count = 0', false],
      ['city=Paris', "address_city = 'Paris'", true, 'Address'],
      ['asn=64500', 'address_asn = 64500', true, 'Address'],
    ]
    for (const [filters, where, activeOnly, only] of cases)
      for (const [path, type] of [
        ['/indicators', undefined],
        ['/indicators/hosts', 'Host'],
        ['/indicators/addresses', 'Address'],
      ] as const) {
        if (only && type !== only) continue
        const counted = await rowsWhere(where, type, activeOnly)
        const listed = await resultCount(path, filters)
        expect(listed.resultCount, `${path} ${filters}`).toBe(counted)
        if (counted <= 100) expect(listed.indicator ?? listed.host ?? listed.address ?? []).toHaveLength(counted)
      }
  })

  it('answers from the tallies: the score tally for the score, the totals less the rows off 0 for false positives', async () => {
    const owner = await orgId()
    const plant = async (table: string, column: string, value: number, n: number) =>
      t.store.dialect === 'postgres'
        ? sql`insert into ${sql.table(table)} (owner_id, type, active, ${sql.ref(column)}, n)
            values (${owner}, 'Host', 1, ${value}, ${n})`.execute(t.store.db)
        : sql`insert into ${sql.table(table)} (owner_id, type, active, ${sql.ref(column)}, n)
            values (${owner}, 'Host', 1, ${value}, ${n}) on conflict (owner_id, type, active, ${sql.ref(column)})
            do update set n = n + excluded.n`.execute(t.store.db)
    const count = async (filters: string) => (await resultCount('/indicators/hosts', filters)).resultCount
    const before = await Promise.all(['threatAssessScore>900', 'falsePositive=0', 'falsePositive>0'].map(count))
    await plant('indicator_score_tally', 'score', 950, 1000)
    await plant('indicator_tally', 'rating', 4, 500)
    try {
      expect(await count('threatAssessScore>900')).toBe(before[0]! + 1000)
      // The Hosts' total comes from the rating tally; those off 0 from their rows.
      expect(await count('falsePositive=0')).toBe(before[1]! + 500)
      expect(await count('falsePositive>0')).toBe(before[2])
    } finally {
      await plant('indicator_score_tally', 'score', 950, -1000)
      await plant('indicator_tally', 'rating', 4, -500)
    }
    const { rows, tally } = await scores()
    expect(tally).toEqual(rows)
  })
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { feedOwners } from '../access/owner-scope.js'
import { authenticate } from '../access/authentication.js'
import type { Caller } from '../context.js'
import { ORG, type TestApp, createTestApp } from '../../test/harness.js'
import { type FeedIndicator, type FeedPosition, MAX_FEED_PAGE, countFeed, planFeedPage, readFeed } from './feed.js'

let t: TestApp
const ids: Record<string, number> = {}

async function basicCaller(userName: string, password: string): Promise<Caller> {
  const authorization = `Basic ${Buffer.from(`${userName}:${password}`).toString('base64')}`
  return authenticate(
    t.services,
    { authorization, timestamp: undefined, pathAndQuery: '/', method: 'GET', nowMs: Date.now() },
    ['basic'],
  )
}

async function insertIndicators(
  ownerId: number,
  rows: { type?: string; summary: string; lastModified: string; v?: (string | null)[] }[],
) {
  const values = rows.map((r) => ({
    owner_id: ownerId,
    type: r.type ?? 'Host',
    summary: r.summary,
    value1: r.v?.[0] ?? r.summary,
    value2: r.v?.[1] ?? null,
    value3: r.v?.[2] ?? null,
    date_added: r.lastModified,
    last_modified: r.lastModified,
    rating: 3,
    confidence: 70,
  }))
  for (let i = 0; i < values.length; i += 500)
    await t.store.db
      .insertInto('indicator')
      .values(values.slice(i, i + 500))
      .execute()
}

async function walk(
  caller: Caller,
  ownerId: number,
  limit: number,
  between?: (page: number) => Promise<void>,
): Promise<FeedIndicator[]> {
  const seen: FeedIndicator[] = []
  let after: FeedPosition | undefined
  for (let page = 0; ; page++) {
    const result = await readFeed(t.store, caller, { ownerId, after, limit })
    expect(result.indicators.length).toBeLessThanOrEqual(limit)
    seen.push(...result.indicators)
    if (!result.more) return seen
    after = result.last
    await between?.(page)
  }
}

beforeAll(async () => {
  t = await createTestApp()
  ids.org = (await t.store.db.selectFrom('owner').select('id').where('name', '=', ORG).executeTakeFirstOrThrow()).id
  ids.community = await t.createOwner('Feed Community', 'Community')
  ids.banned = await t.createOwner('Feed Banned Community', 'Community')
  ids.source = await t.createOwner('Feed Source', 'Source')
  ids.other = await t.createOwner('Feed Unrelated Community', 'Community')
})
afterAll(() => t.close())

describe('feed owners', () => {
  it('lists the Organization for Standard User, and Communities and Sources for any role but Banned', async () => {
    const account = await t.createAccount({
      kind: 'taxii',
      password: 'feed-pass-1',
      role: 'Standard User',
      memberships: { 'Feed Community': 'Subscriber', 'Feed Banned Community': 'Banned', 'Feed Source': 'Director' },
    })
    const owners = feedOwners(await basicCaller(account.userName, 'feed-pass-1'))
    expect(owners.map((o) => [o.ownerName, o.ownerType, o.role])).toEqual([
      [ORG, 'Organization', 'Standard User'],
      ['Feed Community', 'Community', 'Subscriber'],
      ['Feed Source', 'Source', 'Director'],
    ])
  })

  it('leaves out an Organization read with a role below Standard User (an API account: TAXII accounts are always Standard User)', async () => {
    const account = await t.createAccount({
      kind: 'api',
      role: 'Read Only User',
      memberships: { 'Feed Community': 'User' },
    })
    const caller = await authenticate(
      t.services,
      {
        authorization: `TC-Token ${account.token}`,
        timestamp: undefined,
        pathAndQuery: '/',
        method: 'GET',
        nowMs: Date.now(),
      },
      ['token'],
    )
    expect(feedOwners(caller).map((o) => o.ownerName)).toEqual(['Feed Community'])
    await expect(readFeed(t.store, caller, { ownerId: ids.org, limit: 10 })).rejects.toMatchObject({
      code: 'not_found',
    })
    await expect(readFeed(t.store, caller, { ownerId: ids.other, limit: 10 })).rejects.toMatchObject({
      code: 'not_found',
    })
  })
})

describe('feed pages', () => {
  let caller: Caller
  const shared = '2026-01-02T03:04:05.678Z'

  beforeAll(async () => {
    const account = await t.createAccount({
      kind: 'taxii',
      password: 'feed-pass-3',
      memberships: { 'Feed Community': 'Subscriber', 'Feed Source': 'User' },
    })
    caller = await basicCaller(account.userName, 'feed-pass-3')
    // 1,500 Indicators on one millisecond, with earlier and later ones around them.
    await insertIndicators(ids.community, [
      ...Array.from({ length: 20 }, (_, i) => ({
        summary: `early-${i}.example`,
        lastModified: `2026-01-01T00:00:${String(i).padStart(2, '0')}.000Z`,
      })),
      ...Array.from({ length: 1500 }, (_, i) => ({ summary: `same-${i}.example`, lastModified: shared })),
      ...Array.from({ length: 30 }, (_, i) => ({
        type: 'Address',
        summary: `10.0.0.${i}`,
        lastModified: `2026-02-01T00:00:${String(i).padStart(2, '0')}.000Z`,
      })),
    ])
    const first = await t.store.db
      .selectFrom('indicator')
      .select('id')
      .where('summary', '=', 'early-0.example')
      .executeTakeFirstOrThrow()
    const now = '2026-01-01T00:00:00.000Z'
    // Named against their creation order: the names come back sorted, not in link order.
    const tag = await t.store.db
      .insertInto('tag')
      .values({ owner_id: ids.community, name: 'botnet', date_added: now })
      .returning('id')
      .executeTakeFirstOrThrow()
    const tag2 = await t.store.db
      .insertInto('tag')
      .values({ owner_id: ids.community, name: 'APT "x"', date_added: now })
      .returning('id')
      .executeTakeFirstOrThrow()
    const label = await t.store.db
      .insertInto('security_label')
      .values({ owner_id: ids.community, name: 'TLP:AMBER', date_added: now })
      .returning('id')
      .executeTakeFirstOrThrow()
    await t.store.db
      .insertInto('item_tag')
      .values([
        { tag_id: tag.id, item_kind: 'indicator', item_id: first.id, date_added: now },
        { tag_id: tag2.id, item_kind: 'indicator', item_id: first.id, date_added: now },
      ])
      .execute()
    await t.store.db
      .insertInto('item_security_label')
      .values({ label_id: label.id, item_kind: 'indicator', item_id: first.id, date_added: now })
      .execute()
  })

  it('returns each Indicator with its values, rating, confidence, flags, dates, tags and labels', async () => {
    const page = await readFeed(t.store, caller, { ownerId: ids.community, limit: 2 })
    expect(page.more).toBe(true)
    expect(page.indicators[0]).toMatchObject({
      ownerId: ids.community,
      type: 'Host',
      summary: 'early-0.example',
      values: ['early-0.example', null, null],
      rating: 3,
      confidence: 70,
      active: true,
      dateAdded: '2026-01-01T00:00:00.000Z',
      lastModified: '2026-01-01T00:00:00.000Z',
      expires: null,
      tags: ['APT "x"', 'botnet'],
      securityLabels: ['TLP:AMBER'],
    })
    expect(page.indicators[1]).toMatchObject({ summary: 'early-1.example', tags: [], securityLabels: [] })
    expect(page.last).toEqual({ lastModified: '2026-01-01T00:00:01.000Z', id: page.indicators[1].id })
  })

  it('reads the same page inside a transaction, names included', async () => {
    const outside = await readFeed(t.store, caller, { ownerId: ids.community, limit: 3 })
    const inside = await t.store.db
      .transaction()
      .execute((trx) => readFeed({ ...t.store, db: trx }, caller, { ownerId: ids.community, limit: 3 }))
    expect(inside).toEqual(outside)
    expect(inside.indicators[0]).toMatchObject({ tags: ['APT "x"', 'botnet'], securityLabels: ['TLP:AMBER'] })
  })

  it("never reads another request's uncommitted writes, beside its open transaction", async () => {
    const first = (await readFeed(t.store, caller, { ownerId: ids.community, limit: 1 })).indicators[0]
    let outsideDuring: string | undefined
    await t.store.db.transaction().execute(async (trx) => {
      await trx.updateTable('indicator').set({ summary: 'uncommitted.example' }).where('id', '=', first.id).execute()
      // On SQLite the read waits for the commit (one connection); on PostgreSQL it reads the committed row.
      const outside = readFeed(t.store, caller, { ownerId: ids.community, limit: 1 }).then((page) => {
        outsideDuring = page.indicators[0].summary
      })
      if (t.store.dialect === 'postgres') await outside
      await trx.updateTable('indicator').set({ summary: first.summary }).where('id', '=', first.id).execute()
    })
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(outsideDuring).toBe(first.summary)
  })

  it('walks every Indicator once, in (lastModified, id) order, across pages that split one timestamp', async () => {
    for (const limit of [7, 100, 1499]) {
      const seen = await walk(caller, ids.community, limit)
      expect(seen).toHaveLength(1550)
      expect(new Set(seen.map((s) => s.id)).size).toBe(1550)
      const keys = seen.map((s) => `${s.lastModified}#${String(s.id).padStart(10, '0')}`)
      expect(keys).toEqual([...keys].sort())
    }
  })

  it('bounds by time: since exclusive, until inclusive, and filters by type', async () => {
    const since = await readFeed(t.store, caller, { ownerId: ids.community, since: shared, limit: 100 })
    expect(since.indicators.map((i) => i.summary)).toEqual(Array.from({ length: 30 }, (_, i) => `10.0.0.${i}`))
    const until = await readFeed(t.store, caller, {
      ownerId: ids.community,
      until: '2026-01-01T00:00:04.000Z',
      limit: 100,
    })
    expect(until.indicators.map((i) => i.summary)).toEqual([
      'early-0.example',
      'early-1.example',
      'early-2.example',
      'early-3.example',
      'early-4.example',
    ])
    expect(until.more).toBe(false)
    const window = await readFeed(t.store, caller, {
      ownerId: ids.community,
      since: '2026-01-01T00:00:18.000Z',
      until: shared,
      limit: 5,
    })
    expect(window.indicators.map((i) => i.summary)).toEqual([
      'early-19.example',
      'same-0.example',
      'same-1.example',
      'same-2.example',
      'same-3.example',
    ])
    const typed = await readFeed(t.store, caller, { ownerId: ids.community, types: ['Address'], limit: 3 })
    expect(typed.indicators.map((i) => i.summary)).toEqual(['10.0.0.0', '10.0.0.1', '10.0.0.2'])
    const rest = await readFeed(t.store, caller, {
      ownerId: ids.community,
      types: ['Address'],
      after: typed.last,
      limit: 100,
    })
    expect(rest.indicators).toHaveLength(27)
    expect(rest.more).toBe(false)
  })

  it('a position past a time and `since` combine to the later of the two', async () => {
    const first = await readFeed(t.store, caller, { ownerId: ids.community, limit: 25 })
    const fromSince = await readFeed(t.store, caller, {
      ownerId: ids.community,
      after: first.last,
      since: '2026-01-01T00:00:00.000Z',
      limit: 1,
    })
    expect(fromSince.indicators[0].summary).toBe('same-5.example')
    const laterSince = await readFeed(t.store, caller, {
      ownerId: ids.community,
      after: first.last,
      since: shared,
      limit: 1,
    })
    expect(laterSince.indicators[0].summary).toBe('10.0.0.0')
  })

  it('counts what a read would walk from a position, within the window, up to a cap', async () => {
    expect(await countFeed(t.store, caller, { ownerId: ids.community })).toBe(1550)
    expect(
      await countFeed(t.store, caller, { ownerId: ids.community, since: '2026-01-01T00:00:18.000Z', until: shared }),
    ).toBe(1501)
    expect(await countFeed(t.store, caller, { ownerId: ids.community, types: ['Address'] })).toBe(30)
    const first = await readFeed(t.store, caller, { ownerId: ids.community, limit: 25 })
    // 25 served: 1,525 left, 1,495 of them on the shared millisecond after the position.
    expect(await countFeed(t.store, caller, { ownerId: ids.community, after: first.last })).toBe(1525)
    expect(await countFeed(t.store, caller, { ownerId: ids.community, after: first.last, until: shared })).toBe(1495)
    expect(await countFeed(t.store, caller, { ownerId: ids.community, after: first.last, cap: 1001 })).toBe(1001)
    expect(
      await countFeed(t.store, caller, { ownerId: ids.community, after: first.last, until: shared, cap: 1496 }),
    ).toBe(1495)
    await expect(countFeed(t.store, caller, { ownerId: ids.other })).rejects.toMatchObject({ code: 'not_found' })
  })

  it('loses nothing and repeats no version when Indicators are added and changed during a walk', async () => {
    await insertIndicators(
      ids.source,
      Array.from({ length: 300 }, (_, i) => ({ summary: `walk-${i}.example`, lastModified: shared })),
    )
    const rows = await t.store.db
      .selectFrom('indicator')
      .select(['id', 'summary'])
      .where('owner_id', '=', ids.source)
      .orderBy('id')
      .execute()
    let added = 0
    const seen = await walk(caller, ids.source, 40, async (page) => {
      const now = new Date(Date.parse('2026-03-01T00:00:00.000Z') + page * 1000).toISOString()
      await insertIndicators(ids.source, [{ summary: `added-${added++}.example`, lastModified: now }])
      // Change one Indicator not yet served and one already served.
      await t.store.db
        .updateTable('indicator')
        .set({ last_modified: now })
        .where('id', 'in', [rows[299 - page].id, rows[page].id])
        .execute()
    })
    const versions = seen.map((s) => `${s.id}@${s.lastModified}`)
    expect(new Set(versions).size).toBe(versions.length)
    const everyId = await t.store.db.selectFrom('indicator').select('id').where('owner_id', '=', ids.source).execute()
    expect(new Set(seen.map((s) => s.id))).toEqual(new Set(everyId.map((r) => r.id)))
    expect(added).toBeGreaterThan(5)
    // Each served Indicator's last sighting in the walk is its current version.
    const current = new Map(
      (
        await t.store.db
          .selectFrom('indicator')
          .select(['id', 'last_modified'])
          .where('owner_id', '=', ids.source)
          .execute()
      ).map((r) => [r.id, r.last_modified]),
    )
    const lastSeen = new Map(seen.map((s) => [s.id, s.lastModified]))
    expect(lastSeen).toEqual(current)
  })

  it('plans a page from positions alone: the bounds and `more` of the page readFeed returns, wherever it falls in the order', async () => {
    let after: FeedPosition | undefined
    // Into the shared millisecond, splitting it, then past the end (25 + 1,000 + 600 > 1,550).
    for (const limit of [25, 1000, 600]) {
      const plan = await planFeedPage(t.store, caller, { ownerId: ids.community, after, limit })
      const page = await readFeed(t.store, caller, { ownerId: ids.community, after, limit })
      const first = page.indicators[0]
      expect(plan).toEqual({
        count: page.indicators.length,
        first: { lastModified: first.lastModified, id: first.id },
        last: page.last,
        more: page.more,
      })
      after = page.last
    }
    expect(await planFeedPage(t.store, caller, { ownerId: ids.community, after, limit: 5 })).toEqual({
      count: 0,
      more: false,
    })
  })

  it("plans exactly the page readFeed returns from every position, for every page size around the seeks' ends", async () => {
    const small = await t.createOwner('Feed Small Source', 'Source')
    const account = await t.createAccount({
      kind: 'taxii',
      password: 'feed-pass-small',
      memberships: { 'Feed Small Source': 'User' },
    })
    const reader = await basicCaller(account.userName, 'feed-pass-small')
    // Runs of 1, 4, 2 and 5 Indicators sharing a millisecond: a position splits a run, so a page is read in two seeks.
    const runs = [1, 4, 2, 5]
    await insertIndicators(
      small,
      runs.flatMap((size, run) =>
        Array.from({ length: size }, (_, i) => ({
          summary: `run-${run}-${i}.example`,
          lastModified: `2026-03-0${run + 1}T00:00:00.000Z`,
        })),
      ),
    )
    const all = (await readFeed(t.store, reader, { ownerId: small, limit: 100 })).indicators
    expect(all).toHaveLength(12)
    for (const after of [undefined, ...all.map((i) => ({ lastModified: i.lastModified, id: i.id }))]) {
      for (let limit = 1; limit <= 13; limit++) {
        const page = await readFeed(t.store, reader, { ownerId: small, after, limit })
        const plan = await planFeedPage(t.store, reader, { ownerId: small, after, limit })
        const first = page.indicators[0]
        expect(plan, `after ${after?.id}, limit ${limit}`).toEqual(
          page.indicators.length
            ? {
                count: page.indicators.length,
                first: { lastModified: first.lastModified, id: first.id },
                last: page.last,
                more: page.more,
              }
            : { count: 0, more: false },
        )
      }
    }
  })

  it('reads a planned page in parts up to its last Indicator; one changed meanwhile moves past the bound to a later page', async () => {
    const plan = await planFeedPage(t.store, caller, { ownerId: ids.source, limit: 60 })
    const whole = await readFeed(t.store, caller, { ownerId: ids.source, limit: 60 })
    expect(plan.count).toBe(60)
    const changed = whole.indicators[10]
    const later = '2027-01-01T00:00:00.000Z'
    await t.store.db.updateTable('indicator').set({ last_modified: later }).where('id', '=', changed.id).execute()
    const parts: FeedIndicator[] = []
    let after: FeedPosition | undefined
    for (;;) {
      const part = await readFeed(t.store, caller, { ownerId: ids.source, after, through: plan.last, limit: 7 })
      parts.push(...part.indicators)
      if (!part.more) break
      after = part.last
    }
    expect(parts.map((i) => i.id)).toEqual(whole.indicators.filter((i) => i.id !== changed.id).map((i) => i.id))
    const rest = await readFeed(t.store, caller, { ownerId: ids.source, after: plan.last, limit: MAX_FEED_PAGE })
    expect(rest.indicators.at(-1)).toMatchObject({ id: changed.id, lastModified: later })
  })

  it('filters by version: the later of the last change and the creation', async () => {
    const created = '2026-01-05T00:00:00.000Z'
    const byVersion = (versions: string[]) => readFeed(t.store, caller, { ownerId: ids.community, versions, limit: 3 })
    await t.store.db
      .updateTable('indicator')
      .set({ date_added: created })
      .where('summary', '=', 'early-5.example')
      .execute()
    try {
      expect((await byVersion(['2026-01-01T00:00:03.000Z', shared])).indicators.map((i) => i.summary)).toEqual([
        'early-3.example',
        'same-0.example',
        'same-1.example',
      ])
      expect((await byVersion([created])).indicators.map((i) => i.summary)).toEqual(['early-5.example'])
      expect((await byVersion(['2026-01-01T00:00:05.000Z'])).indicators).toEqual([])
      expect(await planFeedPage(t.store, caller, { ownerId: ids.community, versions: [], limit: 3 })).toEqual({
        count: 0,
        more: false,
      })
    } finally {
      await t.store.db
        .updateTable('indicator')
        .set({ date_added: '2026-01-01T00:00:05.000Z' })
        .where('summary', '=', 'early-5.example')
        .execute()
    }
  })

  it('clamps the page size to the maximum and refuses a non-positive one', async () => {
    const page = await readFeed(t.store, caller, { ownerId: ids.community, limit: MAX_FEED_PAGE + 5 })
    expect(page.indicators).toHaveLength(1550)
    await expect(readFeed(t.store, caller, { ownerId: ids.community, limit: 0 })).rejects.toMatchObject({
      code: 'invalid',
    })
  })
})

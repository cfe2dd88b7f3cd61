/**
 * A v3 page filtered by one tag, on PostgreSQL, once the tag's id was found first (tql/index.ts namedTags): the
 * page walks the tag's links in item order (item_tag_tag), fetches each Indicator by key, and stops after the page.
 * The store is large enough for a planner to price reading every row above that walk, and the plan holds with no
 * statistics, with statistics that make one tag a third of the owner's rows, and with statistics taken before the
 * newest owner and its tag existed. A small table's plans prove nothing here: reading all of it is cheap.
 */
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_DB, createTestStore } from '../../test/harness.js'
import { compileTql } from '../../tql/index.js'
import type { Store } from '../connect.js'
import { type IdQuery, readIdPage, selectIds } from './object-list.repository.js'
import { findTagIdsByLowerName } from './tag.repository.js'
import { type PlanNode, planNodes } from '../../test/statement-plans.js'

const NOW = new Date('2026-03-15T10:20:30Z')
const AT = '2026-03-14T00:00:00.000Z'
/** Of every 20 Indicators, 18 are the first owner's, one each the others'. */
const INDICATORS = 100_000

let store: Store
let drop: () => Promise<void>
const owners: number[] = []

async function createOwner(name: string): Promise<number> {
  const row = await store.db
    .insertInto('owner')
    .values({ name, type: 'Organization', date_added: AT })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

async function createTag(ownerId: number, name: string): Promise<number> {
  const row = await store.db
    .insertInto('tag')
    .values({ owner_id: ownerId, name, date_added: AT })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

/** `count` Hosts from `from`, owned as `ownerOf` (a SQL expression of the series' i) says. */
async function insertIndicators(from: number, count: number, ownerOf: ReturnType<typeof sql>) {
  await sql`
    INSERT INTO indicator (owner_id, type, summary, value1, rating, date_added, last_modified)
    SELECT ${ownerOf}, 'Host', 'h' || i || '.plans.example', 'h' || i || '.plans.example', i % 6, ${AT}, ${AT}
    FROM generate_series(${from}::int, ${from + count - 1}::int) AS i`.execute(store.db)
}

async function tagIndicators(tagId: number, where: ReturnType<typeof sql>) {
  await sql`
    INSERT INTO item_tag (tag_id, item_kind, item_id, date_added)
    SELECT ${tagId}, 'indicator', id, ${AT} FROM indicator WHERE ${where}`.execute(store.db)
}

async function pagePlan(tag: string, ownerIds: number[] | null): Promise<{ q: IdQuery; plan: PlanNode[] }> {
  const tagIds = await findTagIdsByLowerName(store.db, [tag], owners)
  const compiled = compileTql('indicators', `tag = "${tag}"`, {
    dialect: 'postgres',
    now: NOW,
    visibleOwnerIds: owners,
    tagIds,
  })
  const q: IdQuery = {
    table: 'indicator',
    ownerIds,
    where: [compiled.where],
    seekable: compiled.seekable,
    leadingTag: compiled.leadingTag,
    orderBy: [],
  }
  const plan = await readIdPage(store.db, q, { offset: 0, limit: 101 }, async (query, handle) => {
    const c = query.compile()
    const result = await handle.executeQuery<{ 'QUERY PLAN': { Plan: PlanNode }[] }>({
      ...c,
      sql: `EXPLAIN (FORMAT JSON) ${c.sql}`,
    })
    return planNodes(result.rows[0]!['QUERY PLAN'][0]!.Plan)
  })
  return { q, plan }
}

/** The tag's links in item order, each Indicator by key: no sort, nothing read in the order of the Indicators. */
async function expectWalk(tag: string, ownerIds: number[] | null): Promise<number> {
  const { q, plan } = await pagePlan(tag, ownerIds)
  expect(q.leadingTag).toMatchObject({ tagId: expect.any(Number), kind: 'indicator' })
  expect(plan.map((n) => n['Node Type'])).not.toContain('Sort')
  expect(
    plan.filter((n) => n['Relation Name']).map((n) => [n['Relation Name'], n['Index Name'], n['Index Cond']]),
  ).toEqual([
    ['item_tag', 'item_tag_tag', expect.stringMatching(/^\(\(tag_id = \d+\) AND \(item_kind = 'indicator'::text\)\)$/)],
    ['indicator', 'indicator_pkey', '(id = (lead.item_id + 0))'],
  ])
  const tagged = await store.db
    .selectFrom('item_tag')
    .select('item_id')
    .where('tag_id', '=', q.leadingTag!.tagId)
    .orderBy('item_id')
    .execute()
  const expected = tagged.map((r) => r.item_id).filter((id) => ownerIds === null || ownerIds.includes(ownerOf.get(id)!))
  expect(await selectIds(store.db, q, { offset: 0, limit: 101 })).toEqual(expected.slice(0, 101))
  if (expected.length > 150)
    expect(await selectIds(store.db, q, { offset: 0, limit: 50, afterId: expected[99] })).toEqual(
      expected.slice(100, 150),
    )
  return expected.length
}

/** Each Indicator's owner, for the pages the tests expect. */
const ownerOf = new Map<number, number>()
async function readOwners() {
  for (const r of await store.db.selectFrom('indicator').select(['id', 'owner_id']).execute())
    ownerOf.set(r.id, r.owner_id)
}

/** The owners a page lists, given the tag's owner. */
const OWNER_CASES: [string, (tagOwner: number) => number[] | null][] = [
  ["the tag's owner", (o) => [o]],
  ["the tag's owner and another", (o) => [owners[1]!, o]],
  ['no owner filter', () => null],
]

describe.runIf(TEST_DB === 'postgres')('a page of one tag found by id, PostgreSQL', () => {
  beforeAll(async () => {
    ;({ store, drop } = await createTestStore())
    for (const name of ['Big', 'Middle', 'Small']) owners.push(await createOwner(name))
    await insertIndicators(
      1,
      INDICATORS,
      sql`CASE WHEN i % 20 = 18 THEN ${owners[1]!}::int WHEN i % 20 = 19 THEN ${owners[2]!}::int ELSE ${owners[0]!}::int END`,
    )
    const popular = await createTag(owners[0]!, 'popular')
    await tagIndicators(popular, sql`owner_id = ${owners[0]!} AND id % 3 = 0`)
    // The smallest owner's last 200 Indicators: at the far end of the id order.
    const rare = await createTag(owners[2]!, 'Rare')
    await tagIndicators(
      rare,
      sql`id IN (SELECT id FROM indicator WHERE owner_id = ${owners[2]!} ORDER BY id DESC LIMIT 200)`,
    )
    await readOwners()
  }, 120_000)
  afterAll(async () => {
    await drop?.()
  })

  describe('no statistics', () => {
    it.each(OWNER_CASES)('a rare tag, %s', async (_, ownerIds) => {
      expect(await expectWalk('rare', ownerIds(owners[2]!))).toBe(200)
    })
    it.each(OWNER_CASES)('a popular tag, %s', async (_, ownerIds) => {
      expect(await expectWalk('popular', ownerIds(owners[0]!))).toBeGreaterThan(20_000)
    })
  })

  describe('statistics with one tag on a third of the owner', () => {
    beforeAll(async () => {
      await sql`ANALYZE`.execute(store.db)
    })
    it.each(OWNER_CASES)('a rare tag, %s', async (_, ownerIds) => {
      await expectWalk('rare', ownerIds(owners[2]!))
    })
    it.each(OWNER_CASES)('a popular tag, %s', async (_, ownerIds) => {
      await expectWalk('popular', ownerIds(owners[0]!))
    })
    // Walked to the end of the tag's links to find none: never the owner's rows in id order.
    it('a popular tag, an owner without it', async () => {
      expect(await expectWalk('popular', [owners[2]!])).toBe(0)
    })
  })

  describe('statistics taken before the newest owner and its tag', () => {
    beforeAll(async () => {
      const late = await createOwner('Late')
      owners.push(late)
      await insertIndicators(INDICATORS + 1, INDICATORS / 2, sql`${late}::int`)
      await tagIndicators(await createTag(late, 'late'), sql`owner_id = ${late}`)
      await readOwners()
    }, 120_000)
    it.each(OWNER_CASES)('the new tag, %s', async (_, ownerIds) => {
      await expectWalk('late', ownerIds(owners[3]!))
    })
    it.each(OWNER_CASES)('a rare tag, %s', async (_, ownerIds) => {
      await expectWalk('rare', ownerIds(owners[2]!))
    })
  })
})

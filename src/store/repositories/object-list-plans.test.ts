/**
 * The plans of v3 listings, read from the database under test with no statistics gathered (as on a
 * database only ever written through the API): the first page in id order never sorts an owner's rows.
 * Filters that only filter (no filter, type and rating, a date window) read each owner's rows in id order
 * and stop after a page; filters that name few rows (a summary prefix, a tag, a Group) start from their
 * own index and sort only what they found. SQLite: EXPLAIN QUERY PLAN; PostgreSQL: EXPLAIN (FORMAT JSON).
 */
import { type CompiledQuery, type Kysely, type KyselyPlugin, sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestStore } from '../../test/harness.js'
import { compileTql } from '../../tql/index.js'
import type { Store } from '../connect.js'
import type { Database } from '../database.js'
import { listIndicatorRows } from './indicator.repository.js'
import { type IdQuery, readIdPage, selectIds } from './object-list.repository.js'
import { type PlanNode, planNodes } from '../../test/statement-plans.js'

const NOW = new Date('2026-03-15T10:20:30Z')
const TYPES = ['Host', 'Address', 'URL', 'EmailAddress', 'File']
const PER_OWNER = [1500, 600, 150]

const FILTERS: { tql: string; seeks: boolean }[] = [
  { tql: '', seeks: false },
  { tql: 'typeName in ("Host","URL") and rating >= 3', seeks: false },
  { tql: 'summary startswith "h1234"', seeks: true },
  { tql: 'tag = "rare-tag"', seeks: true },
  { tql: 'hasGroup(name = "target group")', seeks: true },
  { tql: 'dateAdded > TODAY() - 7 DAYS', seeks: false },
]

let store: Store
let drop: () => Promise<void>
const owners: number[] = []

async function seed(db: Kysely<Database>) {
  const at = '2026-03-14T00:00:00.000Z'
  for (const name of ['Plans A', 'Plans B', 'Plans C']) {
    owners.push(
      (
        await db
          .insertInto('owner')
          .values({ name, type: 'Organization', date_added: at })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id,
    )
  }
  const tag = await db
    .insertInto('tag')
    .values({ owner_id: owners[0]!, name: 'rare-tag', date_added: at })
    .returning('id')
    .executeTakeFirstOrThrow()
  const group = await db
    .insertInto('intel_group')
    .values({
      owner_id: owners[0]!,
      type: 'Adversary',
      name: 'target group',
      xid: 'plans-target',
      date_added: at,
      last_modified: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  // Owners interleaved, as concurrent feeds write them.
  for (let i = 0; i < PER_OWNER[0]!; i += 100) {
    const rows = []
    for (const [o, count] of PER_OWNER.entries()) {
      for (let k = Math.floor((i * count) / PER_OWNER[0]!); k < Math.floor(((i + 100) * count) / PER_OWNER[0]!); k++) {
        const type = TYPES[k % TYPES.length]!
        const summary = `${type === 'Host' ? 'h' : type.toLowerCase()}${o}${k}.plans.example`
        rows.push({
          owner_id: owners[o]!,
          type,
          summary,
          value1: summary,
          rating: Math.floor(k / 5) % 6,
          date_added: at,
          last_modified: at,
        })
      }
    }
    const ids = (await db.insertInto('indicator').values(rows).returning('id').execute()).map((r) => r.id)
    const tagged = ids.filter((_, k) => k % 23 === 5)
    await db
      .insertInto('item_tag')
      .values(tagged.map((id) => ({ tag_id: tag.id, item_kind: 'indicator', item_id: id, date_added: at })))
      .execute()
    await db
      .insertInto('association')
      .values(
        tagged.flatMap((id) => [
          {
            from_kind: 'group',
            from_id: group.id,
            to_kind: 'indicator',
            to_id: id,
            association_type_id: 0,
            source: 'API',
            date_added: at,
          },
          {
            from_kind: 'indicator',
            from_id: id,
            to_kind: 'group',
            to_id: group.id,
            association_type_id: 0,
            source: 'API',
            date_added: at,
          },
        ]),
      )
      .execute()
  }
}

beforeAll(async () => {
  ;({ store, drop } = await createTestStore())
  await seed(store.db)
})
afterAll(async () => {
  await drop?.()
})

function idQuery(tql: string, ownerIds: number[] | null): IdQuery {
  const compiled = compileTql('indicators', tql, { dialect: store.dialect, now: NOW, visibleOwnerIds: owners })
  return { table: 'indicator', ownerIds, where: [compiled.where], seekable: compiled.seekable, orderBy: [] }
}

const FIRST_PAGE = { offset: 0, limit: 101 }

/** SQLite's plan lines, e.g. `SEARCH indicator USING COVERING INDEX indicator_owner_id (owner_id=?)`. */
async function sqlitePlan(q: IdQuery): Promise<string[]> {
  return readIdPage(store.db, q, FIRST_PAGE, async (query) => {
    const compiled = query.compile()
    return store
      .sqlite!.prepare(`EXPLAIN QUERY PLAN ${compiled.sql}`)
      .all(...(compiled.parameters as unknown[]))
      .map((r) => (r as { detail: string }).detail)
  })
}

async function postgresPlan(q: IdQuery): Promise<PlanNode> {
  return readIdPage(store.db, q, FIRST_PAGE, async (query, handle) => {
    const compiled = query.compile()
    const result = await handle.executeQuery<{ 'QUERY PLAN': { Plan: PlanNode }[] }>({
      ...compiled,
      sql: `EXPLAIN (FORMAT JSON) ${compiled.sql}`,
    })
    return result.rows[0]!['QUERY PLAN'][0]!.Plan
  })
}

/** A read of Indicators that is not a seek: the whole table, or an owner's rows through an owner index. */
function readsOwnersRows(node: PlanNode): boolean {
  return (
    (node['Relation Name'] === 'indicator' &&
      (node['Node Type'] === 'Seq Scan' || /^indicator_owner/.test(node['Index Name'] ?? ''))) ||
    (node['Node Type'] === 'Bitmap Index Scan' && /^indicator_owner/.test(node['Index Name'] ?? ''))
  )
}

const OWNER_CASES: [string, () => number[] | null][] = [
  ['one owner', () => [owners[0]!]],
  ['two owners of three', () => [owners[0]!, owners[2]!]],
  ['no owner filter', () => null],
]

describe.each(OWNER_CASES)('first page of /v3/indicators, %s, no statistics', (_, ownerIds) => {
  beforeAll(async () => {
    if (store.dialect === 'sqlite')
      expect(
        store.sqlite!.prepare(`SELECT count(*) AS n FROM sqlite_master WHERE name = 'sqlite_stat1'`).get(),
      ).toEqual({ n: 0 })
    else
      expect(
        (
          await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stats WHERE tablename = 'indicator'`.execute(
            store.db,
          )
        ).rows,
      ).toEqual([{ n: 0 }])
  })

  it.each(FILTERS)("$tql: no sort of the owner's rows", async ({ tql, seeks }) => {
    const q = idQuery(tql, ownerIds())
    expect(q.seekable).toBe(seeks)
    if (store.dialect === 'sqlite') {
      const plan = await sqlitePlan(q)
      const sorts = plan.some((line) => line.startsWith('USE TEMP B-TREE FOR ORDER BY'))
      if (!seeks) {
        expect(plan).not.toContainEqual(expect.stringMatching(/TEMP B-TREE/))
        expect(plan).toContainEqual(
          ownerIds() === null
            ? 'SCAN indicator'
            : expect.stringMatching(/^SEARCH indicator USING (COVERING )?INDEX indicator_owner_id \(owner_id=\?\)$/),
        )
        if ((ownerIds()?.length ?? 0) > 1) expect(plan).toContain('MERGE (UNION ALL)')
      } else {
        expect(plan).toContainEqual(
          expect.stringMatching(
            /^SEARCH indicator USING (INTEGER PRIMARY KEY \(rowid=\?\)|(COVERING )?INDEX indicator_summary_lower \(<expr>>\? AND <expr><\?\))$/,
          ),
        )
        expect(plan).not.toContainEqual(expect.stringMatching(/^SCAN indicator|indicator_owner/))
        expect(sorts).toBe(tql.startsWith('summary'))
      }
    } else {
      const all = planNodes(await postgresPlan(q))
      const sorts = all.filter((n) => n['Node Type'] === 'Sort')
      if (!seeks) {
        expect(sorts).toEqual([])
        if ((ownerIds()?.length ?? 0) > 1) expect(all.map((n) => n['Node Type'])).toContain('Merge Append')
      }
      for (const sort of sorts) expect(planNodes(sort).filter(readsOwnersRows)).toEqual([])
    }
  })
})

describe('pages in id order', () => {
  it('merges owners by id, pages by offset and by keyset alike', async () => {
    const q = idQuery('typeName in ("Host","URL") and rating >= 3', [owners[0]!, owners[2]!])
    const expected = (
      await store.db
        .selectFrom('indicator')
        .select('id')
        .where('owner_id', 'in', [owners[0]!, owners[2]!])
        .where('type', 'in', ['Host', 'URL'])
        .where('rating', '>=', 3)
        .orderBy('id')
        .execute()
    ).map((r) => r.id)
    expect(expected.length).toBeGreaterThan(150)
    expect(await selectIds(store.db, q, { offset: 0, limit: 50 })).toEqual(expected.slice(0, 50))
    expect(await selectIds(store.db, q, { offset: 120, limit: 50 })).toEqual(expected.slice(120, 170))
    expect(await selectIds(store.db, q, { offset: 0, limit: 50, afterId: expected[99]! })).toEqual(
      expected.slice(100, 150),
    )
    expect(await selectIds(store.db, q, { offset: 0, limit: null })).toEqual(expected)
  })

  it('a seek checks the owners on what it found', async () => {
    const tagged = (
      await store.db
        .selectFrom('item_tag')
        .innerJoin('indicator', 'indicator.id', 'item_tag.item_id')
        .select('indicator.id')
        .where('indicator.owner_id', '=', owners[2]!)
        .orderBy('indicator.id')
        .execute()
    ).map((r) => r.id)
    expect(tagged.length).toBeGreaterThan(0)
    expect(await selectIds(store.db, idQuery('tag = "rare-tag"', [owners[2]!]), FIRST_PAGE)).toEqual(tagged)
  })
})

describe('records of a page, loaded by id', () => {
  /** The statements a repository function runs, compiled as the database receives them. */
  async function statementsOf(run: (db: Kysely<Database>) => Promise<unknown>): Promise<CompiledQuery[]> {
    const seen: CompiledQuery[] = []
    const capture: KyselyPlugin = {
      transformQuery: (args) => {
        seen.push(store.db.getExecutor().compileQuery(args.node, args.queryId))
        return args.node
      },
      transformResult: async (args) => args.result,
    }
    await run(store.db.withPlugin(capture))
    return seen
  }

  it('reads the ids by key and checks the owners on what it found', async () => {
    const ids = (await store.db.selectFrom('indicator').select('id').orderBy('id').limit(20).offset(700).execute()).map(
      (r) => r.id,
    )
    const statements = await statementsOf(async (db) => {
      const { rows } = await listIndicatorRows(db, {
        ownerIds: owners,
        ids,
        conditions: [],
        any: false,
        activeOnly: false,
        offset: 0,
        limit: ids.length,
      })
      expect(rows.map((r) => r.id)).toEqual(ids)
    })
    expect(statements).toHaveLength(2)
    for (const statement of statements) {
      if (store.dialect === 'sqlite') {
        const plan = store
          .sqlite!.prepare(`EXPLAIN QUERY PLAN ${statement.sql}`)
          .all(...(statement.parameters as unknown[]))
          .map((r) => (r as { detail: string }).detail)
        expect(plan).toContain('SEARCH indicator USING INTEGER PRIMARY KEY (rowid=?)')
        expect(plan).not.toContainEqual(expect.stringMatching(/indicator_owner|SCAN indicator/))
      } else {
        const result = await store.db.executeQuery<{ 'QUERY PLAN': { Plan: PlanNode }[] }>({
          ...statement,
          sql: `EXPLAIN (FORMAT JSON) ${statement.sql}`,
        })
        expect(
          planNodes(result.rows[0]!['QUERY PLAN'][0]!.Plan).filter((n) =>
            /^indicator_owner/.test(n['Index Name'] ?? ''),
          ),
        ).toEqual([])
      }
    }
  })
})

// Last: it gathers statistics, which every test above must not see.
describe('a seek on PostgreSQL once statistics exist', () => {
  it.each(FILTERS.filter((f) => f.seeks && !f.tql.startsWith('summary')))(
    '$tql: fetches the Indicators it found by key, never walks them in id order',
    async ({ tql }) => {
      if (store.dialect !== 'postgres') return
      await sql`ANALYZE`.execute(store.db)
      const reads = planNodes(await postgresPlan(idQuery(tql, [owners[0]!, owners[2]!]))).filter(
        (n) => n['Relation Name'] === 'indicator',
      )
      expect(reads.length).toBeGreaterThan(0)
      for (const read of reads) expect(read['Index Cond'] ?? read['Node Type']).toMatch(/\bid = ANY/)
    },
  )
})

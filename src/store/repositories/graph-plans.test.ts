/**
 * The plans of the association graph's reads (graph.repository.ts) on the database under test: each starts
 * from the association primary key, sought by the item (kind and id) and the partner kind, and reaches the
 * partners by their primary key, so its cost follows the item's associations, never a table's size.
 */
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { captureStatements, explain, isPlannable } from '../../test/statement-plans.js'
import { createTestStore } from '../../test/harness.js'
import type { Store } from '../connect.js'
import {
  countGraphDegrees,
  countGraphNeighbours,
  countGraphNeighboursMatching,
  selectGraphNeighbourPage,
} from './graph.repository.js'

let store: Store
let drop: () => Promise<void>
let owner: number
let group: number
let other: number

beforeAll(async () => {
  ;({ store, drop } = await createTestStore())
  const at = '2026-11-27T00:00:00.000Z'
  owner = (
    await store.db
      .insertInto('owner')
      .values({ name: 'Graph plans', type: 'Organization', date_added: at })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id
  const ids: number[] = []
  for (let i = 0; i < 5000; i += 500) {
    const rows = Array.from({ length: 500 }, (_, k) => ({
      owner_id: owner,
      type: 'Host',
      summary: `h${i + k}.plans.example`,
      value1: `h${i + k}.plans.example`,
      date_added: at,
      last_modified: at,
    }))
    ids.push(...(await store.db.insertInto('indicator').values(rows).returning('id').execute()).map((r) => r.id))
  }
  group = (
    await store.db
      .insertInto('intel_group')
      .values({ owner_id: owner, type: 'Adversary', name: 'Plans', date_added: at, last_modified: at } as never)
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id
  // Another Group holds every Indicator, so the association table is large beside the item's own rows.
  other = (
    await store.db
      .insertInto('intel_group')
      .values({ owner_id: owner, type: 'Adversary', name: 'Other', date_added: at, last_modified: at } as never)
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id
  const links = ids.flatMap((id, n) => [
    { from_kind: 'group', from_id: other, to_kind: 'indicator', to_id: id },
    { from_kind: 'indicator', from_id: id, to_kind: 'group', to_id: other },
    ...(n < 40
      ? [
          { from_kind: 'group', from_id: group, to_kind: 'indicator', to_id: id },
          { from_kind: 'indicator', from_id: id, to_kind: 'group', to_id: group },
        ]
      : []),
  ])
  for (let i = 0; i < links.length; i += 1000)
    await store.db
      .insertInto('association')
      .values(links.slice(i, i + 1000).map((l) => ({ ...l, association_type_id: 0, source: 'API', date_added: at })))
      .execute()
  await sql`analyze`.execute(store.db)
})
afterAll(() => drop())

describe('the association graph reads', () => {
  it("count a neighbour's partners up to the cap", async () => {
    const degrees = await countGraphDegrees(store.db, 'group', [group, other], 'indicator', [owner], 1000)
    expect([...degrees]).toEqual([
      [group, 40],
      [other, 1000],
    ])
    expect([...(await countGraphDegrees(store.db, 'group', [other], 'indicator', [owner + 1], 1000))]).toEqual([
      [other, 0],
    ])
  })

  it('seek the association key and the partners by id', async () => {
    const from = { kind: 'group' as const, id: group }
    const filter = { from, toKind: 'indicator' as const, associationTypeId: 0, ownerIds: [owner] }
    const statements = await captureStatements(async () => {
      await countGraphNeighbours(store.db, from, 'indicator', [owner])
      await countGraphNeighboursMatching(store.db, filter)
      await selectGraphNeighbourPage(store.db, filter, { offset: 0, limit: 25 })
      await countGraphDegrees(store.db, 'indicator', [1, 2, 3], 'group', [owner], 1000)
      await countGraphDegrees(store.db, 'group', [group], 'indicator', [owner], 1000)
    })
    const plannable = statements.filter((s) => isPlannable(s.sql))
    expect(plannable).toHaveLength(5)
    for (const statement of plannable) {
      const { reads, lines } = await explain(store, statement)
      const why = `${statement.sql}\n${lines.join('\n')}`
      // The test's two Groups are a table PostgreSQL rightly reads whole; the large tables are sought. (`capped`
      // is a count's own bounded sub-select, `CONSTANT` SQLite's one row of a select without a table.)
      expect(
        reads.filter((r) => r.index === '(scan)' && !['intel_group', 'capped', 'CONSTANT'].includes(r.table)),
        why,
      ).toEqual([])
      const association = reads.find((r) => r.table === 'association')
      expect(association?.seek.slice(0, 2), why).toEqual(['from_kind', 'from_id'])
    }
  })
})

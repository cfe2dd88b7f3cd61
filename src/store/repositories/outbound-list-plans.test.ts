/**
 * The plans of an outbound list's pages (selectListValuePage), read from the database under test with no
 * statistics gathered and then with them: every page is read from the primary key after the position and
 * stops after its rows — never "every match, then sort", which would read the whole table again for each
 * page of a list of a million. SQLite: EXPLAIN QUERY PLAN; PostgreSQL: EXPLAIN (FORMAT JSON) under the
 * settings the page ran with.
 */
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CapturedStatement, captureStatements, explain, isPlannable } from '../../test/statement-plans.js'
import { createTestStore } from '../../test/harness.js'
import { compileTql } from '../../tql/index.js'
import type { Store } from '../connect.js'
import { selectListValuePage } from './outbound-list.repository.js'

let store: Store
let drop: () => Promise<void>
const owners: number[] = []

beforeAll(async () => {
  ;({ store, drop } = await createTestStore())
  const at = '2026-11-20T00:00:00.000Z'
  for (const name of ['Lists A', 'Lists B', 'Lists C'])
    owners.push(
      (
        await store.db
          .insertInto('owner')
          .values({ name, type: 'Organization', date_added: at })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id,
    )
  const types = ['Address', 'Host', 'URL', 'File', 'CIDR']
  for (let i = 0; i < 3000; i += 500) {
    const rows = Array.from({ length: 500 }, (_, k) => {
      const n = i + k
      const summary = `v${n}.lists.example`
      return {
        owner_id: owners[n % 7 === 0 ? 1 : n % 11 === 0 ? 2 : 0]!,
        type: types[n % types.length]!,
        summary,
        value1: summary,
        rating: n % 6,
        active: n % 13 === 0 ? 0 : 1,
        date_added: at,
        last_modified: at,
      }
    })
    await store.db.insertInto('indicator').values(rows).execute()
  }
})
afterAll(() => drop())

async function pageStatement(tql: string, ownerIds: number[], types: string[] | null): Promise<CapturedStatement> {
  const compiled = compileTql('indicators', tql, { dialect: store.dialect, now: new Date() })
  const seen = await captureStatements(() =>
    selectListValuePage(store, store.db, {
      ownerIds,
      types,
      where: compiled.filters ? [compiled.where] : [],
      seekable: compiled.seekable,
      afterId: 1200,
      limit: 100,
    }),
  )
  const reads = seen.filter((s) => isPlannable(s.sql) && /from "indicator"/.test(s.sql))
  expect(reads).toHaveLength(1)
  return reads[0]!
}

const PAGES: [string, string, () => number[], string[] | null][] = [
  ['every owner, every type', '', () => owners, null],
  ['one small owner, two types', '', () => [owners[2]!], ['Address', 'CIDR']],
  [
    'a TQL filter that only filters',
    'rating >= 3 and typeName in ("Host", "URL")',
    () => [owners[0]!, owners[1]!],
    null,
  ],
]

for (const statistics of ['without statistics', 'with statistics']) {
  describe(`list pages ${statistics}`, () => {
    beforeAll(async () => {
      if (statistics === 'with statistics') await sql`analyze`.execute(store.db)
    })
    for (const [name, tql, ownerIds, types] of PAGES) {
      it(`${name}: reads the primary key from the position and sorts nothing`, async () => {
        const statement = await pageStatement(tql, ownerIds(), types)
        const plan = await explain(store, statement)
        const indicatorReads = plan.reads.filter((r) => r.table === 'indicator')
        expect(indicatorReads, plan.lines.join('\n')).toEqual([
          {
            table: 'indicator',
            index: store.dialect === 'sqlite' ? '(pk)' : 'indicator_pkey',
            seek: ['id'],
            covering: false,
          },
        ])
        expect(plan.lines.join('\n')).not.toMatch(/Sort|TEMP B-TREE/)
      })
    }
  })
}

import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_DB, type TestApp, createTestApp } from '../../test/harness.js'
import { findRowsByIds } from './rows-by-id.js'

let t: TestApp
let ids: number[]
beforeAll(async () => {
  t = await createTestApp()
  ids = []
  for (const ip of ['192.0.2.1', '192.0.2.2', '192.0.2.3']) {
    const res = await t.request({
      method: 'POST',
      url: '/api/v3/indicators',
      payload: { type: 'Address', ip, rating: 2 },
    })
    ids.push(res.json().data.id)
  }
})
afterAll(async () => {
  await t.close()
})

describe('rows by id', () => {
  it('reads the same rows, with the same column values, as the query builder', async () => {
    const prepared = await findRowsByIds(t.store, 'indicator', [ids[2]!, ids[0]!, 999_999])
    const built = await t.store.db
      .selectFrom('indicator')
      .selectAll()
      .where('id', 'in', [ids[0]!, ids[2]!])
      .orderBy('id')
      .execute()
    expect(prepared.sort((a, b) => a.id - b.id)).toEqual(built)
    expect(prepared.map((r) => r.summary)).toEqual(['192.0.2.1', '192.0.2.3'])
    expect(await findRowsByIds(t.store, 'indicator', [ids[0]!])).toEqual([built[0]])
    expect(await findRowsByIds(t.store, 'indicator', [999_999])).toEqual([])
    expect(await findRowsByIds(t.store, 'indicator', [])).toEqual([])
  })

  it('keeps reading after another node adds a column the prepared statement did not have', async () => {
    expect((await findRowsByIds(t.store, 'indicator', [ids[0]!]))[0]!.summary).toBe('192.0.2.1')
    await sql`alter table indicator add column upgraded_by_another_node text`.execute(t.store.db)
    try {
      const [row] = await findRowsByIds(t.store, 'indicator', [ids[0]!])
      expect(row).toMatchObject({ summary: '192.0.2.1', upgraded_by_another_node: null })
      const rows = await findRowsByIds(t.store, 'indicator', [ids[0]!, ids[1]!])
      expect(rows.map((r) => [r.summary, (r as Record<string, unknown>).upgraded_by_another_node]).sort()).toEqual([
        ['192.0.2.1', null],
        ['192.0.2.2', null],
      ])
    } finally {
      await sql`alter table indicator drop column upgraded_by_another_node`.execute(t.store.db)
    }
  })

  it('inside a transaction sees its writes, and outside it not until it commits', async () => {
    let outsideDuring: string[] | undefined
    let insideDuring: string[] | undefined
    await t.store.db.transaction().execute(async (trx) => {
      await trx.updateTable('indicator').set({ summary: 'uncommitted' }).where('id', '=', ids[1]!).execute()
      insideDuring = (await findRowsByIds({ ...t.store, db: trx }, 'indicator', [ids[1]!])).map((r) => r.summary)
      // Beside the open transaction, another request's read reads the committed row at once: on PostgreSQL, and on
      // a SQLite file through its reading connection (an in-memory SQLite store has one connection: it would wait).
      const outside = findRowsByIds(t.store, 'indicator', [ids[1]!, ids[0]!]).then((rows) => {
        outsideDuring = rows.map((r) => r.summary)
      })
      await outside
      await trx.updateTable('indicator').set({ summary: '192.0.2.2' }).where('id', '=', ids[1]!).execute()
    })
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(insideDuring).toEqual(['uncommitted'])
    expect(outsideDuring?.sort()).toEqual(['192.0.2.1', '192.0.2.2'])
  })

  it('asked for by several callers in one turn, give each its own rows, read by one statement', async () => {
    const sent: string[] = []
    const pool = t.store.pool
    const query = pool?.query.bind(pool)
    if (pool) {
      pool.query = ((config: { name?: string }, ...rest: unknown[]) => {
        if (config?.name === 'rows_by_id_indicator') sent.push(config.name)
        return (query as (...args: unknown[]) => unknown)(config, ...rest)
      }) as typeof pool.query
    }
    try {
      const [a, b, both] = await Promise.all([
        findRowsByIds(t.store, 'indicator', [ids[0]!]),
        findRowsByIds(t.store, 'indicator', [ids[0]!]),
        findRowsByIds(t.store, 'indicator', [ids[1]!, ids[0]!]),
      ])
      expect(a.map((r) => r.summary)).toEqual(['192.0.2.1'])
      expect(b).toEqual(a)
      expect(both.map((r) => r.summary).sort()).toEqual(['192.0.2.1', '192.0.2.2'])
      // keepReadableRows completes rows in place: one caller's row is never another's.
      expect(b[0]).not.toBe(a[0])
      expect(both.find((r) => r.id === ids[0])).not.toBe(a[0])
    } finally {
      if (pool) pool.query = query!
    }
    if (pool) expect(sent).toEqual(['rows_by_id_indicator'])
  })

  it("asked for outside a transaction that opens before the turn's read runs, read what it commits, not its writes", async () => {
    const reading = findRowsByIds(t.store, 'indicator', [ids[2]!])
    await t.store.db.transaction().execute(async (trx) => {
      await trx.updateTable('indicator').set({ summary: 'uncommitted' }).where('id', '=', ids[2]!).execute()
      // The batched read's turn comes while the transaction is open.
      await new Promise((resolve) => setImmediate(resolve))
      await new Promise((resolve) => setTimeout(resolve, 5))
      await trx.updateTable('indicator').set({ summary: '192.0.2.3' }).where('id', '=', ids[2]!).execute()
    })
    expect((await reading).map((r) => r.summary)).toEqual(['192.0.2.3'])
  })

  it('finds the rows through the primary key on SQLite', async () => {
    if (t.store.dialect !== 'sqlite') return
    const plan = await sql<{
      detail: string
    }>`EXPLAIN QUERY PLAN SELECT * FROM "indicator" WHERE "id" IN (SELECT value FROM json_each(${'[1,2]'}))`.execute(
      t.store.db,
    )
    expect(plan.rows.map((r) => r.detail)).toContain('SEARCH indicator USING INTEGER PRIMARY KEY (rowid=?)')
  })
})

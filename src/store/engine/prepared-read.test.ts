import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, createTestApp } from '../../test/harness.js'
import { preparedByIds } from './prepared-read.js'

let t: TestApp
let ids: number[]
beforeAll(async () => {
  t = await createTestApp()
  ids = []
  for (let i = 0; i < 3; i++)
    ids.push(
      (
        await t.store.db
          .insertInto('tag')
          .values({ owner_id: 1, name: `prepared-${i}`, date_added: '2026-01-01T00:00:00Z' })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id,
    )
})
afterAll(async () => {
  await t.close()
})

// A literal besides the ids checks that other parameters keep their place.
const tagNames = preparedByIds('test_tag_names', (db, idIn) =>
  db.selectFrom('tag').select(['id', 'name']).where('name', 'like', 'prepared-%').where(idIn('tag.id')).orderBy('id'),
)

describe('prepared reads by ids', () => {
  it('read what the query builder reads, for one id, many or none', async () => {
    const built = await t.store.db
      .selectFrom('tag')
      .select(['id', 'name'])
      .where('id', 'in', [ids[0]!, ids[2]!])
      .orderBy('id')
      .execute()
    expect(await tagNames(t.store, [ids[2]!, ids[0]!, 999_999])).toEqual(built)
    expect(await tagNames(t.store, [ids[1]!])).toEqual([{ id: ids[1], name: 'prepared-1' }])
    expect(await tagNames(t.store, [999_999])).toEqual([])
    expect(await tagNames(t.store, [])).toEqual([])
  })

  it("asked for together in one turn, answer each caller with its own rows, in the statement's order", async () => {
    const [a, b, c, none] = await Promise.all([
      tagNames(t.store, [ids[2]!, ids[0]!]),
      tagNames(t.store, [ids[1]!]),
      tagNames(t.store, [ids[1]!]),
      tagNames(t.store, [999_999]),
    ])
    expect(a).toEqual([
      { id: ids[0], name: 'prepared-0' },
      { id: ids[2], name: 'prepared-2' },
    ])
    expect(b).toEqual([{ id: ids[1], name: 'prepared-1' }])
    expect(c).toEqual(b)
    // Two callers of one row never share the object: what one changes, the other does not see.
    expect(c[0]).not.toBe(b[0])
    expect(none).toEqual([])
  })

  it('asked for together on PostgreSQL, go out as one statement', async ({ skip }) => {
    if (t.store.dialect !== 'postgres') return skip('SQLite reads in-process, one statement per call')
    const pool = t.store.pool!
    const sent: unknown[] = []
    const query = pool.query.bind(pool)
    pool.query = ((config: { name?: string; values?: unknown[] }, ...rest: unknown[]) => {
      if (config?.name === 'test_tag_names') sent.push(config.values)
      return (query as (...args: unknown[]) => unknown)(config, ...rest)
    }) as typeof pool.query
    try {
      await Promise.all([
        tagNames(t.store, [ids[0]!]),
        tagNames(t.store, [ids[1]!, ids[0]!]),
        tagNames(t.store, [ids[2]!]),
      ])
      await tagNames(t.store, [ids[2]!])
    } finally {
      pool.query = query
    }
    expect(sent).toEqual([
      ['prepared-%', [ids[0], ids[1], ids[2]]],
      ['prepared-%', [ids[2]]],
    ])
  })

  it("asked for outside a transaction that opens before the turn's read runs, read what it commits, not its writes", async () => {
    const reading = tagNames(t.store, [ids[0]!])
    await t.store.db.transaction().execute(async (trx) => {
      await trx.updateTable('tag').set({ name: 'prepared-uncommitted' }).where('id', '=', ids[0]!).execute()
      // The batched read's turn comes while the transaction is open.
      await new Promise((resolve) => setImmediate(resolve))
      await new Promise((resolve) => setTimeout(resolve, 5))
      await trx.updateTable('tag').set({ name: 'prepared-0' }).where('id', '=', ids[0]!).execute()
    })
    expect(await reading).toEqual([{ id: ids[0], name: 'prepared-0' }])
  })

  it('inside a transaction see its writes, and outside it not until it commits', async () => {
    let outsideDuring: string[] | undefined
    let insideDuring: string[] | undefined
    await t.store.db.transaction().execute(async (trx) => {
      await trx.updateTable('tag').set({ name: 'prepared-uncommitted' }).where('id', '=', ids[1]!).execute()
      insideDuring = (await tagNames({ ...t.store, db: trx }, [ids[1]!])).map((r) => r.name)
      // Beside the open transaction: on SQLite the read waits for the commit, on PostgreSQL it reads the committed row.
      const outside = tagNames(t.store, [ids[1]!]).then((rows) => {
        outsideDuring = rows.map((r) => r.name)
      })
      if (t.store.dialect === 'postgres') await outside
      await trx.updateTable('tag').set({ name: 'prepared-1' }).where('id', '=', ids[1]!).execute()
    })
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(insideDuring).toEqual(['prepared-uncommitted'])
    expect(outsideDuring).toEqual(['prepared-1'])
  })
})

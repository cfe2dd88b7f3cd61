import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { prepareDatabase } from '../../bootstrap.js'
import { isoNow } from '../../core/time.js'
import { createOwner } from '../../domain/access/accounts.js'
import { TEST_DB } from '../../test/harness.js'
import { type Store, openStore, readingHandle } from '../connect.js'
import { refreshAtStart } from './planner-statistics.js'
import { findRowsByIds } from './rows-by-id.js'

const dir = mkdtempSync(join(tmpdir(), 'bulwark-driver-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let store: Store
let file = 0
beforeEach(async () => {
  store = openStore(`sqlite:${join(dir, `db${++file}.sqlite`)}`)
  await prepareDatabase(store)
})
afterEach(async () => {
  await store.close()
})

const setting = (name: string) =>
  sql<{ value: string }>`select value from setting where name = ${name}`.execute(store.db).then((r) => r.rows)

/** Settles within a few turns of the event loop, or reports that it was still waiting. */
const soon = <T>(promise: Promise<T>) =>
  Promise.race([promise, new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), 50))])

describe.runIf(TEST_DB === 'sqlite')('a SQLite file store while a transaction holds its writing connection', () => {
  it('answers a read at once, from what was last committed', async () => {
    await sql`insert into setting (name, value) values ('colour', 'blue')`.execute(store.db)
    const trx = await store.db.startTransaction().execute()
    try {
      await sql`update setting set value = 'red' where name = 'colour'`.execute(trx)
      await sql`insert into setting (name, value) values ('shape', 'round')`.execute(trx)
      expect(await soon(setting('colour'))).toEqual([{ value: 'blue' }])
      expect(await soon(setting('shape'))).toEqual([])
      // Inside, the transaction's own writes.
      const inside = await sql<{ value: string }>`select value from setting where name = 'colour'`.execute(trx)
      expect(inside.rows).toEqual([{ value: 'red' }])
    } finally {
      await trx.commit().execute()
    }
    expect(await setting('colour')).toEqual([{ value: 'red' }])
    expect(await setting('shape')).toEqual([{ value: 'round' }])
  })

  it('makes a write wait for the commit, a write that begins WITH included', async () => {
    const trx = await store.db.startTransaction().execute()
    const plain = sql`insert into setting (name, value) values ('a', '1')`.execute(store.db)
    const withClause = sql`with v (n) as (select 'b') insert into setting (name, value) select n, '2' from v`.execute(
      store.db,
    )
    expect(await soon(plain)).toBe('still waiting')
    expect(await soon(withClause)).toBe('still waiting')
    await trx.commit().execute()
    await Promise.all([plain, withClause])
    expect(await setting('a')).toEqual([{ value: '1' }])
    expect(await setting('b')).toEqual([{ value: '2' }])
  })

  it('serves reads by id that bypass Kysely from the reading connection, without the uncommitted rows', async () => {
    const owner = await createOwner(store.db, { name: 'Readers Inc', type: 'Organization' }, isoNow())
    const { id } = await store.db
      .insertInto('victim')
      .values({ owner_id: owner.id, name: 'committed', date_added: isoNow(), last_modified: isoNow() })
      .returning('id')
      .executeTakeFirstOrThrow()
    const trx = await store.db.startTransaction().execute()
    try {
      await trx.updateTable('victim').set({ name: 'not committed' }).where('id', '=', id).execute()
      expect(readingHandle(store)).toBe(store.sqliteReader)
      expect((await findRowsByIds(store, 'victim', [id])).map((v) => v.name)).toEqual(['committed'])
    } finally {
      await trx.rollback().execute()
    }
    expect(readingHandle(store)).toBe(store.sqlite)
  })

  it('cannot write through the reading connection', () => {
    expect(() => store.sqliteReader!.prepare("insert into setting (name, value) values ('x', 'y')").run()).toThrow(
      /readonly/,
    )
  })
})

describe.runIf(TEST_DB === 'sqlite')("the reading connection's statistics", () => {
  it('are those of the last refresh, not those of the store when it opened', async () => {
    await refreshAtStart(store)
    await sql`create table skewed (a integer, b integer)`.execute(store.db)
    await sql`create index skewed_a on skewed (a)`.execute(store.db)
    await sql`create index skewed_b on skewed (b)`.execute(store.db)
    // `a` takes 20,000 values, `b` 2: with statistics, the seek to make is on `a`; without, SQLite picks `b`.
    await sql`with recursive n (i) as (select 0 union all select i + 1 from n where i < 19999)
      insert into skewed select i, i % 2 from n`.execute(store.db)
    const plan = () =>
      (
        store.sqliteReader!.prepare('explain query plan select * from skewed where a = 5 and b = 1').all() as {
          detail: string
        }[]
      ).map((r) => r.detail)
    store.sqliteReader!.prepare('select count(*) from skewed').get()
    expect(plan()).toEqual(['SEARCH skewed USING INDEX skewed_b (b=?)'])
    await refreshAtStart(store)
    store.sqliteReader!.prepare('select count(*) from skewed').get()
    expect(plan()).toEqual(['SEARCH skewed USING INDEX skewed_a (a=?)'])
  })
})

describe.runIf(TEST_DB === 'sqlite')('an in-memory SQLite store', () => {
  it('has no reading connection: a read beside a transaction waits for it, as on one connection', async () => {
    const memory = openStore('sqlite::memory:')
    try {
      await prepareDatabase(memory)
      expect(memory.sqliteReader).toBeUndefined()
      const trx = await memory.db.startTransaction().execute()
      const read = sql`select count(*) as n from setting`.execute(memory.db)
      expect(await soon(read)).toBe('still waiting')
      await trx.commit().execute()
      expect((await read).rows).toHaveLength(1)
    } finally {
      await memory.close()
    }
  })
})

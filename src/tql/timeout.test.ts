/** TQL time limits on the database under test. */
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DomainError } from '../core/errors.js'
import { compileTql, withTqlTimeout } from './index.js'
import { NOW, type TestStore, createTestStoreForTql } from './test-seed.js'

let seeded: TestStore
beforeAll(async () => {
  seeded = await createTestStoreForTql()
})
afterAll(async () => {
  await seeded?.drop()
})

/** A statement that takes far longer than any limit below, on either database. */
function slowQuery(store: TestStore['store'], db: typeof store.db, guard: (w: any, table: string) => any) {
  if (store.dialect === 'postgres') return sql`select pg_sleep(5)`.execute(db)
  return sql`with recursive n(id) as (select 1 union all select id + 1 from n where id < 1000000000)
    select count(*) as c from n as indicator where ${guard(sql`1 = 1`, 'indicator')}`.execute(db)
}

describe('withTqlTimeout', () => {
  it('stops a query that runs past the limit with a timeout error', async () => {
    const { store } = seeded
    const started = Date.now()
    const error = await withTqlTimeout(store, 100, ({ db, guard }) => slowQuery(store, db, guard)).catch(
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(DomainError)
    expect(error).toMatchObject({ code: 'timeout', message: 'TQL query exceeded the time limit of 100 ms' })
    expect(Date.now() - started).toBeLessThan(3000)
  })

  it('returns the result of a query that finishes in time', async () => {
    const { store } = seeded
    const compiled = compileTql('indicators', 'rating >= 3', { dialect: store.dialect, now: NOW })
    const rows = await withTqlTimeout(store, 5000, ({ db, guard }) =>
      db
        .selectFrom('indicator')
        .select('summary')
        .where(guard(compiled.where, compiled.table))
        .orderBy('summary')
        .execute(),
    )
    expect(rows.map((r) => r.summary)).toEqual(['10.0.0.1', 'evil.example.com'])
  })

  it('runs without a limit when none is set', async () => {
    const { store } = seeded
    const result = await withTqlTimeout(store, null, async ({ db, guard }) => {
      expect(db).toBe(store.db)
      const where = compileTql('indicators', 'id > 0', { dialect: store.dialect, now: NOW }).where
      expect(guard(where, 'indicator')).toBe(where)
      return 'done'
    })
    expect(result).toBe('done')
  })

  it('passes other errors through unchanged', async () => {
    const { store } = seeded
    await expect(
      withTqlTimeout(store, 1000, async () => {
        throw new Error('boom')
      }),
    ).rejects.toThrow('boom')
  })
})

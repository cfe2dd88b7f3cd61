import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_DB, createTestStore } from '../../test/harness.js'
import type { Store } from '../connect.js'
import * as audit from './0141-indicator-index-audit.js'

let store: Store
let drop: () => Promise<void>
beforeAll(async () => {
  ;({ store, drop } = await createTestStore())
})
afterAll(async () => {
  await drop()
})

async function indicatorIndexes(): Promise<string[]> {
  const rows =
    TEST_DB === 'postgres'
      ? await sql<{ name: string }>`select indexname as name from pg_indexes
          where schemaname = current_schema() and tablename = 'indicator'`.execute(store.db)
      : await sql<{
          name: string
        }>`select name from sqlite_master where type = 'index' and tbl_name = 'indicator'`.execute(store.db)
  return rows.rows.map((r) => r.name).sort()
}

const DROPPED = ['indicator_date_added', 'indicator_modified', 'indicator_summary'].concat(
  TEST_DB === 'postgres' ? ['indicator_summary_lower'] : [],
)

describe('migration 0141 (the Indicator index audit)', () => {
  it('drops the indexes no query needs, and down puts them back', async () => {
    const after = await indicatorIndexes()
    for (const name of DROPPED) expect(after).not.toContain(name)
    await audit.down(store.db)
    expect(await indicatorIndexes()).toEqual([...after, ...DROPPED].sort())
    await audit.up(store.db)
    expect(await indicatorIndexes()).toEqual(after)
  })
})

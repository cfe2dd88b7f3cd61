import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compileTql } from '../../tql/index.js'
import { TEST_DB, createTestStore } from '../../test/harness.js'
import type { Store } from '../connect.js'

let store: Store
let drop: () => Promise<void>
beforeAll(async () => {
  ;({ store, drop } = await createTestStore())
})
afterAll(async () => {
  await drop()
})

describe.runIf(TEST_DB === 'postgres')('PostgreSQL prefix indexes', () => {
  it('let a TQL STARTSWITH on summary read through an index, whatever the collation', async () => {
    const now = new Date().toISOString()
    const { id: ownerId } = await store.db
      .insertInto('owner')
      .values({ name: 'Prefix Org', type: 'Organization', description: null, date_added: now })
      .returning('id')
      .executeTakeFirstOrThrow()
    const rows = Array.from({ length: 2000 }, (_, i) => ({
      owner_id: ownerId,
      type: 'Host',
      summary: `h${i}.example`,
      value1: `h${i}.example`,
      date_added: now,
      last_modified: now,
    }))
    await store.db
      .insertInto('indicator')
      .values(rows as never)
      .execute()
    await sql`ANALYZE indicator`.execute(store.db)
    const { where } = compileTql('indicators', 'summary startswith "H123"', { dialect: 'postgres', now: new Date() })
    const query = store.db.selectFrom('indicator').select('id').where(where).compile()
    const plan = await store.db.connection().execute(async (conn) => {
      await sql`SET enable_seqscan = off`.execute(conn)
      const explained = await conn.executeQuery({ ...query, sql: `EXPLAIN ${query.sql}` })
      await sql`RESET enable_seqscan`.execute(conn)
      return (explained.rows as { 'QUERY PLAN': string }[]).map((r) => r['QUERY PLAN']).join('\n')
    })
    expect(plan).toMatch(/indicator_summary_lower_prefix/)
    const found = await store.db.selectFrom('indicator').select('summary').where(where).orderBy('summary').execute()
    expect(found.map((r) => r.summary)).toEqual([
      'h123.example',
      'h1230.example',
      'h1231.example',
      'h1232.example',
      'h1233.example',
      'h1234.example',
      'h1235.example',
      'h1236.example',
      'h1237.example',
      'h1238.example',
      'h1239.example',
    ])
  })
})

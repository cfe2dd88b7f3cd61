import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_DB, type TestApp, createTestApp } from '../../test/harness.js'
import { queueBatchThroughApi } from '../../test/batch.js'
import { findBatchInput } from '../repositories/batch.repository.js'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(async () => {
  await t.close()
})

describe.runIf(TEST_DB === 'postgres')('batch uploads on PostgreSQL (migration 0274)', () => {
  it('are stored compressed with LZ4, which this server offers, and read back as uploaded', async () => {
    const file = {
      indicator: Array.from({ length: 5000 }, (_, i) => ({ type: 'Host', summary: `lz4-${i}.example`, rating: 3 })),
    }
    const id = await queueBatchThroughApi(t, file)
    const { rows } = await sql<{ stored: number; method: string | null }>`select pg_column_size(content) as stored,
      pg_column_compression(content) as method from batch_input where job_id = ${id}`.execute(t.store.db)
    const uploaded = JSON.stringify(file)
    expect(rows[0]!.method).toBe('lz4')
    expect(rows[0]!.stored).toBeLessThan(uploaded.length / 3)
    expect(JSON.parse((await findBatchInput(t.store.db, id))!)).toEqual(file)
  })
})

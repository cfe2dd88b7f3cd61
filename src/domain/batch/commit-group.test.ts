import { sql } from 'kysely'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Store } from '../../store/connect.js'
import { TEST_DB, createTestStore } from '../../test/harness.js'
import { GROUP_MS, GroupLostError, commitGroup } from './commit-group.js'

let store: Store
let drop: () => Promise<void>
beforeEach(async () => {
  ;({ store, drop } = await createTestStore())
})
afterEach(async () => {
  await drop()
})

const put = (name: string) => (trx: Store['db']) =>
  sql`insert into setting (name, value) values (${name}, 'v')`.execute(trx).then(() => name)
const names = async () =>
  (
    await sql<{ name: string }>`select name from setting where name like 'chunk%' order by name`.execute(store.db)
  ).rows.map((r) => r.name)

describe.runIf(TEST_DB === 'sqlite')("a batch job's chunks on a SQLite file store", () => {
  it('are committed together: a read beside the open group sees none of them, and all once it commits', async () => {
    const group = commitGroup(store)
    expect(await group.chunk(put('chunk1'))).toBe('chunk1')
    await group.chunk(put('chunk2'))
    expect(await names()).toEqual([])
    await group.commit()
    expect(await names()).toEqual(['chunk1', 'chunk2'])
  })

  it('are due for their commit GROUP_MS after the first chunk', async () => {
    const group = commitGroup(store)
    await group.chunk(put('chunk1'))
    expect(group.due()).toBe(false)
    await new Promise((resolve) => setTimeout(resolve, GROUP_MS + 10))
    expect(group.due()).toBe(true)
    await group.commit()
  })

  it('undoes a chunk that fails alone, and the group goes on', async () => {
    const group = commitGroup(store)
    await group.chunk(put('chunk1'))
    const failing = group.chunk(async (trx) => {
      await put('chunk2')(trx)
      throw new Error('refused')
    })
    await expect(failing).rejects.toThrow('refused')
    await group.chunk(put('chunk3'))
    await group.commit()
    expect(await names()).toEqual(['chunk1', 'chunk3'])
  })

  it('reports a group that SQLite rolled back whole, and leaves nothing of it', async () => {
    const group = commitGroup(store)
    await group.chunk(put('chunk1'))
    const ended = group.chunk(async (trx) => {
      await sql`rollback`.execute(trx)
      throw new Error('the disk is full')
    })
    await expect(ended).rejects.toBeInstanceOf(GroupLostError)
    // The writer is free again: a write outside goes through at once.
    await put('chunk9')(store.db)
    expect(await names()).toEqual(['chunk9'])
  })

  it('makes a write beside the open group wait for its commit, which is then due at once', async () => {
    const group = commitGroup(store)
    await group.chunk(put('chunk1'))
    expect(group.due()).toBe(false)
    let written = false
    const outside = put('chunk2')(store.db).then(() => (written = true))
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(written).toBe(false)
    expect(group.due()).toBe(true)
    await group.commit()
    await outside
    expect(await names()).toEqual(['chunk1', 'chunk2'])
  })
})

describe.runIf(TEST_DB === 'postgres')("a batch job's chunks on PostgreSQL", () => {
  it('commit one by one', async () => {
    const group = commitGroup(store)
    await group.chunk(put('chunk1'))
    expect(await names()).toEqual(['chunk1'])
    expect(group.due()).toBe(true)
  })
})

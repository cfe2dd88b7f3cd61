/**
 * The second spellings of a declared field that must stay: the migrations' columns and the row
 * types of store/database.ts. Both are held here against the declarations of model/.
 */
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest'
import type { ColumnsOf } from '../model/field.js'
import { DECLARED_KINDS } from '../model/declarations.js'
import type { NOTE } from '../model/note.js'
import type { GROUP } from '../model/group.js'
import type { TASK } from '../model/task.js'
import type { ADVERSARY_ASSET, VICTIM, VICTIM_ASSET } from '../model/victim.js'
import { createTestStore } from '../test/harness.js'
import type { Store } from './connect.js'
import type { AdversaryAssetTable, GroupTable, NoteTable, TaskTable, VictimAssetTable, VictimTable } from './database.js'

describe('declared columns', () => {
  let store: Store
  let drop: () => Promise<void>
  beforeAll(async () => ({ store, drop } = await createTestStore()))
  afterAll(() => drop())

  it('every column a kind declares exists in its table after the migrations', async () => {
    const tables = new Map((await store.db.introspection.getTables()).map((t) => [t.name, new Set(t.columns.map((c) => c.name))]))
    const missing = DECLARED_KINDS.flatMap((k) => k.fields.flatMap((f) =>
      f.column && !tables.get(k.table)?.has(f.column) ? [`${k.table}.${f.column} (${k.kind}.${f.name})`] : []))
    expect(missing).toEqual([])
  })

  it('the row types name every declared column', () => {
    expectTypeOf<ColumnsOf<typeof NOTE>>().toExtend<keyof NoteTable>()
    expectTypeOf<ColumnsOf<typeof GROUP>>().toExtend<keyof GroupTable>()
    expectTypeOf<ColumnsOf<typeof VICTIM>>().toExtend<keyof VictimTable>()
    expectTypeOf<ColumnsOf<typeof VICTIM_ASSET>>().toExtend<keyof VictimAssetTable>()
    expectTypeOf<ColumnsOf<typeof ADVERSARY_ASSET>>().toExtend<keyof AdversaryAssetTable>()
    expectTypeOf<ColumnsOf<typeof TASK>>().toExtend<keyof TaskTable>()
  })
})

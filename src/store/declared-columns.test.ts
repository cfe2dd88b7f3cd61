/**
 * The second spellings of a declared field that must stay: the migrations' columns and the row
 * types of store/database.ts. Both are held here against the declarations of model/.
 */
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest'
import type { ColumnsOf } from '../model/field.js'
import { DECLARED_KINDS } from '../model/declarations.js'
import type { NOTE } from '../model/note.js'
import { INDICATOR, INDICATOR_INTERNAL_COLUMNS } from '../model/indicator.js'
import type { ARTIFACT, ARTIFACT_TYPE } from '../model/artifact.js'
import type { ATTRIBUTE, ATTRIBUTE_TYPE } from '../model/attribute.js'
import type { CASE } from '../model/case.js'
import type { INTEL_REQUIREMENT } from '../model/intel-requirement.js'
import type { OWNER } from '../model/owner.js'
import type { SECURITY_LABEL } from '../model/security-label.js'
import type { TAG } from '../model/tag.js'
import type { USER } from '../model/user.js'
import type { GROUP } from '../model/group.js'
import type { TASK } from '../model/task.js'
import type { ADVERSARY_ASSET, VICTIM, VICTIM_ASSET } from '../model/victim.js'
import { createTestStore } from '../test/harness.js'
import type { Store } from './connect.js'
import type {
  AdversaryAssetTable,
  ArtifactTable,
  ArtifactTypeTable,
  GroupTable,
  TaskTable,
  VictimAssetTable,
  VictimTable,
  IndicatorTable,
  NoteTable,
  AttributeTable,
  AttributeTypeTable,
  CaseTable,
  IntelRequirementTable,
  OwnerTable,
  SecurityLabelTable,
  TagTable,
  UserAccountTable,
} from './database.js'

describe('declared columns', () => {
  let store: Store
  let drop: () => Promise<void>
  beforeAll(async () => ({ store, drop } = await createTestStore()))
  afterAll(() => drop())

  it('every column a kind declares exists in its table after the migrations', async () => {
    const tables = new Map(
      (await store.db.introspection.getTables()).map((t) => [t.name, new Set(t.columns.map((c) => c.name))]),
    )
    const missing = DECLARED_KINDS.flatMap((k) =>
      k.fields.flatMap((f) =>
        f.column && !tables.get(k.table)?.has(f.column) ? [`${k.table}.${f.column} (${k.kind}.${f.name})`] : [],
      ),
    )
    expect(missing).toEqual([])
  })

  it('the row types name every declared column', () => {
    expectTypeOf<ColumnsOf<typeof NOTE>>().toExtend<keyof NoteTable>()
    expectTypeOf<ColumnsOf<typeof INDICATOR>>().toExtend<keyof IndicatorTable>()
    expectTypeOf<ColumnsOf<typeof CASE>>().toExtend<keyof CaseTable>()
    expectTypeOf<ColumnsOf<typeof ARTIFACT>>().toExtend<keyof ArtifactTable>()
    expectTypeOf<ColumnsOf<typeof ARTIFACT_TYPE>>().toExtend<keyof ArtifactTypeTable>()
    expectTypeOf<ColumnsOf<typeof INTEL_REQUIREMENT>>().toExtend<keyof IntelRequirementTable>()
    expectTypeOf<ColumnsOf<typeof ATTRIBUTE>>().toExtend<keyof AttributeTable>()
    expectTypeOf<ColumnsOf<typeof ATTRIBUTE_TYPE>>().toExtend<keyof AttributeTypeTable>()
    expectTypeOf<ColumnsOf<typeof TAG>>().toExtend<keyof TagTable>()
    expectTypeOf<ColumnsOf<typeof SECURITY_LABEL>>().toExtend<keyof SecurityLabelTable>()
    expectTypeOf<ColumnsOf<typeof OWNER>>().toExtend<keyof OwnerTable>()
    expectTypeOf<ColumnsOf<typeof USER>>().toExtend<keyof UserAccountTable>()
    expectTypeOf<ColumnsOf<typeof GROUP>>().toExtend<keyof GroupTable>()
    expectTypeOf<ColumnsOf<typeof VICTIM>>().toExtend<keyof VictimTable>()
    expectTypeOf<ColumnsOf<typeof VICTIM_ASSET>>().toExtend<keyof VictimAssetTable>()
    expectTypeOf<ColumnsOf<typeof ADVERSARY_ASSET>>().toExtend<keyof AdversaryAssetTable>()
    expectTypeOf<ColumnsOf<typeof TASK>>().toExtend<keyof TaskTable>()
  })

  // Adding a scalar field touches only the model (and a migration): a column of the row type that no
  // field declares fails here, unless it is one the interfaces never see.
  it('every column of the indicator row type is declared or internal', () => {
    expectTypeOf<keyof IndicatorTable>().toExtend<
      ColumnsOf<typeof INDICATOR> | (typeof INDICATOR_INTERNAL_COLUMNS)[number]
    >()
  })

  it('every column of the indicator table is declared or internal', async () => {
    const columns = (await store.db.introspection.getTables())
      .find((t) => t.name === INDICATOR.table)!
      .columns.map((c) => c.name)
    const known = new Set<string>([
      ...DECLARED_KINDS.find((k) => k === INDICATOR)!.fields.flatMap((f) => (f.column ? [f.column] : [])),
      ...INDICATOR_INTERNAL_COLUMNS,
    ])
    expect(columns.filter((c) => !known.has(c))).toEqual([])
  })
})

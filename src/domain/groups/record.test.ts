/**
 * The row → record readers compiled from the declarations of model/ (domain/declared-record.ts):
 * every declared column reaches the record under its record name, with the type the row gives it.
 */
import { describe, expect, expectTypeOf, it } from 'vitest'
import type { FieldDeclaration, KindDeclaration } from '../../model/field.js'
import { GROUP } from '../../model/group.js'
import { VICTIM } from '../../model/victim.js'
import type { GroupRow } from '../../store/repositories/group.repository.js'
import type { VictimRow } from '../../store/repositories/victim.repository.js'
import { type VictimRecord, toVictimRecord } from '../victims/victims.js'
import { type GroupRecord, toGroupRecord } from './groups.js'

/** A row whose every declared column holds a value no other column holds. */
function distinctRow(kind: KindDeclaration): Record<string, unknown> {
  const row: Record<string, unknown> = {}
  kind.fields.forEach((f: FieldDeclaration, i) => {
    if (!f.column || f.column in row) return
    row[f.column] = f.type === 'boolean' ? 1 : f.type === 'integer' || f.type === 'user' ? 1000 + i : `${f.column}-${i}`
  })
  return row
}

function expected(f: FieldDeclaration, value: unknown): unknown {
  return f.type === 'boolean' ? !!value : value
}

function mismatches(
  kind: KindDeclaration,
  row: Record<string, unknown>,
  record: Record<string, unknown>,
  absent: readonly string[],
) {
  return kind.fields.flatMap((f: FieldDeclaration) => {
    if (!f.column || f.record === false || absent.includes(f.name)) return []
    const name = f.record ?? f.name
    return record[name] === expected(f, row[f.column]) ? [] : [`${name} ← ${f.column}`]
  })
}

describe('row → record mappings against the declarations', () => {
  it('toGroupRecord carries every declared Group column under its record name', () => {
    const row = { ...distinctRow(GROUP), owner_name: 'Org', owner_type: 'Organization' }
    const record = toGroupRecord(row as unknown as GroupRow) as unknown as Record<string, unknown>
    expect(mismatches(GROUP, row, record, [])).toEqual([])
    expect([record.ownerName, record.ownerType]).toEqual(['Org', 'Organization'])
  })

  it('types a Group record from the declaration and the row type', () => {
    expectTypeOf<GroupRecord['externalDateExpires']>().toEqualTypeOf<string | null>()
    expectTypeOf<GroupRecord['emailSubject']>().toEqualTypeOf<string | null>()
    expectTypeOf<GroupRecord['malware']>().toEqualTypeOf<boolean>()
    expectTypeOf<GroupRecord['upVoteCount']>().toEqualTypeOf<number>()
    expectTypeOf<GroupRecord['name']>().toEqualTypeOf<string>()
    expectTypeOf<GroupRecord['ownerName']>().toEqualTypeOf<string>()
    expectTypeOf<VictimRecord['workLocation']>().toEqualTypeOf<string | null>()
    expectTypeOf<VictimRecord['dateAdded']>().toEqualTypeOf<string>()
  })

  it('toVictimRecord carries every declared Victim column', () => {
    const row = { ...distinctRow(VICTIM), owner_name: 'Org', owner_type: 'Organization' }
    const record = toVictimRecord(row as unknown as VictimRow) as unknown as Record<string, unknown>
    expect(mismatches(VICTIM, row, record, [])).toEqual([])
  })
})

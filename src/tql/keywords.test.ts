/**
 * The OPTIONS rule: every keyword a type lists compiles and runs on the real database,
 * with each operator its type allows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestStore, createTestStoreForTql } from './test-seed.js'
import { compileTql, listTqlKeywords, sortableKeyword } from './index.js'
import { OBJECT_TYPES } from './keywords/index.js'

const SAMPLE: Record<string, string[]> = {
  Integer: ['= 1', '!= 1', '> 1', '>= 1', '< 1', '<= 1', 'in (1, 2)', 'not in (1, 2)', 'is null', 'is not null'],
  String: [
    '= "x"',
    '!= "x"',
    '> "x"',
    'in ("x", "y")',
    'not in ("x")',
    'contains "x"',
    'not contains "x"',
    'startswith "x"',
    'not startswith "x"',
    'endswith "x"',
    'not endswith "x"',
    'like "%x%"',
    'not like "x%"',
    'is null',
    'is not null',
  ],
  Date: [
    '= "2026-01-01"',
    '!= TODAY()',
    '> TODAY() - 7 DAYS',
    '>= "2026-01-01T10:00:00Z"',
    '< "TODAY() + 2 HOURS"',
    '<= "2026-01-01"',
    'in ("2026-01-01", "2026-01-02")',
    'not in ("2026-01-01")',
    'is null',
    'is not null',
  ],
  Boolean: ['= true', '!= false', 'is null', 'is not null'],
  'Sub Query': ['(id = 1)', '(id in (1, 2) or id > 3)', ' = 1'],
}
SAMPLE.StringLower = SAMPLE.String

let seeded: TestStore
beforeAll(async () => {
  seeded = await createTestStoreForTql()
})
afterAll(async () => {
  await seeded?.drop()
})

describe('every listed TQL keyword runs', () => {
  for (const type of OBJECT_TYPES) {
    it(`${type.name}`, async () => {
      const { store } = seeded
      for (const keyword of listTqlKeywords(type.name)) {
        const def = type.keywords.find((k) => k.keyword === keyword.keyword)!
        const samples =
          keyword.type === 'Enum'
            ? [
                `= "${def.values![0]}"`,
                `in (${def.values!.map((v) => `'${v}'`).join(', ')})`,
                `!= '${def.values![0]}'`,
                `= ${def.values!.find((v) => !v.includes(' '))!.toLowerCase()}`,
                'is null',
              ]
            : SAMPLE[keyword.type]
        // One query per keyword: the samples joined with OR still exercise every operator's SQL.
        const tql = samples
          .map((sample) => `${keyword.keyword}${sample.startsWith('(') ? '' : ' '}${sample}`)
          .join(' or ')
        const compiled = compileTql(type.name, tql, {
          dialect: store.dialect,
          now: new Date(),
          visibleOwnerIds: [1, 2],
        })
        await expect(
          store.db
            .selectFrom(compiled.table as 'indicator')
            .select('id')
            .where(compiled.where)
            .execute(),
          tql,
        ).resolves.toBeInstanceOf(Array)
        const sort = sortableKeyword(type.name, keyword.keyword)
        if (sort)
          await store.db
            .selectFrom(type.table as 'indicator')
            .select('id')
            .orderBy(sort as never)
            .execute()
      }
    })
  }

  it('lists keyword, name, type, description, groupable and targetable for each item', () => {
    for (const type of OBJECT_TYPES) {
      const keywords = listTqlKeywords(type.name)
      expect(new Set(keywords.map((k) => k.keyword.toLowerCase())).size, `${type.name} has duplicate keywords`).toBe(
        keywords.length,
      )
      for (const k of keywords) {
        expect(Object.keys(k).sort()).toEqual(['description', 'groupable', 'keyword', 'name', 'targetable', 'type'])
        expect(k.description.length).toBeGreaterThan(5)
      }
    }
  })

  it('lists the 21 tag keywords of the platform', () => {
    expect(
      listTqlKeywords('tags')
        .map((k) => k.keyword)
        .sort(),
    ).toEqual([
      'associatedCase',
      'associatedGroup',
      'associatedIndicator',
      'associatedVictim',
      'caseId',
      'description',
      'financialRisk',
      'financialRiskScore',
      'financialRiskValue',
      'hasCase',
      'hasGroup',
      'hasIndicator',
      'hasVictim',
      'id',
      'lastUsed',
      'name',
      'owner',
      'ownerName',
      'securityCoverage',
      'summary',
      'techniqueId',
    ])
  })
})

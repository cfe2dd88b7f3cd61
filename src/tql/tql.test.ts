/**
 * TQL → SQL, per dialect: what each construct compiles to. Values are always parameters;
 * identifiers come from the keyword tables.
 */
import { describe, expect, it } from 'vitest'
import { compileTql, namedTags } from './index.js'
import { COMPILE_ONLY } from './test-dialects.js'
import type { Dialect } from '../store/connect.js'

const NOW = new Date('2026-03-15T10:20:30Z')

function compileWhere(
  dialect: Dialect,
  type: string,
  tql: string,
  visibleOwnerIds?: number[],
  tagIds?: ReadonlyMap<string, readonly number[]>,
) {
  const compiled = compileTql(type, tql, { dialect, now: NOW, visibleOwnerIds, tagIds })
  const { sql, parameters } = COMPILE_ONLY[dialect]
    .selectFrom(compiled.table)
    .select('id')
    .where(compiled.where)
    .compile()
  return { sql: sql.replace(/^select "id" from "[a-z_]+" where /, ''), parameters }
}

interface Case {
  type?: string
  tql: string
  sqlite: string
  postgres: string
  params: unknown[]
  sqliteParams?: unknown[]
}

// A tag named by value is read first, then the items carrying it (item_tag_tag); CROSS JOIN keeps that order on SQLite,
// and PostgreSQL gets the ids as an array so that it cannot walk every Indicator in id order as a semi-join instead.
const TAGGED = (p: string) =>
  `select "x2"."item_id" from "tag" as "t1" cross join "item_tag" as "x2" where "t1"."id" = "x2"."tag_id" ` +
  `and "x2"."item_kind" = 'indicator' and lower("t1"."name") = lower(${p})`
const HAS_TAG = (p: string) =>
  p === '?' ? `"indicator"."id" in (${TAGGED(p)})` : `"indicator"."id" = any(array((${TAGGED(p)})))`
const HAS_GROUP = (condition: string) =>
  `"indicator"."id" in (select "a2"."to_id" from "association" as "a2" inner join "intel_group" as "t1" on "t1"."id" = "a2"."from_id" ` +
  `where "a2"."from_kind" = 'group' and "a2"."to_kind" = 'indicator' and ${condition})`

const CASES: Case[] = [
  {
    tql: 'typeName in ("address", "Host") and rating >= 3',
    sqlite: '(+"indicator"."type" in (?, ?) and +"indicator"."rating" >= ?)',
    postgres: `(("indicator"."type" || '') in ($1, $2) and ("indicator"."rating" + 0) >= cast($3 as bigint))`,
    params: ['Address', 'Host', 3],
  },
  {
    tql: 'rating > 2 OR confidence LEQ 50 AND indicatorActive EQ True',
    sqlite: '(+"indicator"."rating" > ? or (+"indicator"."confidence" <= ? and +"indicator"."active" = 1))',
    postgres:
      '(("indicator"."rating" + 0) > cast($1 as bigint) or (("indicator"."confidence" + 0) <= cast($2 as bigint) and ("indicator"."active" + 0) = 1))',
    params: [2, 50],
  },
  {
    tql: '(rating > 2 or confidence <= 50) and activeLocked != false',
    sqlite: '((+"indicator"."rating" > ? or +"indicator"."confidence" <= ?) and +"indicator"."active_locked" <> 0)',
    postgres:
      '((("indicator"."rating" + 0) > cast($1 as bigint) or ("indicator"."confidence" + 0) <= cast($2 as bigint)) and ("indicator"."active_locked" + 0) <> 0)',
    params: [2, 50],
  },
  {
    tql: 'summary = "Evil.COM"',
    sqlite: 'lower("indicator"."summary") = lower(?)',
    postgres: 'lower("indicator"."summary") = lower($1)',
    params: ['Evil.COM'],
  },
  {
    tql: 'description contains "100%_off!"',
    sqlite: `lower(+"indicator"."description") like lower(?) escape '!'`,
    postgres: `lower(("indicator"."description" || '')) like lower($1) escape '!'`,
    params: ['%100!%!_off!!%'],
  },
  {
    tql: 'value1 NOT STARTSWITH "10." and value2 endswith ".com"',
    sqlite: `(not lower(+"indicator"."value1") like lower(?) escape '!' and lower(+"indicator"."value2") like lower(?) escape '!')`,
    postgres: `(not lower(("indicator"."value1" || '')) like lower($1) escape '!' and lower(("indicator"."value2" || '')) like lower($2) escape '!')`,
    params: ['10.%', '%.com'],
  },
  {
    tql: 'summary like "%.example.%"',
    sqlite: 'lower(+"indicator"."summary") like lower(?)',
    postgres: `lower(("indicator"."summary" || '')) like lower($1)`,
    params: ['%.example.%'],
  },
  {
    tql: 'dateAdded >= "TODAY() - 7 DAYS" and lastSeen is not null',
    // Dates only filter: compared as expressions no index matches (+col; col || ''), the list reads in id order.
    sqlite: '(+"indicator"."date_added" >= ? and +"indicator"."last_seen" is not null)',
    postgres: `(("indicator"."date_added" || '') >= $1 and ("indicator"."last_seen" || '') is not null)`,
    params: ['2026-03-08T00:00:00.000Z'],
  },
  {
    tql: 'lastModified = "2026-01-02"',
    sqlite: '(+"indicator"."last_modified" >= ? and +"indicator"."last_modified" < ?)',
    postgres: `(("indicator"."last_modified" || '') >= $1 and ("indicator"."last_modified" || '') < $2)`,
    params: ['2026-01-02T00:00:00.000Z', '2026-01-03T00:00:00.000Z'],
  },
  {
    tql: 'firstSeen < "2026-01-02 03:04:05" and lastSeen > TODAY() - 2 HOURS',
    sqlite: '(+"indicator"."first_seen" < ? and +"indicator"."last_seen" > ?)',
    postgres: `(("indicator"."first_seen" || '') < $1 and ("indicator"."last_seen" || '') > $2)`,
    params: ['2026-01-02T03:04:05.000Z', '2026-03-14T22:00:00.000Z'],
  },
  { tql: 'tag = "APT28"', sqlite: HAS_TAG('?'), postgres: HAS_TAG('$1'), params: ['APT28'] },
  { tql: 'tag != "APT28"', sqlite: `not ${HAS_TAG('?')}`, postgres: `not ${HAS_TAG('$1')}`, params: ['APT28'] },
  {
    tql: 'hasGroup(typeName = "intrusionSet")',
    // A Group type only filters: no index on it may lead the plan.
    sqlite: HAS_GROUP('+"t1"."type" = ?'),
    postgres: HAS_GROUP('("t1"."type" || \'\') = $1'),
    params: ['Intrusion Set'],
  },
  {
    tql: 'associatedGroup in (1, 2)',
    sqlite: HAS_GROUP('"t1"."id" in (?, ?)'),
    postgres: HAS_GROUP('"t1"."id" in (cast($1 as bigint), cast($2 as bigint))'),
    params: [1, 2],
  },
  {
    tql: 'associatedGroupSource = api',
    sqlite: HAS_GROUP('"a2"."source" = ?'),
    postgres: HAS_GROUP('"a2"."source" = $1'),
    params: ['API'],
  },
  {
    tql: 'ownerName = "Org A"',
    sqlite:
      '(select "indicator_owner"."name" from "owner" as "indicator_owner" where "indicator_owner"."id" = "indicator"."owner_id") = ?',
    postgres:
      '(select "indicator_owner"."name" from "owner" as "indicator_owner" where "indicator_owner"."id" = "indicator"."owner_id") = $1',
    params: ['Org A'],
  },
  {
    type: 'groups',
    tql: 'summary startswith "bad" and eventDate > TODAY() + 2 HOURS',
    // SQLite adds a range an index on lower(name) can serve (its LIKE optimisation skips expressions).
    sqlite: `((unlikely(lower("intel_group"."name") >= lower(?)) and lower("intel_group"."name") < lower(?) || char(1114111) and lower("intel_group"."name") like lower(?) escape '!') and +"intel_group"."event_date" > ?)`,
    postgres: `(lower("intel_group"."name") like lower($1) escape '!' and ("intel_group"."event_date" || '') > $2)`,
    params: ['bad%', '2026-03-15T02:00:00.000Z'],
    sqliteParams: ['bad', 'bad', 'bad%', '2026-03-15T02:00:00.000Z'],
  },
  {
    type: 'groupAttributes',
    tql: 'value = "x"',
    sqlite: `("attribute"."item_kind" = 'group' and +"attribute"."value" = ?)`,
    postgres: `("attribute"."item_kind" = 'group' and ("attribute"."value" || '') = $1)`,
    params: ['x'],
  },
  { type: 'tags', tql: 'financialRisk = "High"', sqlite: '1 = 0', postgres: '1 = 0', params: [] },
  { type: 'tags', tql: 'financialRisk is null', sqlite: '1 = 1', postgres: '1 = 1', params: [] },
  {
    type: 'cases',
    tql: 'severity in (high, "CRITICAL")',
    sqlite: '+"intel_case"."severity" in (?, ?)',
    postgres: `("intel_case"."severity" || '') in ($1, $2)`,
    params: ['High', 'Critical'],
  },
]

for (const dialect of ['sqlite', 'postgres'] as const) {
  describe(`${dialect}: TQL compiles to`, () => {
    for (const c of CASES) {
      it(`${c.type ?? 'indicators'}: ${c.tql}`, () => {
        expect(compileWhere(dialect, c.type ?? 'indicators', c.tql)).toEqual({
          sql: c[dialect],
          parameters: (dialect === 'sqlite' ? c.sqliteParams : undefined) ?? c.params,
        })
      })
    }

    it('an always-true filter for blank text', () => {
      expect(compileWhere(dialect, 'indicators', '   ').sql).toBe('1 = 1')
    })

    it('nested queries with their own aliases at each level', () => {
      const { sql } = compileWhere(dialect, 'indicators', 'hasGroup(hasIndicator(id = 7))')
      const member = dialect === 'postgres' ? ' = any\\(array\\(\\(' : ' in \\('
      const close = dialect === 'postgres' ? '\\){6}' : '\\){2}'
      expect(sql).toMatch(
        new RegExp(
          `^"indicator"."id"${member}select "a2"."to_id" .* "t1"."id"${member}select "a4"."to_id" .* "t3"."id" = (\\?|cast\\(\\$1 as bigint\\))${close}$`,
        ),
      )
    })

    it('owner limits on every related row when visibleOwnerIds is given', () => {
      const { sql, parameters } = compileWhere(dialect, 'indicators', 'tag = "x"', [4, 5])
      expect(sql).toMatch(/"t1"\."owner_id" in \((\?, \?|cast\(\$1 as bigint\), cast\(\$2 as bigint\))\)/)
      expect(parameters).toEqual([4, 5, 'x'])
    })

    describe('tags whose ids the caller found first', () => {
      const p = (n: number) => (dialect === 'postgres' ? `$${n}` : '?')
      const LINKS = (condition: string) =>
        `"indicator"."id" in (select "x1"."item_id" from "item_tag" as "x1" where ${condition} and "x1"."item_kind" = 'indicator')`
      const found = new Map([
        ['APT28', [12]],
        ['apt29', [13, 40]],
        ['Nobody', []],
      ])

      it('reads the links of the one tag a name names, by its id', () => {
        const { sql, parameters } = compileWhere(dialect, 'indicators', 'tag = "APT28"', [4, 5], found)
        expect(sql).toBe(LINKS(`"x1"."tag_id" = ${p(1)}`))
        expect(parameters).toEqual([12])
      })

      // Several tags' links come in no one order: PostgreSQL reads them whole into an array, as for a tag by name.
      it('reads the links of every tag the names name', () => {
        const { sql, parameters } = compileWhere(dialect, 'indicators', 'tag in ("APT28", "apt29")', [4], found)
        const links = `select "x1"."item_id" from "item_tag" as "x1" where "x1"."tag_id" in (${p(1)}, ${p(2)}, ${p(3)}) and "x1"."item_kind" = 'indicator'`
        expect(sql).toBe(
          dialect === 'postgres' ? `"indicator"."id" = any(array((${links})))` : `"indicator"."id" in (${links})`,
        )
        expect(parameters).toEqual([12, 13, 40])
      })

      it('negates the same read for != and not in', () => {
        const { sql } = compileWhere(dialect, 'indicators', 'tag != "APT28"', [4], found)
        expect(sql).toBe(`not ${LINKS(`"x1"."tag_id" = ${p(1)}`)}`)
      })

      it('matches nothing for a name no visible tag has', () => {
        expect(compileWhere(dialect, 'indicators', 'tag = "Nobody"', [4], found).sql).toBe('1 = 0')
        expect(compileWhere(dialect, 'indicators', 'tag != "Nobody"', [4], found).sql).toBe('not 1 = 0')
      })

      it('finds the tag by name in the statement when any name was not looked up', () => {
        const { sql } = compileWhere(dialect, 'indicators', 'tag in ("APT28", "unlooked")', [4], found)
        expect(sql).toContain('lower("t1"."name")')
      })

      it('keeps attackTag, tag patterns and hasTag(…) on their own reads', () => {
        for (const tql of ['attackTag = "APT28"', 'tag startswith "APT"', 'hasTag(name = "APT28")'])
          expect(compileWhere(dialect, 'indicators', tql, [4], found).sql).not.toContain('"x1"."tag_id" =')
      })

      it('leads with a tag every match carries when it is one tag, the rest of the filter beside it', () => {
        const lead = (tql: string) => {
          const { leadingTag } = compileTql('indicators', tql, {
            dialect,
            now: NOW,
            visibleOwnerIds: [4],
            tagIds: found,
          })
          if (!leadingTag) return undefined
          const rest = COMPILE_ONLY[dialect].selectFrom('indicator').select('id').where(leadingTag.where).compile()
          return {
            tagId: leadingTag.tagId,
            kind: leadingTag.kind,
            rest: rest.sql.replace(/^select "id" from "indicator" where /, ''),
          }
        }
        expect(lead('tag = "APT28"')).toEqual({ tagId: 12, kind: 'indicator', rest: '1 = 1' })
        expect(lead('rating > 2 and (tag = "APT28" and summary startswith "a")')).toMatchObject({
          tagId: 12,
          rest: expect.stringMatching(/^\(.*"rating".* and .*"summary".*\)$/),
        })
        expect(lead('rating > 2 and (tag = "APT28" and summary startswith "a")')!.rest).not.toContain('item_tag')
        for (const none of ['tag = "APT28" or rating > 2', 'tag = "apt29"', 'tag != "APT28"', 'tag = "unlooked"'])
          expect(lead(none)).toBeUndefined()
      })

      it('asks for the names only on PostgreSQL, wherever they sit in the filter', () => {
        const names = namedTags(
          'indicators',
          'rating > 2 and (tag = "A" or hasGroup(tag in ("B", "C"))) and tag != "D"',
          {
            dialect,
            now: NOW,
          },
        )
        expect(names).toEqual(dialect === 'postgres' ? ['A', 'B', 'C', 'D'] : [])
        expect(namedTags('indicators', 'attackTag = "A" and tag startswith "B"', { dialect, now: NOW })).toEqual([])
        expect(namedTags('indicators', 'tag = ', { dialect, now: NOW })).toEqual([])
      })
    })
  })
}

/**
 * TQL run against real data on the database under test: what each query selects from the
 * small data set in test-seed.ts (now = 2026-03-15T10:20:30Z).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TqlError, compileTql, compileTqlSorting } from './index.js'
import { NOW, type TestStore, createTestStoreForTql } from './test-seed.js'

const LABEL: Record<string, string> = {
  indicator: 'summary',
  intel_group: 'name',
  tag: 'name',
  victim: 'name',
  victim_asset: 'value',
  intel_case: 'name',
  artifact: 'summary',
  task: 'name',
  note: 'text',
  attribute: 'value',
  intel_requirement: 'requirement_text',
  security_label: 'name',
}

let seeded: TestStore
beforeAll(async () => {
  seeded = await createTestStoreForTql()
})
afterAll(async () => {
  await seeded?.drop()
})

async function select(type: string, tql: string, visibleOwnerIds?: number[]): Promise<string[]> {
  const { store } = seeded
  const { where, table } = compileTql(type, tql, { dialect: store.dialect, now: NOW, visibleOwnerIds })
  const rows = await store.db
    .selectFrom(table as 'indicator')
    .select(`${LABEL[table]} as label` as 'summary as label')
    .where(where)
    .execute()
  return rows.map((r) => r.label).sort()
}

const REGISTRY_KEY = 'C:\\Temp\\O\'Brien "x"'
const MD5 = 'D41D8CD98F00B204E9800998ECF8427E'

const INDICATOR_CASES: [tql: string, summaries: string[]][] = [
  ['rating >= 3', ['10.0.0.1', 'evil.example.com']],
  ['rating is null', [MD5]],
  ['rating in (1, 5) and indicatorActive = true', ['10.0.0.1', REGISTRY_KEY]],
  ['(rating = 5 or rating = 1) and indicatorActive = true', ['10.0.0.1', REGISTRY_KEY]],
  ['rating = 5 or rating = 1 and indicatorActive = false', ['10.0.0.1']],
  ['indicatorActive = false', [MD5]],
  ['typeName in ("address", "HOST")', ['10.0.0.1', 'evil.example.com']],
  ['typeName = "registrykey"', [REGISTRY_KEY]],
  ['summary = "EVIL.example.COM"', ['evil.example.com']],
  ['summary = "d41d8cd98f00b204e9800998ecf8427e"', [MD5]],
  ['description contains "100%"', ['evil.example.com']],
  ['description contains "100"', ['10.0.0.1', 'evil.example.com']],
  ['description contains "l_s"', ['evil.example.com']],
  ['description like "%l_s%"', ['evil.example.com']],
  ['summary startswith "EVIL."', ['evil.example.com']],
  ['summary not endswith ".com"', ['10.0.0.1', MD5, REGISTRY_KEY]],
  [String.raw`summary = 'C:\Temp\O\'Brien \"x\"'`, [REGISTRY_KEY]],
  [String.raw`summary contains "o'brien \"X"`, [REGISTRY_KEY]],
  ['dateAdded = TODAY() - 1 DAYS', ['10.0.0.1']],
  ["dateAdded >= 'TODAY() - 1 DAYS'", ['10.0.0.1']],
  ['dateAdded > TODAY() - 2 HOURS', []],
  ['dateAdded > "2025-12-31"', ['10.0.0.1', 'evil.example.com', REGISTRY_KEY]],
  ['dateAdded <= "2025-12-31"', [MD5]],
  ['dateAdded = "2025-12-31"', [MD5]],
  ['dateAdded < "2025-12-31T23:59:59Z"', []],
  ['fileSize > 1000000000', [MD5]],
  ['addressAsn = 64500 and addressCountryCode = "US"', ['10.0.0.1']],
  ['hostDnsActive = true', ['evil.example.com']],
  ['ownerName = "Org B"', [MD5]],
  ['tag = "apt28"', ['10.0.0.1']],
  ['tag != "APT28"', ['evil.example.com', MD5, REGISTRY_KEY]],
  ['tag in ("apt28", "phishing")', ['10.0.0.1', 'evil.example.com']],
  ['tag is null', [MD5, REGISTRY_KEY]],
  ['attackTag startswith "T1566"', ['evil.example.com']],
  ['hasAllTags(name in ("apt28", "phishing"))', ['10.0.0.1']],
  ['hasAllTags(name in ("apt28", "nothing"))', []],
  ['hasAllTags(name startswith "phish")', ['10.0.0.1', 'evil.example.com']],
  ['hasAllTags(name contains "phish")', ['evil.example.com']],
  ['hasTag(techniqueId is not null)', ['evil.example.com']],
  ['securityLabel = "tlp:red"', ['10.0.0.1']],
  ['hasSecurityLabel(name startswith "TLP")', ['10.0.0.1']],
  ['hasGroup(summary = "bad bear")', ['10.0.0.1', 'evil.example.com']],
  ['hasGroup(typeName = "Incident" and status = "New")', ['evil.example.com']],
  ['hasGroup(hasIndicator(summary = "10.0.0.1"))', ['10.0.0.1', 'evil.example.com']],
  ['hasGroup(hasVictim(name = "acme corp"))', ['evil.example.com']],
  ['hasCase(severity = high)', ['evil.example.com']],
  ['hasAttribute(typeName = "description" and value contains "WILD")', ['10.0.0.1']],
  ['associatedGroupSource = MANUAL', ['evil.example.com']],
  ['associatedGroupSource = "api"', ['10.0.0.1', MD5]],
  ['associatedIndicatorSource = API', ['10.0.0.1', 'evil.example.com']],
]

describe('indicators selected by TQL', () => {
  for (const [tql, summaries] of INDICATOR_CASES)
    it(tql, async () => expect(await select('indicators', tql)).toEqual([...summaries].sort()))

  it('by associated ids', async () => {
    const { ids } = seeded
    expect(await select('indicators', `associatedGroup = ${ids.g1}`)).toEqual(['10.0.0.1', 'evil.example.com'])
    expect(await select('indicators', `associatedGroup not in (${ids.g1}, ${ids.g3})`)).toEqual([REGISTRY_KEY])
    expect(await select('indicators', `associatedIndicator = ${ids.i2}`)).toEqual(['10.0.0.1'])
    expect(await select('indicators', `hasCustomAssociation = ${ids.i1}`)).toEqual(['evil.example.com'])
    expect(await select('indicators', `hasGroup = ${ids.g2}`)).toEqual(['evil.example.com'])
    expect(await select('indicators', `id = ${ids.i4} or owner = ${ids.orgB}`)).toEqual([REGISTRY_KEY, MD5].sort())
  })

  it('only through rows of visible owners when visibleOwnerIds is given', async () => {
    const { ids } = seeded
    expect(await select('indicators', 'hasGroup(summary = "secret report")')).toEqual([MD5])
    expect(await select('indicators', 'hasGroup(summary = "secret report")', [ids.orgA])).toEqual([])
    expect(await select('indicators', 'tag = "apt28"', [ids.orgB])).toEqual([])
  })
})

const OTHER_CASES: [type: string, tql: string, labels: string[]][] = [
  ['groups', 'hasIndicator(typeName = "Host")', ['Bad Bear', 'Phish Wave']],
  ['groups', 'status = "New" and eventDate >= "2026-03-10"', ['Phish Wave']],
  ['groups', 'hasVictim(name = "ACME CORP")', ['Phish Wave']],
  ['groups', 'tag = "APT28" and createdBy = "alice"', ['Bad Bear']],
  ['groups', 'typeName = "adversaries" or hasIntelRequirement(summary contains "apt28")', ['Bad Bear']],
  ['groups', 'hasAttribute(source = "vendor")', ['Bad Bear']],
  ['groups', 'associatedIndicatorSource = TQL', ['Phish Wave']],
  ['tags', 'hasIndicator(rating = 5)', ['APT28', 'Phishing']],
  ['tags', 'hasGroup(summary = "bad bear") and hasCase(name = "case one")', ['APT28']],
  ['tags', 'techniqueId = "T1566" and financialRisk is null', ['T1566 - Phishing']],
  ['tags', 'securityCoverage = "High"', []],
  ['victims', 'assetName = "ceo@acme.test"', ['Acme Corp']],
  ['victims', 'hasVictimAsset(typeName = "emailaddress") and organization = "Acme"', ['Acme Corp']],
  ['victims', 'hasGroup(typeName = "Incident")', ['Acme Corp']],
  ['victimAssets', 'hasVictim(name = "acme corp")', ['ceo@acme.test']],
  ['cases', 'hasArtifact(summary = "evil.example.com")', ['Case One']],
  ['cases', 'severity = high or status = closed', ['Case One', 'Case Two']],
  ['cases', 'hasTask(status = "In Progress") and hasNote(summary contains "first") and tag = "apt28"', ['Case One']],
  ['cases', 'hasIndicator(typeName = "Host")', ['Case One']],
  [
    'artifacts',
    'typeName = "host" and hasCase(name = "Case One") and hasTask(name = "triage") and hasNote(text = "first note")',
    ['evil.example.com'],
  ],
  ['tasks', 'hasCase(severity = "High") and hasArtifact(summary endswith ".com")', ['Triage']],
  ['notes', 'hasArtifact(typeName = "Host") and author = "alice"', ['first note']],
  ['indicatorAttributes', 'typeName = "Description"', ['Seen in the wild']],
  ['groupAttributes', 'value contains "feed"', ['vendor feed']],
  ['groupAttributes', 'typeName = "Description"', []],
  ['intelRequirements', 'hasGroup(summary = "bad bear")', ['Track APT28']],
  ['securityLabels', 'hasIndicator(summary = "10.0.0.1")', ['TLP:RED']],
]

describe('other object types selected by TQL', () => {
  for (const [type, tql, labels] of OTHER_CASES)
    it(`${type}: ${tql}`, async () => expect(await select(type, tql)).toEqual(labels))
})

describe('sorting by TQL keywords', () => {
  it('orders by each term in turn, with the null placement asked for', async () => {
    const { store } = seeded
    let query = store.db.selectFrom('indicator').select('summary')
    for (const term of compileTqlSorting('indicators', 'rating desc nullsfirst, typeName asc')) {
      query = query.orderBy(term.expression as never, (o) => {
        const ordered = term.direction === 'desc' ? o.desc() : o.asc()
        return term.nulls === 'first' ? ordered.nullsFirst() : term.nulls === 'last' ? ordered.nullsLast() : ordered
      })
    }
    expect((await query.execute()).map((r) => r.summary)).toEqual([MD5, '10.0.0.1', 'evil.example.com', REGISTRY_KEY])
  })

  it('rejects keywords that are not one value of the row', () => {
    expect(() => compileTqlSorting('indicators', 'tag asc')).toThrow(new TqlError("Cannot sort indicators by 'tag'"))
    expect(() => compileTqlSorting('indicators', 'bogus')).toThrow(
      new TqlError("Unknown TQL keyword 'bogus' for indicators in sorting"),
    )
    expect(() => compileTqlSorting('indicators', 'desc rating')).toThrow(
      new TqlError("Sorting must start with a TQL keyword, not 'desc'"),
    )
  })
})

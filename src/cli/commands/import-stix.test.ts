/**
 * `bulwark import` of STIX as vendors publish it (../shared/datasets: Unit 42's STIX 2.0 bundles,
 * SEKOIA's STIX 2.1 JSON Lines, the OASIS examples), run in process over a test app's database:
 * the Indicators each file makes, the objects it refuses and why, the source's ids and dates kept,
 * a second import changing nothing, a newer version updating, and TAXII 2.1 serving those dates.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestAccount, type TestApp, createTestApp } from '../../test/harness.js'
import { DATASETS_DIR as DATASETS, datasetsUnavailable } from '../../test/datasets.js'
import { importCommand } from './import.js'

const missing = datasetsUnavailable()
if (missing) console.warn(missing)

const UNIT42 = join(DATASETS, 'pan-unit42+iocs', 'stix2-reports', 'report_json')
const SEKOIA = join(DATASETS, 'SEKOIA-IO+Community', 'IOCs', 'apt31', '2021-11-10 APT31 - STIX2.jsonl')
const OASIS = join(DATASETS, 'oasis-open+cti-stix2-json-schemas', 'examples')

/**
 * Per file: its objects; the Indicators it creates (one per distinct value: Unit 42 names some
 * hashes and domains twice); the Groups (every course-of-action, attack-pattern, campaign,
 * intrusion-set and report); the associations (each relationship whose two ends came in, and each
 * report's object_refs to them); the refusals, by place and reason; the objects skipped by type.
 */
const UNIT42_FILES: [
  file: string,
  objects: number,
  indicators: number,
  groups: number,
  associations: number,
  refused: number,
  skipped: Record<string, number>,
][] = [
  ['2024-01-31-AZOrult.json', 20, 19, 0, 0, 0, {}],
  ['2024-03-06-Pikabot-with-Meduza-Stealer.json', 32, 31, 1, 31, 0, {}],
  ['2024-10-17-cybersquatting-domains-from-new-TLDs.json', 40, 39, 1, 39, 0, {}],
  ['2025-03-06-domains-for-smishing-activity.json', 23, 22, 1, 22, 0, {}],
  // Two of its url:value are `address:port` with no scheme, which the URL type refuses, and with
  // them the 6 associations naming them; one relationship targets an identity.
  ['AstarothMalware.json', 196, 13, 46, 187, 9, { identity: 1 }],
  ['NOBELIUM.json', 104, 17, 27, 103, 0, {}],
  ['DoppelPaymer_TA.json', 90, 31, 15, 89, 0, {}],
  ['cve-2023-23397.json', 63, 10, 16, 60, 1, { identity: 1 }],
  ['malicious-nod-detection.json', 138, 16, 30, 123, 1, { identity: 1 }],
  ['mirai-2020-campaigns.json', 59, 20, 18, 58, 0, {}],
  ['pymicropsia-trojan.json', 96, 35, 35, 95, 0, {}],
  // 593 indicators: 592 SHA-256 Files and one process:command_line, which Bulwark has no type for
  // (refused, and with it the one relationship naming it).
  ['fireeye-redteam-tools-threat-brief.json', 616, 592, 12, 613, 2, {}],
]

let t: TestApp
let writer: TestAccount
const owners = new Map<string, number>()
let dir: string

/** Each file goes into its own Source, so its count is its own. */
const ownerFor = (file: string) => `STIX ${file}`.slice(0, 100)

beforeAll(async () => {
  t = await createTestApp()
  dir = mkdtempSync(join(tmpdir(), 'bulwark-stix-'))
  const names = [
    ...UNIT42_FILES.map(([f]) => f),
    'sekoia',
    'versions',
    'taxii',
    'adversarial',
    'graph',
    'group versions',
    'bound',
    'sightings',
    'group sightings',
    'scos',
    ...OASIS_FILES.map(([f]) => f),
  ]
  for (const name of names) owners.set(name, await t.createOwner(ownerFor(name), 'Source'))
  writer = await t.createAccount({
    role: 'Standard User',
    memberships: Object.fromEntries(names.map((n) => [ownerFor(n), 'Editor'])),
  })
}, 120_000)
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true })
  await t?.close()
})

const run = (file: string, owner: string) =>
  importCommand(t.store, t.services, { file, owner: ownerFor(owner), userName: writer.userName })

async function indicatorsOf(owner: string) {
  return t.store.db
    .selectFrom('indicator')
    .selectAll()
    .where('owner_id', '=', owners.get(owner)!)
    .orderBy('id')
    .execute()
}

async function groupsOf(owner: string) {
  return t.store.db
    .selectFrom('intel_group')
    .selectAll()
    .where('owner_id', '=', owners.get(owner)!)
    .orderBy('id')
    .execute()
}

/** The owner's associations, each pair once. */
async function associationCount(owner: string) {
  const groups = (await groupsOf(owner)).map((g) => g.id)
  const indicators = (await indicatorsOf(owner)).map((i) => i.id)
  const rows = await t.store.db
    .selectFrom('association')
    .select('from_id')
    .where((eb) =>
      eb.or([
        eb.and([eb('from_kind', '=', 'group'), eb('from_id', 'in', [0, ...groups])]),
        eb.and([eb('from_kind', '=', 'indicator'), eb('from_id', 'in', [0, ...indicators])]),
      ]),
    )
    .execute()
  return rows.length / 2
}

async function attributesOf(itemId: number, kind: 'indicator' | 'group' = 'indicator') {
  return (
    await t.store.db
      .selectFrom('attribute')
      .innerJoin('attribute_type', 'attribute_type.id', 'attribute.type_id')
      .select(['attribute_type.name as type', 'attribute.value'])
      .where('attribute.item_kind', '=', kind)
      .where('attribute.item_id', '=', itemId)
      .orderBy('attribute.id')
      .execute()
  ).map((a) => `${a.type}: ${a.value}`)
}

async function attributeCount(owner: string) {
  const ids = (await indicatorsOf(owner)).map((i) => i.id)
  if (!ids.length) return 0
  const rows = await t.store.db
    .selectFrom('attribute')
    .select('id')
    .where('item_kind', '=', 'indicator')
    .where('item_id', 'in', ids)
    .execute()
  return rows.length
}

const IMPORT_TIMEOUT = 120_000

describe.skipIf(!!missing)('STIX 2.0 bundles of Unit 42', () => {
  it.each(UNIT42_FILES)(
    '%s: %i objects make %i Indicators, %i Groups, %i associations; %i refused by their place',
    async (file, objects, indicators, groups, associations, refused, skipped) => {
      const result = await run(join(UNIT42, file), file)
      expect(result.format).toBe('stix')
      expect(result.items).toBe(objects)
      expect(result.errors.filter((e) => !/^objects\[\d+\]/.test(e.item))).toEqual([])
      expect([result.errorCount, result.errors.length, result.errorsNotListed]).toEqual([refused, refused, 0])
      expect(result.skipped).toEqual(skipped)
      expect(result.groups).toEqual({ created: groups, updated: 0, unchanged: 0, refused: 0 })
      expect(result.associations).toMatchObject({ created: associations, updated: 0 })
      expect((await indicatorsOf(file)).length).toBe(indicators)
      expect((await groupsOf(file)).length).toBe(groups)
      expect(await associationCount(file)).toBe(associations)
      // Every item written is counted once, as made or as a duplicate of one made earlier in the file.
      const kinds = [result.indicators, result.groups, result.associations]
      expect(kinds.reduce((n, k) => n + k.created + k.updated + k.unchanged, 0)).toBe(result.successCount)

      const again = await run(join(UNIT42, file), file)
      expect(again).toMatchObject({ items: objects, errorCount: refused, successCount: result.successCount })
      expect(again.groups).toEqual({ created: 0, updated: 0, unchanged: groups, refused: 0 })
      expect([again.indicators.created, again.indicators.updated, again.associations.created]).toEqual([0, 0, 0])
      expect((await indicatorsOf(file)).length).toBe(indicators)
      expect((await groupsOf(file)).length).toBe(groups)
      expect(await associationCount(file)).toBe(associations)
    },
    IMPORT_TIMEOUT,
  )

  it('makes each SDO a Group named by its STIX id, with its source dates, and a report associated with its objects', async () => {
    const file = 'NOBELIUM.json'
    const rows = await groupsOf(file)
    const byType = (type: string) => rows.filter((r) => r.type === type).length
    expect([byType('Campaign'), byType('Report'), byType('Attack Pattern'), byType('Course of Action')]).toEqual([
      1, 1, 4, 21,
    ])
    const campaign = rows.find((r) => r.type === 'Campaign')!
    expect({
      xid: campaign.xid,
      name: campaign.name,
      externalDateAdded: campaign.external_date_added,
      externalLastModified: campaign.external_last_modified,
      firstSeen: campaign.first_seen,
      lastSeen: campaign.last_seen,
    }).toEqual({
      xid: 'campaign--e76f15c5-953f-4c56-98c5-71b093f2df67',
      name: 'Campaign 1 - NOBELIUM',
      externalDateAdded: '2021-05-28T20:34:55.319Z',
      externalLastModified: '2021-05-28T21:12:07.091Z',
      firstSeen: '2021-01-01T00:00:00.000Z',
      lastSeen: '2021-05-28T00:00:00.000Z',
    })
    const [description] = await attributesOf(campaign.id, 'group')
    expect(description).toMatch(/^Description: Nobelium threat actor started a wide-scale malicious email campaign/)
    const report = rows.find((r) => r.type === 'Report')!
    expect([report.xid, report.file_name, report.publish_date]).toEqual([
      'report--be3e03e6-6cd7-4c32-9bc5-dd7b19a241b3',
      'report--be3e03e6-6cd7-4c32-9bc5-dd7b19a241b3.json',
      '2021-05-28T21:12:07.091Z',
    ])
    // Its object_refs: 4 attack patterns, the campaign, 21 courses of action and 17 indicators (its 60 relationships make no association of the report).
    const linked = await t.store.db
      .selectFrom('association')
      .select(['to_kind'])
      .where('from_kind', '=', 'group')
      .where('from_id', '=', report.id)
      .execute()
    expect([
      linked.filter((l) => l.to_kind === 'group').length,
      linked.filter((l) => l.to_kind === 'indicator').length,
    ]).toEqual([26, 17])
  })

  it('keeps the source dates and the STIX id of a named indicator', async () => {
    const [file] = UNIT42_FILES[11]
    const rows = await indicatorsOf(file)
    const row = rows.find((r) => r.value3 === 'BDBF070ECD2F97CEBA1817E03F76B1334819BB1528EA0B55A46AC3F4CBDC28E9')!
    expect({
      externalDateAdded: row.external_date_added,
      externalLastModified: row.external_last_modified,
      firstSeen: row.first_seen,
      externalDateExpires: row.external_date_expires,
      active: !!row.active,
    }).toEqual({
      externalDateAdded: '2020-12-10T19:54:06.261Z',
      externalLastModified: '2020-12-10T21:24:42.042Z',
      firstSeen: '2020-12-10T19:54:06.261Z',
      externalDateExpires: null,
      active: true,
    })
    expect(await attributesOf(row.id)).toEqual(['External ID: indicator--006f1f4a-367b-48e2-b490-6b1272513332'])
    const result = await run(join(UNIT42, file), file)
    expect(result.errors.map((e) => e.item)).toContain('objects[386]')
    expect(result.errors.find((e) => e.item === 'objects[386]')?.message).toMatch(
      /process:command_line is not an observable Bulwark holds/,
    )
  })
})

describe.skipIf(!!missing)('STIX 2.1 JSON Lines of SEKOIA', () => {
  it(
    'imports 102 of its 104 indicators (two are YARA), its 19 SDOs as Groups and 243 of its 247 relationships',
    async () => {
      const result = await run(SEKOIA, 'sekoia')
      expect(result).toMatchObject({ format: 'stix', items: 370, errorCount: 6, skipped: {} })
      expect(result.errors.filter((e) => /YARA|yara/.test(e.message)).map((e) => e.item)).toEqual([
        'line 16',
        'line 103',
      ])
      // The four relationships from the two YARA indicators are refused with them.
      expect(result.errors.filter((e) => /made no Indicator/.test(e.message))).toHaveLength(4)
      expect(result.groups).toEqual({ created: 19, updated: 0, unchanged: 0, refused: 0 })
      expect(result.associations).toEqual({ created: 243, updated: 0, unchanged: 0, refused: 0 })
      const rows = await indicatorsOf('sekoia')
      const byType = (type: string) => rows.filter((r) => r.type === type).length
      expect([rows.length, byType('Address'), byType('Host'), byType('File')]).toEqual([102, 53, 43, 6])
      // Every valid_until has passed (2022-01-01, 2026-11-07): all of them come in inactive.
      expect(rows.filter((r) => !!r.active)).toEqual([])
      const groups = await groupsOf('sekoia')
      const types = (type: string) => groups.filter((g) => g.type === type).length
      expect([types('Intrusion Set'), types('Campaign'), types('Malware'), types('Attack Pattern')]).toEqual([
        1, 5, 3, 10,
      ])
      expect(await associationCount('sekoia')).toBe(243)
    },
    IMPORT_TIMEOUT,
  )

  it('keeps what a Group has no field for as attributes: external references, confidence, aliases; TLP as label', async () => {
    const groups = await groupsOf('sekoia')
    const pattern = groups.find((g) => g.xid === 'attack-pattern--0cf69248-4a75-4479-938b-ba20ad091a6f')!
    expect([pattern.type, pattern.name, pattern.external_date_added]).toEqual([
      'Attack Pattern',
      'Develop Capabilities: Malware',
      '2020-12-17T11:55:23.499Z',
    ])
    const attributes = await attributesOf(pattern.id, 'group')
    expect(attributes[0]).toMatch(/^Description: Before compromising a victim, adversaries may develop malware/)
    expect(attributes.slice(1, 4)).toEqual([
      'External ID: mitre-attack: T1587.001',
      'Source: https://attack.mitre.org/techniques/T1587/001',
      'Source: https://www.fireeye.com/content/dam/fireeye-www/services/pdfs/mandiant-apt1-report.pdf',
    ])
    const set = groups.find((g) => g.type === 'Intrusion Set')!
    const setAttributes = await attributesOf(set.id, 'group')
    expect(setAttributes).toContain('Additional Analysis and Context: confidence: 87')
    expect(setAttributes.find((a) => a.includes('aliases: '))).toMatch(
      /^Additional Analysis and Context: aliases: ZIRCONIUM/,
    )
    const labels = await t.store.db
      .selectFrom('item_security_label')
      .innerJoin('security_label', 'security_label.id', 'item_security_label.label_id')
      .select('security_label.name')
      .where('item_kind', '=', 'group')
      .where('item_id', '=', set.id)
      .execute()
    expect(labels.map((l) => l.name)).toEqual(['TLP:WHITE'])
  })

  it('imports the two Files whose patterns also name SHA-512 or SSDEEP, the rest kept as attributes', async () => {
    const rows = await indicatorsOf('sekoia')
    const sha512 = rows.find((r) => r.value1 === '362057B23605D83130BDEAC749D404F2')!
    expect([sha512.value2, sha512.value3]).toEqual([
      'F80AAD6ADB3562C2AFC68E6A443B9323C8B6AA9A',
      '0388FDC96C45C2FC37D7EF9FF3A00E80960BD4B0670F2E88CE72A06B48906F95',
    ])
    expect(await attributesOf(sha512.id)).toEqual([
      'External ID: indicator--8f4728a7-f6fd-4af3-8f85-20fe4e39c6a0',
      "Additional Analysis and Context: file:hashes.'SHA-512' = '849f0c8d530ab7815e74a64b6837f43cee02112b1fd315459fdaa820e15a8ce1b8e2fca6284729b1712fa901c7c037fe4d3211d0553da3e8613e3ed9fb75e569'",
      // Its kill_chain_phases: two of Lockheed Martin's chain, the platform's own Attack Phase.
      'Attack Phase: Actions on Objectives',
      'Attack Phase: Installation',
    ])
    const ssdeep = rows.find((r) => r.value1 === '4640805C362B1E5BEE5312514DD0AB2B')!
    expect(await attributesOf(ssdeep.id)).toEqual([
      'External ID: indicator--cbee1b61-2783-4a96-8a1d-4090d27a9012',
      "Additional Analysis and Context: file:hashes.SSDEEP = '12288:yxgkyyicj+btv8udax6uds1elhtymebjeqx00vjb:yxgkyy+bq/ds1mcr00vjb'",
      'Additional Analysis and Context: file:size = 951312',
      "Additional Analysis and Context: file:mime_type = 'application/octet-stream'",
      'Attack Phase: Actions on Objectives',
      'Attack Phase: Installation',
      'Additional Analysis and Context: kill_chain_phase: mitre-attack: execution',
      'Additional Analysis and Context: kill_chain_phase: mitre-attack: discovery',
      'Additional Analysis and Context: kill_chain_phase: mitre-attack: lateral-movement',
      'Additional Analysis and Context: kill_chain_phase: mitre-attack: impact',
      'Additional Analysis and Context: kill_chain_phase: mitre-attack: collection',
    ])
    expect({
      externalDateAdded: ssdeep.external_date_added,
      externalLastModified: ssdeep.external_last_modified,
      firstSeen: ssdeep.first_seen,
      externalDateExpires: ssdeep.external_date_expires,
      confidence: ssdeep.confidence,
    }).toEqual({
      externalDateAdded: '2021-11-08T12:41:22.437Z',
      externalLastModified: '2021-11-09T14:18:23.670Z',
      firstSeen: '2021-11-08T00:00:00.000Z',
      externalDateExpires: '2026-11-07T00:00:00.000Z',
      confidence: 100,
    })
  })

  it(
    'changes nothing when the same file is imported again',
    async () => {
      const before = await indicatorsOf('sekoia')
      const attributes = await attributeCount('sekoia')
      const groups = await groupsOf('sekoia')
      const result = await run(SEKOIA, 'sekoia')
      expect(result).toMatchObject({
        items: 370,
        errorCount: 6,
        indicators: { created: 0, updated: 0, unchanged: 102 },
        groups: { created: 0, updated: 0, unchanged: 19 },
        associations: { created: 0, updated: 0, unchanged: 243 },
      })
      expect(await indicatorsOf('sekoia')).toEqual(before)
      expect(await groupsOf('sekoia')).toEqual(groups)
      expect(await attributeCount('sekoia')).toBe(attributes)
      expect(await associationCount('sekoia')).toBe(243)
    },
    IMPORT_TIMEOUT,
  )
})

describe.skipIf(!!missing)('versions of one STIX object', () => {
  const line = readFileSync(SEKOIA, 'utf8')
    .split('\n')
    .find((l) => l.includes('indicator--04f05593-2a58-4e33-b4f0-d6febfd893b0'))
  const object = line ? (JSON.parse(line) as Record<string, unknown>) : {}

  it('updates the Indicator from a newer version (by modified), and ignores an older one', async () => {
    const file = join(dir, 'versions.jsonl')
    writeFileSync(file, `${JSON.stringify(object)}\n`)
    await run(file, 'versions')
    const [first] = await indicatorsOf('versions')
    expect([first.summary, first.external_date_expires, !!first.active]).toEqual([
      'api.ontracting.com',
      '2022-01-01T00:00:00.000Z',
      false,
    ])
    const newer = {
      ...object,
      modified: '2030-01-01T00:00:00.000Z',
      valid_until: '2099-01-01T00:00:00.000Z',
      description: 'seen again',
    }
    writeFileSync(file, `${JSON.stringify(newer)}\n`)
    expect((await run(file, 'versions')).errorCount).toBe(0)
    const after = await indicatorsOf('versions')
    expect(after.length).toBe(1)
    expect([
      after[0].id,
      after[0].description,
      after[0].external_last_modified,
      after[0].external_date_expires,
      !!after[0].active,
    ]).toEqual([first.id, 'seen again', '2030-01-01T00:00:00.000Z', '2099-01-01T00:00:00.000Z', true])
    expect(await attributesOf(first.id)).toEqual([
      'External ID: indicator--04f05593-2a58-4e33-b4f0-d6febfd893b0',
      'Attack Phase: Command and Control',
      'Additional Analysis and Context: kill_chain_phase: mitre-attack: command-and-control',
    ])
    writeFileSync(file, `${JSON.stringify({ ...object, description: 'an older version' })}\n`)
    await run(file, 'versions')
    expect(await indicatorsOf('versions')).toEqual(after)
  })
})

/** The OASIS examples: the file, its objects, the Indicators, Groups and associations it makes, its refusals, what it skips. */
const OASIS_FILES: [
  file: string,
  objects: number,
  indicators: number,
  groups: number,
  associations: number,
  refused: number,
  skipped: Record<string, number>,
][] = [
  ['indicator-for-c2-ip-address.json', 1, 1, 0, 0, 0, {}],
  ['indicator-to-campaign-relationship.json', 3, 1, 1, 1, 0, {}],
  ['indicators-for-C2-with-COA.json', 8, 2, 2, 3, 0, { identity: 1 }],
  // Its two indicators match email messages, which no Indicator type holds, and its two relationships name them.
  ['malicious-email-indicator-with-attachment.json', 6, 0, 1, 0, 4, { identity: 1 }],
  // Its ipv4-addr and domain-name SCOs are Indicators; infrastructure is skipped, so its four relationships are refused.
  ['infrastructure.json', 10, 2, 2, 0, 4, { infrastructure: 2 }],
  // One campaign object, not in a bundle.
  ['interop-objectmarking-test.json', 1, 0, 1, 0, 0, {}],
  // 4 CIDRs, 3 Hosts, 3 Files by MD5; its two x509-certificate indicators are refused, and 4 relationships to identities.
  ['threat-reports/apt1.json', 76, 10, 30, 65, 6, { identity: 4 }],
  // Two indicators name a file only by its name (no hash: refused), and the 10 relationships naming them; one
  // alternative, the host 'domain autuo.xicp.net', is refused by the Host type (and the 2 associations to it) while
  // its address comes in.
  ['threat-reports/poisonivy.json', 155, 42, 39, 213, 15, { identity: 1 }],
]

describe.skipIf(!!missing)('the OASIS STIX 2.1 examples', () => {
  it.each(OASIS_FILES)(
    '%s: %i objects make %i Indicators, %i Groups, %i associations; %i refused',
    async (file, objects, indicators, groups, associations, refused, skipped) => {
      const result = await run(join(OASIS, file), file)
      expect([result.items, result.errorCount, result.skipped]).toEqual([objects, refused, skipped])
      expect([result.groups.created, result.associations.created]).toEqual([groups, associations])
      expect((await indicatorsOf(file)).length).toBe(indicators)
      expect((await groupsOf(file)).length).toBe(groups)
      expect(await associationCount(file)).toBe(associations)
    },
    IMPORT_TIMEOUT,
  )

  it('takes a threat-actor as an Adversary, a tool as a Tool, a vulnerability as a Vulnerability', async () => {
    const apt1 = await groupsOf('threat-reports/apt1.json')
    const count = (type: string) => apt1.filter((g) => g.type === type).length
    expect([count('Adversary'), count('Tool'), count('Malware'), count('Intrusion Set'), count('Report')]).toEqual([
      5, 10, 6, 1, 1,
    ])
    const poisonivy = await groupsOf('threat-reports/poisonivy.json')
    expect(poisonivy.filter((g) => g.type === 'Vulnerability').map((g) => g.name)).toHaveLength(6)
  })
})

describe.skipIf(!!missing)('TAXII 2.1 serves the source dates', () => {
  it('serves an imported indicator valid from its source, until its source says, never as still valid', async () => {
    const line = readFileSync(SEKOIA, 'utf8')
      .split('\n')
      .find((l) => l.includes('indicator--04f05593-2a58-4e33-b4f0-d6febfd893b0'))!
    const file = join(dir, 'taxii.jsonl')
    writeFileSync(file, `${line}\n`)
    await run(file, 'taxii')
    const reader = await t.createAccount({
      kind: 'taxii',
      password: 'reader-password',
      memberships: { [ownerFor('taxii')]: 'Subscriber' },
    })
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/services/taxii/v2/taxii/svc_taxii/collections/${encodeURIComponent(ownerFor('taxii'))}/objects/`,
      headers: {
        'x-forwarded-proto': 'https',
        accept: 'application/taxii+json;version=2.1',
        authorization: `Basic ${Buffer.from(`${reader.userName}:reader-password`).toString('base64')}`,
      },
    })
    expect(response.statusCode, response.body).toBe(200)
    const served = (JSON.parse(response.body).objects as Record<string, unknown>[]).find((o) => o.type === 'indicator')!
    expect([served.name, served.valid_from, served.valid_until]).toEqual([
      'api.ontracting.com',
      '2021-07-27T15:47:18.224Z',
      '2022-01-01T00:00:00.000Z',
    ])
    // Served under its source's id, so with the source's created (one object, one created); its version is Bulwark's.
    expect([served.id, served.created]).toEqual([
      'indicator--04f05593-2a58-4e33-b4f0-d6febfd893b0',
      '2021-07-27T15:47:18.224Z',
    ])
    expect(String(served.modified) > '2025-01-01').toBe(true)
  })
})

describe.skipIf(!!missing)('adversarial STIX', () => {
  it('keeps the objects before a cut, each good line of a file with a broken one, and markup verbatim', async () => {
    const xss = '<script>alert(document.cookie)</script>"><img src=x onerror=alert(1)>'
    const good = (n: number) =>
      JSON.stringify({
        type: 'indicator',
        spec_version: '2.1',
        id: `indicator--00000000-0000-4000-8000-00000000000${n}`,
        created: '2021-03-01T00:00:00.000Z',
        modified: '2021-03-01T00:00:00.000Z',
        name: xss,
        description: xss,
        pattern: `[domain-name:value = 'adv${n}.example']`,
        pattern_type: 'stix',
        valid_from: '2021-03-01T00:00:00Z',
      })
    const lines = join(dir, 'broken.jsonl')
    writeFileSync(lines, [good(1), '{"type": "indicator", "id": "indicator--', good(2)].join('\n'))
    const result = await run(lines, 'adversarial')
    expect([result.items, result.errorCount, result.errors.map((e) => e.item)]).toEqual([3, 1, ['line 2']])
    const rows = await indicatorsOf('adversarial')
    expect(rows.map((r) => [r.summary, r.description])).toEqual([
      ['adv1.example', xss],
      ['adv2.example', xss],
    ])
    const bundle = join(dir, 'cut.json')
    const text = `{"type": "bundle", "id": "bundle--1", "objects": [${good(3)}, ${good(4)}]}`
    writeFileSync(bundle, text.slice(0, text.length - 30))
    const cut = await run(bundle, 'adversarial')
    expect(cut.errors).toEqual([{ item: '(file)', message: 'The file ends before its JSON document does' }])
    expect((await indicatorsOf('adversarial')).map((r) => r.summary)).toEqual([
      'adv1.example',
      'adv2.example',
      'adv3.example',
    ])
  })
})

/** A STIX 2.1 object of the given type and uuid tail, with what the test adds. */
const sdo = (type: string, n: number, more: Record<string, unknown> = {}) => ({
  type,
  spec_version: '2.1',
  id: `${type}--00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  created: '2022-01-01T00:00:00.000Z',
  modified: '2022-01-01T00:00:00.000Z',
  ...more,
})
const jsonLines = (name: string, objects: unknown[]) => {
  const file = join(dir, name)
  writeFileSync(file, objects.map((o) => JSON.stringify(o)).join('\n'))
  return file
}

describe.skipIf(!!missing)('relationships, versions and bounds', () => {
  const campaign = sdo('campaign', 1, { name: 'Held Campaign' })
  const malware = sdo('malware', 2, { name: 'Held Malware', is_family: true })
  const indicator = sdo('indicator', 3, {
    name: 'c2',
    pattern: "[ipv4-addr:value = '198.51.100.7' OR domain-name:value = 'held.example']",
    pattern_type: 'stix',
    valid_from: '2022-01-01T00:00:00Z',
  })
  const relationship = (n: number, source: string, target: string, type = 'uses') =>
    sdo('relationship', n, { relationship_type: type, source_ref: source, target_ref: target })

  it('holds a relationship that comes before its objects until they are read, and reports one whose object never comes', async () => {
    const file = jsonLines('graph.jsonl', [
      relationship(10, campaign.id, malware.id),
      relationship(11, indicator.id, campaign.id, 'indicates'),
      relationship(12, indicator.id, 'indicator--00000000-0000-4000-8000-000000000099', 'related-to'),
      relationship(13, campaign.id, 'identity--00000000-0000-4000-8000-000000000001', 'targets'),
      relationship(14, malware.id, 'intrusion-set--00000000-0000-4000-8000-000000000098', 'authored-by'),
      sdo('identity', 1, { name: 'a victim', identity_class: 'organization' }),
      campaign,
      malware,
      indicator,
      sdo('report', 4, {
        name: 'Held Report',
        published: '2022-01-02T00:00:00Z',
        object_refs: [campaign.id, indicator.id, 'relationship--00000000-0000-4000-8000-000000000010'],
      }),
    ])
    const result = await run(file, 'graph')
    expect(result.skipped).toEqual({ identity: 1 })
    expect(result.groups.created).toBe(3)
    // campaign-malware, the indicator's two Indicators with the campaign, the report with the campaign and both Indicators.
    expect(result.associations).toEqual({ created: 6, updated: 0, unchanged: 0, refused: 1 })
    expect(result.errors).toEqual([
      {
        item: 'line 4',
        message: 'identity--00000000-0000-4000-8000-000000000001 is an identity, which Bulwark does not import',
      },
      {
        item: 'line 3',
        message:
          'indicator--00000000-0000-4000-8000-000000000099 is not in this input (an Indicator is found by its value, which only its object gives)',
      },
      {
        item: 'line 5',
        message:
          "Association: Group with xid 'intrusion-set--00000000-0000-4000-8000-000000000098' was not found in STIX graph",
      },
    ])
    expect(result.errorCount).toBe(3)
    expect(await associationCount('graph')).toBe(6)
    // The intrusion set comes in a later file: the relationship, imported again, now finds it.
    const later = jsonLines('graph-later.jsonl', [sdo('intrusion-set', 98, { name: 'Later Set' })])
    expect((await run(later, 'graph')).groups.created).toBe(1)
    const again = await run(file, 'graph')
    expect(again.associations).toEqual({ created: 1, updated: 0, unchanged: 6, refused: 0 })
    expect(again.groups).toEqual({ created: 0, updated: 0, unchanged: 3, refused: 0 })
  })

  it('keeps the newer of two versions of one object in one file, whichever comes first, and markup verbatim', async () => {
    const xss = '<script>alert(document.cookie)</script>"><img src=x onerror=alert(1)>'
    const older = sdo('intrusion-set', 20, { name: `old ${xss}`, description: 'the old one' })
    const newer = { ...older, name: `new ${xss}`, description: xss, modified: '2023-06-01T00:00:00.000Z' }
    const result = await run(jsonLines('versions-a.jsonl', [newer, older, newer]), 'group versions')
    expect(result.groups).toEqual({ created: 1, updated: 0, unchanged: 2, refused: 0 })
    const [group] = await groupsOf('group versions')
    expect([group.name, group.external_last_modified]).toEqual([`new ${xss}`, '2023-06-01T00:00:00.000Z'])
    expect(await attributesOf(group.id, 'group')).toEqual([`Description: ${xss}`])

    const other = sdo('intrusion-set', 21, { name: 'first older', description: 'older' })
    const otherNewer = { ...other, name: 'then newer', description: 'newer', modified: '2023-06-01T00:00:00.000Z' }
    const second = await run(jsonLines('versions-b.jsonl', [other, otherNewer]), 'group versions')
    expect(second.groups).toEqual({ created: 1, updated: 1, unchanged: 0, refused: 0 })
    const updated = (await groupsOf('group versions')).find((g) => g.xid === other.id)!
    expect([updated.name, updated.external_last_modified]).toEqual(['then newer', '2023-06-01T00:00:00.000Z'])
    // The newer version's attributes are added; the older one's stay (attributes are appended).
    expect(await attributesOf(updated.id, 'group')).toEqual(['Description: older', 'Description: newer'])
  })

  it('lists the first 1,000 refusals by place and reason, and counts the rest', async () => {
    const bad = Array.from({ length: 1_005 }, (_, i) =>
      sdo('indicator', 1000 + i, {
        pattern: `[process:name = 'p${i}.exe']`,
        pattern_type: 'stix',
        valid_from: '2022-01-01T00:00:00Z',
      }),
    )
    const result = await run(jsonLines('bound.jsonl', bad), 'bound')
    expect([result.errorCount, result.errors.length, result.errorsNotListed]).toEqual([1_005, 1_000, 5])
    expect(result.errors[999].item).toBe('line 1000')
  })

  it("records a sighting as observations of its indicator's Indicators, once, and a newer version replaces its count", async () => {
    const seen = sdo('indicator', 30, {
      pattern: "[ipv4-addr:value = '203.0.113.30' OR domain-name:value = 'seen.example']",
      pattern_type: 'stix',
      valid_from: '2022-01-01T00:00:00Z',
    })
    const sighting = sdo('sighting', 31, {
      sighting_of_ref: seen.id,
      count: 3,
      first_seen: '2022-02-01T00:00:00Z',
      last_seen: '2022-02-03T10:00:00Z',
    })
    const file = jsonLines('sightings.jsonl', [
      sighting,
      seen,
      sdo('sighting', 32, { sighting_of_ref: malware.id }),
      sdo('sighting', 33, { sighting_of_ref: 'indicator--00000000-0000-4000-8000-000000000097' }),
      malware,
    ])
    const result = await run(file, 'sightings')
    // Two observations, and the sighting of the malware kept on its Group (the next test).
    expect(result.observations).toEqual({ created: 3, updated: 0, unchanged: 0, refused: 0 })
    expect(result.errors).toEqual([
      {
        item: 'line 4',
        message:
          'indicator--00000000-0000-4000-8000-000000000097 is not in this input (an Indicator is found by its value, which only its object gives)',
      },
    ])
    const observed = async () =>
      (await indicatorsOf('sightings')).map((r) => [r.summary, r.observation_count, r.last_observed])
    expect(await observed()).toEqual([
      ['203.0.113.30', 3, '2022-02-03T10:00:00.000Z'],
      ['seen.example', 3, '2022-02-03T10:00:00.000Z'],
    ])
    expect((await run(file, 'sightings')).observations).toEqual({ created: 0, updated: 0, unchanged: 3, refused: 0 })
    expect(await observed()).toEqual([
      ['203.0.113.30', 3, '2022-02-03T10:00:00.000Z'],
      ['seen.example', 3, '2022-02-03T10:00:00.000Z'],
    ])
    const newer = { ...sighting, count: 5, modified: '2022-03-01T00:00:00.000Z', last_seen: '2022-02-28T00:00:00Z' }
    const again = await run(jsonLines('sightings-newer.jsonl', [seen, newer]), 'sightings')
    expect(again.observations).toEqual({ created: 0, updated: 2, unchanged: 0, refused: 0 })
    expect(await observed()).toEqual([
      ['203.0.113.30', 5, '2022-02-28T00:00:00.000Z'],
      ['seen.example', 5, '2022-02-28T00:00:00.000Z'],
    ])
  })

  it('keeps a sighting of a Group: its first and last seen widened, the sighting an attribute, once; a newer version replaces it', async () => {
    const set = sdo('intrusion-set', 50, {
      name: 'Sighted Set',
      first_seen: '2021-06-01T00:00:00.000Z',
      last_seen: '2021-12-01T00:00:00.000Z',
    })
    const sighting = sdo('sighting', 51, {
      sighting_of_ref: set.id,
      count: 4,
      first_seen: '2021-03-01T00:00:00Z',
      last_seen: '2021-09-01T00:00:00Z',
      where_sighted_refs: ['identity--00000000-0000-4000-8000-000000000052'],
    })
    // The sighting before the Group it names: held back until the Group is read.
    const file = jsonLines('group-sighting.jsonl', [sighting, set])
    const first = await run(file, 'group sightings')
    expect([first.errorCount, first.groups.created, first.observations]).toEqual([
      0,
      1,
      { created: 1, updated: 0, unchanged: 0, refused: 0 },
    ])
    const seen = async () => {
      const [g] = await groupsOf('group sightings')
      return [g.first_seen, g.last_seen, await attributesOf(g.id, 'group'), g.last_modified]
    }
    const [firstSeen, lastSeen, attributes, modified] = await seen()
    // Earlier than the Group's own first_seen: widened; its last_seen is later than the sighting's: kept.
    expect([firstSeen, lastSeen]).toEqual(['2021-03-01T00:00:00.000Z', '2021-12-01T00:00:00.000Z'])
    expect(attributes).toEqual([
      `Additional Analysis and Context: sighting: ${sighting.id}: count 4, seen 2021-03-01T00:00:00.000Z to 2021-09-01T00:00:00.000Z (version 2022-01-01T00:00:00.000Z)`,
    ])
    // Imported again: nothing recorded twice, the Group not touched.
    const again = await run(file, 'group sightings')
    expect([again.errorCount, again.observations]).toEqual([0, { created: 0, updated: 0, unchanged: 1, refused: 0 }])
    expect(await seen()).toEqual([firstSeen, lastSeen, attributes, modified])
    // A newer version of the sighting replaces what was kept of it and widens the window again.
    const newer = { ...sighting, count: 6, last_seen: '2022-05-01T00:00:00Z', modified: '2022-06-01T00:00:00.000Z' }
    const third = await run(jsonLines('group-sighting-newer.jsonl', [newer]), 'group sightings')
    expect([third.errorCount, third.observations]).toEqual([0, { created: 0, updated: 1, unchanged: 0, refused: 0 }])
    const [, last, kept] = await seen()
    expect([last, kept]).toEqual([
      '2022-05-01T00:00:00.000Z',
      [
        `Additional Analysis and Context: sighting: ${sighting.id}: count 6, seen 2021-03-01T00:00:00.000Z to 2022-05-01T00:00:00.000Z (version 2022-06-01T00:00:00.000Z)`,
      ],
    ])
    // The older version again: left as it is.
    const fourth = await run(file, 'group sightings')
    expect(fourth.observations).toEqual({ created: 0, updated: 0, unchanged: 1, refused: 0 })
    expect((await seen())[2]).toEqual(kept)
  })

  it('makes an SCO of a held type the Indicators of its value, which a second import or an indicator object leaves as they are', async () => {
    const file = {
      type: 'file',
      spec_version: '2.1',
      id: 'file--00000000-0000-4000-8000-000000000040',
      name: 'dropper.exe',
      hashes: {
        MD5: '0123456789abcdef0123456789abcdef',
        'SHA-256': 'aa'.repeat(32),
        'SHA-512': 'bb'.repeat(64),
      },
    }
    const address = {
      type: 'ipv4-addr',
      spec_version: '2.1',
      id: 'ipv4-addr--00000000-0000-4000-8000-000000000041',
      value: '198.51.100.41',
    }
    const known = sdo('indicator', 42, {
      pattern: "[ipv4-addr:value = '198.51.100.41']",
      pattern_type: 'stix',
      valid_from: '2022-01-01T00:00:00Z',
      valid_until: '2022-06-01T00:00:00Z',
    })
    const uses = relationship(43, malware.id, address.id, 'communicates-with')
    const path = jsonLines('scos.jsonl', [uses, known, malware, file, address])
    const result = await run(path, 'scos')
    expect(result.skipped).toEqual({})
    expect(result.indicators).toEqual({ created: 2, updated: 0, unchanged: 1, refused: 0 })
    expect(result.associations.created).toBe(1)
    const rows = await indicatorsOf('scos')
    const [ip, dropper] = rows
    // The address came from the indicator object first: its dates and inactive state stay.
    expect([ip.summary, ip.external_date_expires, !!ip.active]).toEqual([
      '198.51.100.41',
      '2022-06-01T00:00:00.000Z',
      false,
    ])
    expect([dropper.type, dropper.value1, dropper.value3]).toEqual([
      'File',
      '0123456789ABCDEF0123456789ABCDEF',
      'AA'.repeat(32),
    ])
    expect(await attributesOf(dropper.id)).toEqual([
      'External ID: file--00000000-0000-4000-8000-000000000040',
      `Additional Analysis and Context: file:hashes.'SHA-512' = '${'bb'.repeat(64)}'`,
      "Additional Analysis and Context: file:name = 'dropper.exe'",
    ])
    const again = await run(path, 'scos')
    expect(again.indicators).toEqual({ created: 0, updated: 0, unchanged: 3, refused: 0 })
    expect(await indicatorsOf('scos')).toEqual(rows)
  })

  it('says that the caller cannot write to the owner, before reading anything', async () => {
    const reader = await t.createAccount({
      role: 'Standard User',
      memberships: { [ownerFor('bound')]: 'Subscriber' },
    })
    await expect(
      importCommand(t.store, t.services, {
        file: join(dir, 'bound.jsonl'),
        owner: ownerFor('bound'),
        userName: reader.userName,
      }),
    ).rejects.toThrow(`${reader.userName} cannot write to ${ownerFor('bound')}`)
  })
})

/**
 * The round trip of STIX as vendors publish it: Unit 42's NOBELIUM bundle (STIX 2.0, with
 * relationships and a report) and SEKOIA's APT31 JSON Lines (STIX 2.1) imported with
 * `bulwark import`, then read back over TAXII 2.1 (paged, filtered, by id, as a manifest) and
 * through `bulwark export --format stix`: each Group comes back as its STIX object under the id and
 * dates it came with, the associations as relationships typed by their ends, every object valid
 * against the OASIS schemas, and taxii2-client with stix2-validator reading them all.
 */
import { fileURLToPath } from 'node:url'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestAccount, type TestApp, createTestApp } from '../../test/harness.js'
import { DATASETS_DIR as DATASETS, datasetsUnavailable } from '../../test/datasets.js'
import { announceSkip, runClientScript } from '../../test/real-clients.js'
import { stixSchemaErrors, stixSchemasUnavailable } from '../../test/stix-schemas.js'
import { exportCommand } from './export.js'
import { importCommand } from './import.js'

const missing = datasetsUnavailable()
if (missing) console.warn(missing)
const noSchemas = stixSchemasUnavailable()
if (noSchemas) console.warn(noSchemas)
const noClients = announceSkip('taxii2-client (graph)')

const NOBELIUM = join(DATASETS, 'pan-unit42+iocs', 'stix2-reports', 'report_json', 'NOBELIUM.json')
const SEKOIA = join(DATASETS, 'SEKOIA-IO+Community', 'IOCs', 'apt31', '2021-11-10 APT31 - STIX2.jsonl')
/** Of APT31's 104 indicators, those that make an Indicator (two are YARA): each makes one (a File's ORed hashes are one File). */
const SINGLE_INDICATORS = 102
const CLIENT_SCRIPT = fileURLToPath(new URL('../../protocols/taxii21/taxii2_client_run.py', import.meta.url))

type StixObject = Record<string, unknown> & { type: string; id: string }

const sourceObjects = (file: string): StixObject[] =>
  file.endsWith('.jsonl')
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l))
    : JSON.parse(readFileSync(file, 'utf8')).objects

const ms = (t: unknown) => new Date(String(t)).toISOString()

const countByType = (objects: readonly { type: string }[]) => {
  const counts: Record<string, number> = {}
  for (const o of objects) counts[o.type] = (counts[o.type] ?? 0) + 1
  return counts
}

/** The source's SDOs that become Groups, as their id, created and modified (to the millisecond). */
const sourceGroups = (objects: readonly StixObject[]) =>
  objects
    .filter((o) => !['indicator', 'relationship', 'marking-definition', 'identity'].includes(o.type))
    .map((o) => [o.id, ms(o.created), ms(o.modified)])
    .sort()

const servedGroups = (objects: readonly StixObject[]) =>
  objects
    .filter((o) => !['indicator', 'relationship', 'marking-definition'].includes(o.type))
    .map((o) => [o.id, o.created, o.modified])
    .sort()

/** Relationship shapes: `<source type> <relationship type> <target type>`, counted. */
const relationshipShapes = (objects: readonly StixObject[]) =>
  countByType(
    objects
      .filter((o) => o.type === 'relationship')
      .map((o) => ({
        type: `${String(o.source_ref).split('--')[0]} ${String(o.relationship_type)} ${String(o.target_ref).split('--')[0]}`,
      })),
  )

/** `<source_ref> <relationship_type> <target_ref>` of every relationship, sorted. */
const relationshipTriples = (objects: readonly StixObject[]) =>
  objects
    .filter((o) => o.type === 'relationship')
    .map((o) => `${String(o.source_ref)} ${String(o.relationship_type)} ${String(o.target_ref)}`)
    .sort()

const idsOf = (objects: readonly StixObject[], type: string) =>
  objects
    .filter((o) => o.type === type)
    .map((o) => o.id)
    .sort()

let t: TestApp
let writer: TestAccount
const password = 'graph-reader-password'
let reader: string
let dir: string

beforeAll(async () => {
  t = await createTestApp({ listen: !noClients })
  dir = mkdtempSync(join(tmpdir(), 'bulwark-graph-'))
  for (const name of ['Graph NOBELIUM', 'Graph APT31', 'Graph Mirror']) await t.createOwner(name, 'Source')
  writer = await t.createAccount({
    role: 'Standard User',
    memberships: { 'Graph NOBELIUM': 'Editor', 'Graph APT31': 'Editor', 'Graph Mirror': 'Editor' },
  })
  reader = (
    await t.createAccount({
      kind: 'taxii',
      password,
      memberships: { 'Graph NOBELIUM': 'Subscriber', 'Graph APT31': 'Subscriber', 'Graph Mirror': 'Subscriber' },
    })
  ).userName
  if (!missing) {
    for (const [file, owner] of [
      [NOBELIUM, 'Graph NOBELIUM'],
      [SEKOIA, 'Graph APT31'],
    ])
      await importCommand(t.store, t.services, { file, owner, userName: writer.userName })
  }
}, 120_000)
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true })
  await t?.close()
})

async function taxii(path: string) {
  const response = await t.app.inject({
    method: 'GET',
    url: `/api/services/taxii/v1/svc_taxii/collections/${path}`,
    headers: {
      'x-forwarded-proto': 'https',
      accept: 'application/taxii+json;version=2.1',
      authorization: `Basic ${Buffer.from(`${reader}:${password}`).toString('base64')}`,
    },
  })
  expect(response.statusCode, response.body).toBe(200)
  return { body: JSON.parse(response.body), headers: response.headers }
}

/** Every object of a collection, `limit` a page, following `next`; and how many pages it took. */
async function walk(owner: string, limit: number, query = '') {
  const objects: StixObject[] = []
  let next: string | undefined
  let pages = 0
  do {
    const { body } = await taxii(
      `${encodeURIComponent(owner)}/objects/?limit=${limit}${query}${next ? `&next=${next}` : ''}`,
    )
    objects.push(...(body.objects ?? []))
    next = body.more ? body.next : undefined
    pages++
  } while (next)
  return { objects, pages }
}

describe.skipIf(!!missing)('imported Groups and relationships served over TAXII 2.1 and exported', () => {
  it('serves NOBELIUM: every SDO under its own id and dates, each relationship typed by its ends, the report with its refs', async () => {
    const source = sourceObjects(NOBELIUM)
    const { objects, pages } = await walk('Graph NOBELIUM', 7)
    expect(countByType(objects)).toEqual({
      'marking-definition': 4,
      indicator: 17,
      'course-of-action': 21,
      'attack-pattern': 4,
      campaign: 1,
      report: 1,
      relationship: 60,
    })
    expect(pages).toBe(Math.ceil(108 / 7))
    expect(new Set(objects.map((o) => o.id)).size).toBe(objects.length)
    expect(servedGroups(objects)).toEqual(sourceGroups(source))
    // Each of its indicators made one Indicator: served under the source's id.
    expect(idsOf(objects, 'indicator')).toEqual(idsOf(source, 'indicator'))
    // Every relationship as the source has it: its type (the source's 'indicator uses attack-pattern' too), source and target.
    expect(relationshipShapes(objects)).toEqual({
      'course-of-action mitigates attack-pattern': 30,
      'indicator indicates campaign': 17,
      'indicator uses attack-pattern': 9,
      'campaign uses attack-pattern': 4,
    })
    expect(relationshipTriples(objects)).toEqual(relationshipTriples(source))
    // Every relationship joins two served objects.
    const ids = new Set(objects.map((o) => o.id))
    for (const r of objects.filter((o) => o.type === 'relationship'))
      expect([ids.has(r.source_ref as string), ids.has(r.target_ref as string)]).toEqual([true, true])
    // The report refers to every Group and Indicator it referred to in the source (Indicators by their served ids).
    const report = objects.find((o) => o.type === 'report')!
    const sourceReport = source.find((o) => o.type === 'report')!
    const refs = report.object_refs as string[]
    const groupRefs = (sourceReport.object_refs as string[]).filter(
      (r) => !/^(indicator|relationship|identity|marking-definition)--/.test(r),
    )
    expect(refs.filter((r) => !r.startsWith('indicator--')).sort()).toEqual(groupRefs.sort())
    expect(refs.filter((r) => r.startsWith('indicator--')).sort()).toEqual(
      objects
        .filter((o) => o.type === 'indicator')
        .map((o) => o.id)
        .sort(),
    )
    expect([report.name, report.published]).toEqual([sourceReport.name, ms(sourceReport.published)])
    // Indicators are valid from their source's creation.
    const sourceStarts = source
      .filter((o) => o.type === 'indicator')
      .map((o) => ms(o.created))
      .sort()
    expect(
      objects
        .filter((o) => o.type === 'indicator')
        .map((o) => o.valid_from)
        .sort(),
    ).toEqual(sourceStarts)
    if (!noSchemas) {
      const errors = objects.flatMap((o) => stixSchemaErrors(o).map((e) => `${o.id} ${e}`))
      expect(errors).toEqual([])
    }
  })

  it('serves APT31 (STIX 2.1 JSON Lines): its Groups under their ids and dates, its relationships by pair', async () => {
    const source = sourceObjects(SEKOIA)
    const { objects } = await walk('Graph APT31', 1000)
    const counts = countByType(objects)
    expect(counts).toMatchObject({
      'attack-pattern': 10,
      campaign: 5,
      malware: 3,
      'intrusion-set': 1,
    })
    expect(servedGroups(objects)).toEqual(sourceGroups(source))
    const groups = objects.filter((o) => !['indicator', 'relationship', 'marking-definition'].includes(o.type))
    for (const g of groups) {
      const from = source.find((o) => o.id === g.id)!
      expect([g.name, g.description ?? null]).toEqual([from.name, from.description ?? null])
    }
    const shapes = relationshipShapes(objects)
    expect(shapes).toMatchObject({
      'intrusion-set uses attack-pattern': 10,
      'campaign uses attack-pattern': 10,
      'campaign attributed-to intrusion-set': 5,
      'campaign uses malware': 3,
      // Typed and directed as the source says, where the pair alone would say 'intrusion-set uses malware'.
      'malware authored-by intrusion-set': 2,
      'intrusion-set uses malware': 1,
    })
    // Between Groups, every relationship is the source's own.
    const betweenGroups = (list: readonly StixObject[]) =>
      relationshipTriples(list).filter((r) => !r.includes('indicator--'))
    expect(betweenGroups(objects)).toEqual(betweenGroups(source))
    // An indicator whose pattern made one Indicator is served under its id.
    const served = new Set(idsOf(objects, 'indicator'))
    const sourceIndicators = idsOf(source, 'indicator')
    expect(sourceIndicators.filter((id) => served.has(id)).length).toBe(SINGLE_INDICATORS)
    // Each relationship of such an indicator is the source's, under its id.
    const sourceTriples = new Set(relationshipTriples(source))
    const fromServedSource = relationshipTriples(objects).filter((r) => sourceIndicators.some((id) => r.startsWith(id)))
    expect(fromServedSource.length).toBeGreaterThan(0)
    for (const r of fromServedSource) expect(sourceTriples.has(r), r).toBe(true)
    // The attack patterns keep their ATT&CK tactic.
    const phased = objects.filter((o) => o.type === 'attack-pattern')
    for (const ap of phased)
      expect(ap.kill_chain_phases, ap.id).toEqual(source.find((o) => o.id === ap.id)!.kill_chain_phases)
    if (!noSchemas) {
      const errors = objects.flatMap((o) => stixSchemaErrors(o).map((e) => `${o.id} ${e}`))
      expect(errors).toEqual([])
    }
  })

  it('filters Groups and relationships by type, id, version and date added; serves one, its versions and its manifest record', async () => {
    const { objects } = await walk('Graph NOBELIUM', 1000)
    const campaign = objects.find((o) => o.type === 'campaign')!
    const owner = encodeURIComponent('Graph NOBELIUM')
    const byType = await walk('Graph NOBELIUM', 9, '&match[type]=relationship,campaign')
    expect(countByType(byType.objects)).toEqual({ relationship: 60, campaign: 1 })
    expect(byType.pages).toBe(7)
    const byId = await taxii(`${owner}/objects/?match[id]=${campaign.id}`)
    expect(byId.body.objects.map((o: StixObject) => o.id)).toEqual([campaign.id])
    const byVersion = await taxii(
      `${owner}/objects/?match[type]=campaign&match[version]=${encodeURIComponent(String(campaign.modified))}`,
    )
    expect(byVersion.body.objects).toHaveLength(1)
    const otherVersion = await taxii(`${owner}/objects/?match[type]=campaign&match[version]=2000-01-01T00:00:00Z`)
    expect(otherVersion.body.objects).toBeUndefined()
    const one = await taxii(`${owner}/objects/${campaign.id}/`)
    expect(one.body.objects).toEqual([campaign])
    const versions = await taxii(`${owner}/objects/${campaign.id}/versions/`)
    expect(versions.body.versions).toEqual([campaign.modified])
    const manifest = await taxii(`${owner}/manifest/?match[id]=${campaign.id}`)
    expect(manifest.body.objects.map((r: Record<string, unknown>) => [r.id, r.version])).toEqual([
      [campaign.id, campaign.modified],
    ])
    // added_after: the last date added of a page of Groups leaves only what follows it.
    const all = await taxii(`${owner}/objects/?match[type]=course-of-action`)
    const last = String(all.headers['x-taxii-date-added-last'])
    const after = await taxii(`${owner}/objects/?match[type]=course-of-action&added_after=${encodeURIComponent(last)}`)
    expect(after.body.objects).toBeUndefined()
  })

  it('marks a Group with its TLP label, and adds a TLP 2.0 marking a Group needs to the collection', async () => {
    const campaign = (await walk('Graph APT31', 1000)).objects.find((o) => o.type === 'campaign')!
    const row = await t.store.db
      .selectFrom('intel_group')
      .select('id')
      .where('xid', '=', campaign.id)
      .executeTakeFirstOrThrow()
    const labelled = await t.request({
      method: 'POST',
      url: `/api/v2/groups/campaigns/${row.id}/securityLabels/TLP%3ACLEAR?owner=${encodeURIComponent('Graph APT31')}`,
      as: writer,
    })
    expect(labelled.statusCode, labelled.body).toBe(200)
    const { objects } = await walk('Graph APT31', 1000)
    const clear = objects.find((o) => o.type === 'marking-definition' && o.name === 'TLP:CLEAR')!
    expect(clear).toBeDefined()
    const served = objects.find((o) => o.id === campaign.id)!
    expect(served.object_marking_refs).toEqual([clear.id])
    // The label is a change of the Group in Bulwark: served again (date added), its version still the source's.
    expect(served.modified).toBe(campaign.modified)
    if (!noSchemas) expect(stixSchemaErrors(served)).toEqual([])
  })

  it('exports the same objects in the STIX bundle', async () => {
    const { objects } = await walk('Graph NOBELIUM', 1000)
    const output = join(dir, 'nobelium.json')
    const result = await exportCommand(t.store, t.services, {
      owner: 'Graph NOBELIUM',
      output,
      format: 'stix',
      userName: writer.userName,
    })
    expect([result.count, result.otherObjects]).toEqual([17, 87])
    const bundle = JSON.parse(readFileSync(output, 'utf8'))
    const exported = bundle.objects as StixObject[]
    expect(countByType(exported)).toEqual(countByType(objects))
    const nonIndicators = (list: StixObject[]) =>
      list
        .filter((o) => o.type !== 'indicator')
        .map((o) => JSON.stringify(o))
        .sort()
    expect(nonIndicators(exported)).toEqual(nonIndicators(objects))

    // Imported into another owner, the export makes the same Groups (ids, dates) and associations again (103, as the source).
    const mirror = await importCommand(t.store, t.services, {
      file: output,
      owner: 'Graph Mirror',
      userName: writer.userName,
    })
    expect([mirror.errorCount, mirror.groups.created, mirror.associations.created]).toEqual([0, 27, 103])
    const again = (await walk('Graph Mirror', 1000)).objects
    expect(countByType(again)).toEqual(countByType(objects))
    expect(servedGroups(again)).toEqual(servedGroups(objects))
    expect(relationshipShapes(again)).toEqual(relationshipShapes(objects))
  })
})

describe.skipIf(!!missing || noClients)('taxii2-client reads the Groups and relationships', () => {
  it('pages through both collections, and stix2 and stix2-validator accept every object', async () => {
    const { result } = await runClientScript<
      Record<'1.0' | '2.0', { collections: Record<string, { ids: string[] }>; validated: number; invalid: string[] }>
    >(
      CLIENT_SCRIPT,
      {
        BULWARK_TAXII_BASE: t.baseUrl,
        BULWARK_TAXII_USER: reader,
        BULWARK_TAXII_PASSWORD: password,
        BULWARK_TAXII_LIMIT: '40',
      },
      300_000,
    )
    const { objects: nobelium } = await walk('Graph NOBELIUM', 1000)
    const { objects: apt31 } = await walk('Graph APT31', 1000)
    for (const app of ['2.0', '1.0'] as const) {
      expect(result[app].invalid).toEqual([])
      expect(result[app].collections['Graph NOBELIUM'].ids).toEqual(nobelium.map((o) => o.id))
      expect(result[app].collections['Graph APT31'].ids).toEqual(apt31.map((o) => o.id))
      // Every object of every collection the account reads (its Organization's too) was validated.
      const seen = Object.values(result[app].collections).reduce((n, c) => n + c.ids.length, 0)
      expect(seen).toBeGreaterThanOrEqual(nobelium.length + apt31.length)
      expect(result[app].validated).toBe(seen)
    }
  }, 400_000)
})

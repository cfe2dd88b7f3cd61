/**
 * What a STIX import keeps of the graph and gives back over TAXII 2.1 and the STIX export:
 * a relationship's own type and direction (re-imports change nothing, a later version retypes
 * it, an older one does not), kill chain phases on Groups and Indicators, and an imported
 * indicator served under its source's id when it made one Indicator (an OR's several keep
 * derived ids; a later version with another value takes the id over; relationships name the
 * ids served). Every object served is checked against the OASIS STIX 2.1 schemas.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestAccount, type TestApp, createTestApp } from '../../test/harness.js'
import { stixSchemaErrors, stixSchemasUnavailable } from '../../test/stix-schemas.js'
import { StixIds } from '../../formats/stix2/stix.js'
import { DATASETS_DIR, datasetsUnavailable } from '../../test/datasets.js'
import { exportCommand } from './export.js'
import { importCommand } from './import.js'

const noSchemas = stixSchemasUnavailable()
if (noSchemas) console.warn(noSchemas)

type StixObject = Record<string, unknown> & { type: string; id: string }

let t: TestApp
let writer: TestAccount
let dir: string
const owners = new Map<string, number>()
const readers = new Map<string, string>()
const PASSWORD = 'graph-test-reader'
const missing = datasetsUnavailable()
const UNIT42 = join(DATASETS_DIR, 'pan-unit42+iocs', 'stix2-reports', 'report_json')
const REAL_FILES = [
  join(UNIT42, 'AstarothMalware.json'),
  join(UNIT42, 'malicious-nod-detection.json'),
  join(DATASETS_DIR, 'oasis-open+cti-stix2-json-schemas', 'examples', 'threat-reports', 'poisonivy.json'),
  join(DATASETS_DIR, 'oasis-open+cti-stix2-json-schemas', 'examples', 'threat-reports', 'apt1.json'),
]
const NAMES = ['typed', 'source ids', 'phases', 'real']
const ownerFor = (name: string) => `STIX graph ${name}`

beforeAll(async () => {
  t = await createTestApp()
  dir = mkdtempSync(join(tmpdir(), 'bulwark-stix-graph-'))
  for (const name of NAMES) owners.set(name, await t.createOwner(ownerFor(name), 'Source'))
  writer = await t.createAccount({
    role: 'Standard User',
    memberships: Object.fromEntries(NAMES.map((n) => [ownerFor(n), 'Editor'])),
  })
  for (const name of NAMES)
    readers.set(
      name,
      (await t.createAccount({ kind: 'taxii', password: PASSWORD, memberships: { [ownerFor(name)]: 'Subscriber' } }))
        .userName,
    )
}, 60_000)
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true })
  await t?.close()
})

const sdo = (type: string, n: number, more: Record<string, unknown> = {}): StixObject => ({
  type,
  spec_version: '2.1',
  id: `${type}--00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  created: '2022-01-01T00:00:00.000Z',
  modified: '2022-01-01T00:00:00.000Z',
  ...more,
})
const relationship = (n: number, source: string, type: string, target: string, more: Record<string, unknown> = {}) =>
  sdo('relationship', n, { relationship_type: type, source_ref: source, target_ref: target, ...more })
const indicator = (n: number, pattern: string, more: Record<string, unknown> = {}) =>
  sdo('indicator', n, { pattern, pattern_type: 'stix', valid_from: '2022-01-01T00:00:00Z', ...more })

function file(name: string, objects: unknown[]) {
  const path = join(dir, name)
  writeFileSync(path, objects.map((o) => JSON.stringify(o)).join('\n'))
  return path
}

const run = (path: string, owner: string) =>
  importCommand(t.store, t.services, { file: path, owner: ownerFor(owner), userName: writer.userName })

async function taxii(owner: string, path: string) {
  const response = await t.app.inject({
    method: 'GET',
    url: `/api/services/taxii/v1/svc_taxii/collections/${encodeURIComponent(ownerFor(owner))}/${path}`,
    headers: {
      'x-forwarded-proto': 'https',
      accept: 'application/taxii+json;version=2.1',
      authorization: `Basic ${Buffer.from(`${readers.get(owner)}:${PASSWORD}`).toString('base64')}`,
    },
  })
  return { status: response.statusCode, body: response.body ? JSON.parse(response.body) : undefined }
}

async function served(owner: string): Promise<StixObject[]> {
  const { status, body } = await taxii(owner, 'objects/?limit=1000')
  expect(status).toBe(200)
  const objects = (body.objects ?? []) as StixObject[]
  if (!noSchemas) expect(objects.flatMap((o) => stixSchemaErrors(o).map((e) => `${o.id} ${e}`))).toEqual([])
  return objects
}

/** `<source_ref> <relationship_type> <target_ref>` of each relationship served, sorted. */
const triples = (objects: readonly StixObject[]) =>
  objects
    .filter((o) => o.type === 'relationship')
    .map((o) => `${String(o.source_ref)} ${String(o.relationship_type)} ${String(o.target_ref)}`)
    .sort()

describe('relationship types', () => {
  const actor = sdo('threat-actor', 1, { name: 'Typed Actor', threat_actor_types: ['crime-syndicate'] })
  const set = sdo('intrusion-set', 2, { name: 'Typed Set' })
  const pattern = sdo('attack-pattern', 3, { name: 'Typed Pattern' })
  const c2 = indicator(4, "[domain-name:value = 'typed.example']")
  const attributed = relationship(10, set.id, 'attributed-to', actor.id)
  const objects = [
    attributed,
    // The pair's STIX rule would say 'indicates', and 'intrusion-set uses attack-pattern' for the next one.
    relationship(11, c2.id, 'uses', pattern.id),
    relationship(12, pattern.id, 'related-to', set.id),
    actor,
    set,
    pattern,
    c2,
  ]

  it('serves each relationship with its own type and direction, between the ids the objects are served under', async () => {
    const first = await run(file('typed.jsonl', objects), 'typed')
    expect([first.errorCount, first.associations]).toEqual([0, { created: 3, updated: 0, unchanged: 0, refused: 0 }])
    expect(triples(await served('typed'))).toEqual(
      [
        `${set.id} attributed-to ${actor.id}`,
        `${c2.id} uses ${pattern.id}`,
        `${pattern.id} related-to ${set.id}`,
      ].sort(),
    )
  })

  it('changes nothing when imported again, retypes from a later version, and keeps it from an older one', async () => {
    const before = (await served('typed')).find((o) => o.type === 'relationship' && o.source_ref === set.id)!
    const again = await run(file('typed.jsonl', objects), 'typed')
    expect(again.associations).toEqual({ created: 0, updated: 0, unchanged: 3, refused: 0 })
    expect((await served('typed')).find((o) => o.id === before.id)).toEqual(before)

    // A later version of the relationship says the actor impersonates the set: retyped, and its direction with it.
    const newer = { ...attributed, relationship_type: 'impersonates', source_ref: actor.id, target_ref: set.id }
    const retyped = await run(file('typed-newer.jsonl', [{ ...newer, modified: '2023-01-01T00:00:00.000Z' }]), 'typed')
    expect(retyped.associations).toEqual({ created: 0, updated: 1, unchanged: 0, refused: 0 })
    const after = (await served('typed')).find((o) => o.id === before.id)!
    expect([after.source_ref, after.relationship_type, after.target_ref]).toEqual([actor.id, 'impersonates', set.id])
    // The same relationship in a new version: its id and created stay, its modified (and date added) move.
    expect(after.created).toBe(before.created)
    expect(String(after.modified) > String(before.modified)).toBe(true)
    const { body: manifest } = await taxii('typed', `manifest/?match[id]=${before.id}`)
    expect(manifest.objects.map((r: Record<string, unknown>) => r.version)).toEqual([after.modified])

    // The first file again: its older version of that relationship changes nothing.
    const older = await run(file('typed.jsonl', objects), 'typed')
    expect(older.associations).toEqual({ created: 0, updated: 0, unchanged: 3, refused: 0 })
    expect((await served('typed')).find((o) => o.id === before.id)).toEqual(after)
  })

  it('types an association made without one (through the API) when a relationship names its pair', async () => {
    const tool = sdo('tool', 21, { name: 'Typed Tool' })
    await run(file('typed-tool.jsonl', [tool]), 'typed')
    const idOf = async (xid: string) =>
      (await t.store.db.selectFrom('intel_group').select('id').where('xid', '=', xid).executeTakeFirstOrThrow()).id
    const made = await t.request({
      method: 'POST',
      url: `/api/v2/groups/intrusionSets/${await idOf(set.id)}/groups/tools/${await idOf(tool.id)}?owner=${encodeURIComponent(ownerFor('typed'))}`,
      as: writer,
    })
    expect(made.statusCode, made.body).toBe(200)
    // Untyped: served with the pair's STIX type.
    expect(triples(await served('typed'))).toContain(`${set.id} uses ${tool.id}`)
    const typing = file('typed-tool-rel.jsonl', [relationship(22, tool.id, 'related-to', set.id)])
    expect((await run(typing, 'typed')).associations).toEqual({ created: 0, updated: 1, unchanged: 0, refused: 0 })
    const after = triples(await served('typed'))
    expect(after).toContain(`${tool.id} related-to ${set.id}`)
    expect(after).not.toContain(`${set.id} uses ${tool.id}`)
    expect((await run(typing, 'typed')).associations).toEqual({ created: 0, updated: 0, unchanged: 1, refused: 0 })
  })
})

describe('indicators under their source ids', () => {
  const ids = () => new StixIds(t.services.installationId)
  const campaign = sdo('campaign', 30, { name: 'Sourced Campaign' })
  const single = indicator(31, "[ipv4-addr:value = '198.51.100.31']", { created: '2021-05-05T00:00:00.000Z' })
  const or = indicator(32, "[domain-name:value = 'a.sourced.example' OR domain-name:value = 'b.sourced.example']")
  const objects = [
    relationship(33, single.id, 'indicates', campaign.id),
    relationship(34, or.id, 'indicates', campaign.id),
    campaign,
    single,
    or,
  ]
  const rowOf = async (summary: string) =>
    t.store.db
      .selectFrom('indicator')
      .select(['id', 'owner_id', 'stix_id'])
      .where('owner_id', '=', owners.get('source ids')!)
      .where('summary', '=', summary)
      .executeTakeFirstOrThrow()

  it('serves an indicator that made one Indicator under its id, and the Indicators of an OR under derived ids', async () => {
    const result = await run(file('sourced.jsonl', objects), 'source ids')
    expect([result.errorCount, result.indicators.created, result.associations.created]).toEqual([0, 3, 3])
    const all = await served('source ids')
    const indicators = all.filter((o) => o.type === 'indicator')
    const a = await rowOf('a.sourced.example')
    const b = await rowOf('b.sourced.example')
    expect(indicators.map((o) => [o.name, o.id]).sort()).toEqual(
      [
        ['198.51.100.31', single.id],
        ['a.sourced.example', ids().indicator(a.owner_id, a.id)],
        ['b.sourced.example', ids().indicator(b.owner_id, b.id)],
      ].sort(),
    )
    // One object, one created: the source's, under its id.
    expect(indicators.find((o) => o.id === single.id)!.created).toBe('2021-05-05T00:00:00.000Z')
    // The relationships name the ids served.
    expect(triples(all)).toEqual(
      [
        `${single.id} indicates ${campaign.id}`,
        `${ids().indicator(a.owner_id, a.id)} indicates ${campaign.id}`,
        `${ids().indicator(b.owner_id, b.id)} indicates ${campaign.id}`,
      ].sort(),
    )
  })

  it('finds it by its source id (objects/{id}, match[id], versions), and no longer by its derived id', async () => {
    const row = await rowOf('198.51.100.31')
    expect(row.stix_id).toBe(single.id)
    const one = await taxii('source ids', `objects/${single.id}/`)
    expect([one.status, one.body.objects.map((o: StixObject) => [o.id, o.name])]).toEqual([
      200,
      [[single.id, '198.51.100.31']],
    ])
    const matched = await taxii('source ids', `objects/?match[id]=${single.id}`)
    expect(matched.body.objects.map((o: StixObject) => o.id)).toEqual([single.id])
    const versions = await taxii('source ids', `objects/${single.id}/versions/`)
    expect(versions.body.versions).toEqual([one.body.objects[0].modified])
    const derived = ids().indicator(row.owner_id, row.id)
    expect((await taxii('source ids', `objects/${derived}/`)).status).toBe(404)
    expect((await taxii('source ids', `objects/?match[id]=${derived}`)).body.objects).toBeUndefined()
  })

  it('moves the id to the Indicator of a later version with another value, and not back from an older one', async () => {
    const moved = { ...single, pattern: "[ipv4-addr:value = '198.51.100.131']", modified: '2023-01-01T00:00:00.000Z' }
    const result = await run(file('sourced-newer.jsonl', [moved]), 'source ids')
    expect([result.errorCount, result.indicators.created]).toEqual([0, 1])
    const old = await rowOf('198.51.100.31')
    expect([old.stix_id, (await rowOf('198.51.100.131')).stix_id]).toEqual([null, single.id])
    const one = await taxii('source ids', `objects/${single.id}/`)
    expect(one.body.objects.map((o: StixObject) => o.name)).toEqual(['198.51.100.131'])
    // The Indicator it left is served again, under its derived id: a change a client polling by date added sees.
    const all = await served('source ids')
    expect(all.find((o) => o.name === '198.51.100.31')!.id).toBe(ids().indicator(old.owner_id, old.id))
    expect(new Set(all.map((o) => o.id)).size).toBe(all.length)

    const again = await run(file('sourced.jsonl', objects), 'source ids')
    expect([again.errorCount, again.indicators]).toEqual([0, { created: 0, updated: 0, unchanged: 3, refused: 0 }])
    expect([(await rowOf('198.51.100.31')).stix_id, (await rowOf('198.51.100.131')).stix_id]).toEqual([null, single.id])
  })

  it('exports it under its source id too, and the export imported again names the same objects', async () => {
    const output = join(dir, 'sourced-export.json')
    await exportCommand(t.store, t.services, {
      owner: ownerFor('source ids'),
      output,
      format: 'stix',
      userName: writer.userName,
    })
    const exported = JSON.parse(readFileSync(output, 'utf8')).objects as StixObject[]
    const indicators = exported.filter((o) => o.type === 'indicator')
    expect(indicators.find((o) => o.name === '198.51.100.131')!.id).toBe(single.id)
    const servedIds = (await served('source ids')).map((o) => o.id).sort()
    expect(exported.map((o) => o.id).sort()).toEqual(servedIds)
    if (!noSchemas)
      expect(
        exported.filter((o) => o.type !== 'bundle').flatMap((o) => stixSchemaErrors(o).map((e) => `${o.id} ${e}`)),
      ).toEqual([])
  })
})

describe('kill chain phases', () => {
  const mitre = [{ kill_chain_name: 'mitre-attack', phase_name: 'initial-access' }]
  const lockheed = [{ kill_chain_name: 'lockheed-martin-cyber-kill-chain', phase_name: 'delivery' }]
  const pattern = sdo('attack-pattern', 40, { name: 'Phased Pattern', kill_chain_phases: mitre })
  const malware = sdo('malware', 41, {
    name: 'Phased Malware',
    is_family: true,
    kill_chain_phases: [...lockheed, ...mitre],
  })
  const phased = indicator(42, "[url:value = 'http://phased.example/x']", { kill_chain_phases: lockheed })

  it('keeps them as attributes and serves them on the Groups (TAXII 2.1) and on the exported indicator', async () => {
    const result = await run(file('phased.jsonl', [pattern, malware, phased]), 'phases')
    expect(result.errorCount).toBe(0)
    const attributes = await t.store.db
      .selectFrom('attribute')
      .innerJoin('attribute_type', 'attribute_type.id', 'attribute.type_id')
      .innerJoin('intel_group', 'intel_group.id', 'attribute.item_id')
      .select(['intel_group.name', 'attribute_type.name as type', 'attribute.value'])
      .where('attribute.item_kind', '=', 'group')
      .where('intel_group.owner_id', '=', owners.get('phases')!)
      .orderBy('attribute.id')
      .execute()
    expect(attributes.map((a) => `${a.name}: ${a.type}: ${a.value}`)).toEqual([
      'Phased Pattern: Additional Analysis and Context: kill_chain_phase: mitre-attack: initial-access',
      'Phased Malware: Attack Phase: Delivery',
      'Phased Malware: Additional Analysis and Context: kill_chain_phase: mitre-attack: initial-access',
    ])
    const all = await served('phases')
    expect(all.find((o) => o.id === pattern.id)!.kill_chain_phases).toEqual(mitre)
    expect(all.find((o) => o.id === malware.id)!.kill_chain_phases).toEqual([...lockheed, ...mitre])

    const output = join(dir, 'phased-export.json')
    await exportCommand(t.store, t.services, {
      owner: ownerFor('phases'),
      output,
      format: 'stix',
      userName: writer.userName,
    })
    const exported = JSON.parse(readFileSync(output, 'utf8')).objects as StixObject[]
    const ind = exported.find((o) => o.id === phased.id)!
    expect(ind.kill_chain_phases).toEqual(lockheed)
    if (!noSchemas) expect(stixSchemaErrors(ind)).toEqual([])
    // Imported again: the same attributes, not added twice.
    const countAttributes = async () =>
      Number(
        (
          await t.store.db
            .selectFrom('attribute')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('owner_id', '=', owners.get('phases')!)
            .executeTakeFirstOrThrow()
        ).n,
      )
    const before = await countAttributes()
    await run(file('phased.jsonl', [pattern, malware, phased]), 'phases')
    expect(await countAttributes()).toBe(before)
  })
})

describe.skipIf(!!missing)('vendor files imported twice', () => {
  it.each(REAL_FILES)(
    '%s: the second import changes nothing, and every relationship comes back as the source has it',
    async (path) => {
      const first = await run(path, 'real')
      const again = await run(path, 'real')
      const nothing = { created: 0, updated: 0 }
      for (const kind of ['indicators', 'groups', 'associations', 'observations'] as const)
        expect(again[kind], kind).toMatchObject(nothing)
      expect(again.errorCount).toBe(first.errorCount)
      // Each source relationship whose ends were both imported (each indicator making one Indicator) is served as it is.
      const source = JSON.parse(readFileSync(path, 'utf8')).objects as StixObject[]
      const servedObjects = await served('real')
      const ids = new Set(servedObjects.map((o) => o.id))
      const expected = triples(
        source.filter(
          (o) => o.type === 'relationship' && ids.has(String(o.source_ref)) && ids.has(String(o.target_ref)),
        ),
      )
      expect(expected.length).toBeGreaterThan(0)
      const servedTriples = new Set(triples(servedObjects))
      expect(expected.filter((r) => !servedTriples.has(r))).toEqual([])
    },
  )
})

/**
 * `bulwark import` of MISP events as ESET publishes them (../shared/datasets/eset+malware-ioc: the
 * `{"response": [{"Event": …}]}` and bare `{"Event": …}` shapes, one event of objects only) and of
 * a MISP feed directory built from them, run in process over a test app's database: the
 * Indicators per type, the event's Group and its associations, the dates, tags and to_ids kept,
 * a second import changing nothing, a newer timestamp updating, and files that are not whole.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestAccount, type TestApp, createTestApp } from '../../test/harness.js'
import { DATASETS_DIR, datasetsUnavailable } from '../../test/datasets.js'
import { importCommand } from './import.js'

const missing = datasetsUnavailable()
if (missing) console.warn(missing)

const ESET = join(DATASETS_DIR, 'eset+malware-ioc')

/**
 * Per file (README of the data sets: its attributes and objects): the Indicators per type it makes
 * (one per distinct value; `filename|md5`, `filename|sha1` and `filename|sha256` of one file are
 * three attributes, so three Files), how many come in active (`to_ids: true`), and the attributes
 * of types no Indicator holds, reported in one refusal of the event with their counts.
 */
const FILES: {
  file: string
  uuid: string
  info: string
  elements: number
  types: Record<string, number>
  active: number
  skipped: string
}[] = [
  {
    file: 'sednit/2017-05-09_Trump_Attack_on_Syria_IoCs.json',
    uuid: '5908888b-0154-4a69-b0b2-72090a016219',
    info: "Trump's Attack on Syria",
    elements: 23,
    types: { File: 15, Mutex: 1, 'Registry Key': 1 },
    active: 0,
    skipped: '6 attributes of types no Indicator holds were not imported: text 6',
  },
  {
    file: 'sednit/2018-11-20_Zebrocy.json',
    uuid: '5be1e65d-8198-497b-bdf5-5ec20a016219',
    info: 'Zebrocy blogpost November 2018',
    elements: 32,
    types: { EmailAddress: 11, File: 15, URL: 2 },
    active: 0,
    skipped: '4 attributes of types no Indicator holds were not imported: text 4',
  },
  {
    file: 'oceanlotus/oceanlotus.misp.event.json',
    uuid: '5a610659-d718-4a1f-b020-04d80a016219',
    info: 'OceanLotus: rastls',
    elements: 111,
    types: { Address: 25, File: 5, Host: 62, 'Registry Key': 3 },
    active: 0,
    skipped: '15 attributes of types no Indicator holds were not imported: filename 8, text 7',
  },
  {
    file: 'kryptocibule/misp-kryptocibule.json',
    uuid: '59dbf0f6-3203-413a-9fbc-7960b592e4cf',
    info: 'KryptoCibule',
    elements: 191,
    types: { Address: 1, File: 32, Host: 67, 'User Agent': 1 },
    active: 0,
    skipped:
      '90 attributes of types no Indicator holds were not imported: other 53, filename 22, btc 9, windows-scheduled-task 2, text 1, dash 1, xmr 1, link (a reference, not an indicator) 1',
  },
  {
    // Objects only: 79 objects holding 100 attributes; each file object's three hashes are one File.
    file: 'swc-candiru/swc-candiru_misp.json',
    uuid: '86375dc4-8c95-469a-aaf2-e20b0dfefb41',
    info: 'Strategic web compromised in the Middle East with a pinch of Candiru',
    elements: 79,
    types: { Address: 29, File: 3, Host: 41, URL: 3 },
    active: 6,
    skipped: '15 attributes of types no Indicator holds were not imported: text 12, port 3',
  },
  {
    file: 'sshdoor/misp-events/mimban.json',
    uuid: '5bbe6052-8768-4f09-a6de-7ad70a016219',
    info: 'SSHDoor : Mimban',
    elements: 11,
    types: { Address: 1, File: 7, Host: 1 },
    active: 0,
    skipped: '2 attributes of types no Indicator holds were not imported: text 2',
  },
  {
    file: 'sshdoor/misp-events/polismassa.json',
    uuid: '5bbe7622-b500-416b-a529-7ec50a016219',
    info: 'SSHDoor : Polis Massa',
    elements: 29,
    types: { EmailAddress: 4, File: 11 },
    active: 0,
    skipped: '14 attributes of types no Indicator holds were not imported: text 8, filename 6',
  },
  {
    file: 'sshdoor/misp-events/coruscant.json',
    uuid: '5bbe58cb-eb4c-48ea-9cbc-79220a016219',
    info: 'SSHDoor : Coruscant',
    elements: 4,
    types: { Address: 1, File: 1, Host: 1 },
    active: 0,
    skipped: '2 attributes of types no Indicator holds were not imported: text 1, filename 1',
  },
]

let t: TestApp
let writer: TestAccount
const owners = new Map<string, number>()
let dir: string
const OWNER_NAMES = [...FILES.map((f) => f.file), 'again', 'newer', 'feed', 'labels', 'adversarial', 'long']
const ownerFor = (name: string) => `MISP ${name}`.slice(0, 100)

beforeAll(async () => {
  t = await createTestApp()
  dir = mkdtempSync(join(tmpdir(), 'bulwark-misp-'))
  for (const name of OWNER_NAMES) owners.set(name, await t.createOwner(ownerFor(name), 'Source'))
  writer = await t.createAccount({
    role: 'Standard User',
    memberships: Object.fromEntries(OWNER_NAMES.map((n) => [ownerFor(n), 'Editor'])),
  })
}, 120_000)
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true })
  await t?.close()
})

const IMPORT_TIMEOUT = 120_000

const run = (file: string, owner: string) =>
  importCommand(t.store, t.services, { file, owner: ownerFor(owner), userName: writer.userName })

const indicatorsOf = (owner: string) =>
  t.store.db.selectFrom('indicator').selectAll().where('owner_id', '=', owners.get(owner)!).orderBy('id').execute()
const groupsOf = (owner: string) =>
  t.store.db.selectFrom('intel_group').selectAll().where('owner_id', '=', owners.get(owner)!).orderBy('id').execute()

async function associatedIndicators(groupId: number) {
  const rows = await t.store.db
    .selectFrom('association')
    .select('to_id')
    .where('from_kind', '=', 'group')
    .where('from_id', '=', groupId)
    .where('to_kind', '=', 'indicator')
    .execute()
  return rows.length
}

async function metadataOf(kind: 'indicator' | 'group', id: number) {
  const tags = await t.store.db
    .selectFrom('item_tag')
    .innerJoin('tag', 'tag.id', 'item_tag.tag_id')
    .select('tag.name')
    .where('item_kind', '=', kind)
    .where('item_id', '=', id)
    .orderBy('tag.name')
    .execute()
  const labels = await t.store.db
    .selectFrom('item_security_label')
    .innerJoin('security_label', 'security_label.id', 'item_security_label.label_id')
    .select('security_label.name')
    .where('item_kind', '=', kind)
    .where('item_id', '=', id)
    .execute()
  const attributes = await t.store.db
    .selectFrom('attribute')
    .innerJoin('attribute_type', 'attribute_type.id', 'attribute.type_id')
    .select(['attribute_type.name as type', 'attribute.value'])
    .where('attribute.item_kind', '=', kind)
    .where('attribute.item_id', '=', id)
    .orderBy('attribute.id')
    .execute()
  return {
    tags: tags.map((r) => r.name),
    labels: labels.map((r) => r.name),
    attributes: attributes.map((a) => `${a.type}: ${a.value}`),
  }
}

const countTypes = (rows: { type: string }[]) =>
  Object.fromEntries(
    [...new Set(rows.map((r) => r.type))].sort().map((type) => [type, rows.filter((r) => r.type === type).length]),
  )

describe.skipIf(!!missing)('ESET MISP events', () => {
  it.each(FILES)(
    '$file: its event is one Event Group associated with its Indicators, per type as published',
    async ({ file, uuid, info, elements, types, active, skipped }) => {
      const result = await run(join(ESET, file), file)
      expect(result.format).toBe('misp')
      // Each attribute or object is an element, the event's Group one more, its report of skipped types one more.
      expect(result.items).toBe(elements + 2)
      const where = file.startsWith('sshdoor') ? 'Event' : 'response[0].Event'
      expect(result.errors).toEqual([{ item: where, message: skipped }])
      const indicators = await indicatorsOf(file)
      expect(countTypes(indicators)).toEqual(types)
      expect(indicators.filter((i) => i.active).length).toBe(active)
      const [group, ...others] = await groupsOf(file)
      expect(others).toEqual([])
      expect(group).toMatchObject({ type: 'Event', xid: uuid, name: info })
      expect(await associatedIndicators(group.id)).toBe(indicators.length)
      expect(result.errorCount).toBe(1)
      // The summary per kind: one Group and each distinct Indicator created (a value named twice is unchanged the second time).
      expect(result.groups).toMatchObject({ created: 1, refused: 0 })
      expect(result.indicators).toMatchObject({ created: indicators.length, refused: 0 })
    },
    IMPORT_TIMEOUT,
  )

  it('keeps the event date and timestamp on the Group, its tags; the attribute uuid, timestamp and comment on the Indicator', async () => {
    const owner = 'sednit/2017-05-09_Trump_Attack_on_Syria_IoCs.json'
    const [group] = await groupsOf(owner)
    expect(group).toMatchObject({
      event_date: '2017-04-18T00:00:00.000Z',
      external_date_added: '2017-04-18T00:00:00.000Z',
      external_last_modified: '2017-05-09T14:33:56.000Z',
    })
    expect(await metadataOf('group', group.id)).toEqual({
      tags: ['Sednit', 'misp-galaxy:threat-actor="Sofacy"'],
      labels: [],
      attributes: ['Source: ESET', 'Additional Analysis and Context: MISP threat level High, analysis Ongoing'],
    })
    // `md5` 33fc441d…, commented "LPE", to_ids false.
    const [lpe] = (await indicatorsOf(owner)).filter((i) => i.value1 === '33FC441D4DECB897440CBC7BDE869484')
    expect(lpe).toMatchObject({
      type: 'File',
      active: expect.anything(),
      description: 'LPE',
      source: 'ESET',
      external_date_added: '2017-04-18T00:00:00.000Z',
      external_last_modified: expect.stringMatching(/^2017-05-/),
    })
    expect(Boolean(lpe.active)).toBe(false)
    expect((await metadataOf('indicator', lpe.id)).attributes).toEqual([
      expect.stringMatching(/^External ID: [0-9a-f-]{36}$/),
    ])
  })

  it("keeps a file object's name as the File's occurrence, its first seen, and to_ids as active", async () => {
    const owner = 'swc-candiru/swc-candiru_misp.json'
    const [file] = (await indicatorsOf(owner)).filter((i) => i.value1 === '8BC450E392F25407D931CAAF212BF562')
    expect(file).toMatchObject({
      summary:
        '8BC450E392F25407D931CAAF212BF562 : 4F824294BBECA4F4ABEEDE8648695EE1D815AD53 : 8D486F0C6A0D5089E96F08622047337E387FAF63AE858379292A764811E55625',
      description: 'Document with VBA macro',
      first_seen: '2021-01-24T15:43:30.000Z',
    })
    expect(Boolean(file.active)).toBe(true)
    const occurrences = await t.store.db
      .selectFrom('file_occurrence')
      .select('file_name')
      .where('indicator_id', '=', file.id)
      .execute()
    expect(occurrences.map((o) => o.file_name)).toEqual(['المرسوم التشريعي رقم 24 للعام 2021.doc'])
  })

  it(
    'imports the same file again without changing anything; a newer timestamp updates in place',
    async () => {
      const source = join(ESET, 'sshdoor/misp-events/polismassa.json')
      await run(source, 'again')
      const before = await indicatorsOf('again')
      const [groupBefore] = await groupsOf('again')
      const again = await run(source, 'again')
      expect(again.errorCount).toBe(1)
      // Every item a version held already: the event's Group, its 15 Indicators.
      expect(again).toMatchObject({
        groups: { created: 0, updated: 0, unchanged: 1 },
        indicators: { created: 0, updated: 0, unchanged: 15 },
      })
      expect(await indicatorsOf('again')).toEqual(before)
      expect(await groupsOf('again')).toEqual([groupBefore])
      const attributes = await t.store.db.selectFrom('attribute').select('id').execute()
      await run(source, 'again')
      expect((await t.store.db.selectFrom('attribute').select('id').execute()).length).toBe(attributes.length)

      // A newer version: one attribute's comment changed and its timestamp later, the event's too.
      const doc = JSON.parse(readFileSync(source, 'utf8')) as { Event: Record<string, unknown> }
      const attrs = doc.Event.Attribute as Record<string, unknown>[]
      const changed = attrs.find((a) => a.type === 'email-dst')!
      changed.comment = 'seen again in 2019'
      changed.timestamp = '1560000000'
      changed.to_ids = true
      doc.Event.timestamp = '1560000000'
      doc.Event.info = 'SSHDoor : Polis Massa (updated)'
      const newer = join(dir, 'polismassa-newer.json')
      writeFileSync(newer, JSON.stringify(doc))
      await run(newer, 'again')
      const after = await indicatorsOf('again')
      expect(after.length).toBe(before.length)
      const updated = after.find((i) => i.summary === String(changed.value))!
      expect(updated).toMatchObject({
        description: 'seen again in 2019',
        external_last_modified: '2019-06-08T13:20:00.000Z',
      })
      expect(Boolean(updated.active)).toBe(true)
      // The others are versions held already: untouched.
      expect(after.filter((i) => i.last_modified !== before.find((b) => b.id === i.id)!.last_modified)).toEqual([
        updated,
      ])
      const [group] = await groupsOf('again')
      expect(group).toMatchObject({ id: groupBefore.id, name: 'SSHDoor : Polis Massa (updated)' })
    },
    IMPORT_TIMEOUT,
  )
})

describe.skipIf(!!missing)('a MISP feed directory', () => {
  it(
    'reads manifest.json and each <uuid>.json in its order; a missing or broken event file is that event refused',
    async () => {
      const feed = join(dir, 'feed')
      const { mkdirSync } = await import('node:fs')
      mkdirSync(feed)
      const manifest: Record<string, unknown> = {}
      for (const { file } of [FILES[0], FILES[5], FILES[4]]) {
        const raw = JSON.parse(readFileSync(join(ESET, file), 'utf8')) as {
          Event?: Record<string, unknown>
          response?: { Event: Record<string, unknown> }[]
        }
        const event = raw.Event ?? raw.response![0].Event
        const uuid = String(event.uuid)
        writeFileSync(join(feed, `${uuid}.json`), JSON.stringify({ Event: event }))
        // What MISP's feed export says of each event in its manifest.
        manifest[uuid] = {
          Orgc: event.Orgc,
          Tag: [...((event.Tag as unknown[]) ?? []), { name: 'tlp:green', colour: '#33FF00' }],
          info: event.info,
          date: event.date,
          analysis: Number(event.analysis),
          threat_level_id: Number(event.threat_level_id),
          timestamp: Number(event.timestamp),
        }
      }
      manifest['00000000-0000-4000-8000-00000000feed'] = { info: 'listed, never written', date: '2024-01-01' }
      const broken = 'aaaaaaaa-0000-4000-8000-000000000001'
      manifest[broken] = { info: 'cut short', date: '2024-01-01' }
      writeFileSync(
        join(feed, `${broken}.json`),
        '{"Event": {"uuid": "aaaaaaaa-0000-4000-8000-000000000001", "info": "cut short", "date": "2024-01-01", "Attribute": [{"type": "domain", "value": "cut.example", "uuid": "aaaaaaaa-0000-4000-8000-0000000000a1", "to_ids": true}, {"type": "dom',
      )
      writeFileSync(join(feed, 'manifest.json'), JSON.stringify(manifest))

      // A directory without a manifest is no format's.
      const empty = join(dir, 'empty')
      mkdirSync(empty)
      await expect(run(empty, 'feed')).rejects.toThrow(/is a directory that no format reads/)

      const result = await run(feed, 'feed')
      expect(result.format).toBe('misp')
      expect(result.errors).toEqual([
        { item: '5908888b-0154-4a69-b0b2-72090a016219.json Event', message: FILES[0].skipped },
        { item: '5bbe6052-8768-4f09-a6de-7ad70a016219.json Event', message: FILES[5].skipped },
        { item: '86375dc4-8c95-469a-aaf2-e20b0dfefb41.json Event', message: FILES[4].skipped },
        {
          item: '00000000-0000-4000-8000-00000000feed.json',
          message: expect.stringMatching(/^cannot be read: .*ENOENT/),
        },
        { item: 'aaaaaaaa-0000-4000-8000-000000000001.json', message: 'The file ends before its JSON document does' },
      ])
      const groups = await groupsOf('feed')
      expect(groups.map((g) => g.name)).toEqual([FILES[0].info, FILES[5].info, FILES[4].info, 'cut short'])
      const indicators = await indicatorsOf('feed')
      expect(indicators.length).toBe(17 + 9 + 76 + 1)
      // The manifest's tlp:green (given before each event's attributes) labels the event and its Indicators.
      expect((await metadataOf('group', groups[0].id)).labels).toEqual(['TLP:GREEN'])
      expect((await metadataOf('indicator', indicators[0].id)).labels).toEqual(['TLP:GREEN'])
      expect(await associatedIndicators(groups[3].id)).toBe(1)
    },
    IMPORT_TIMEOUT,
  )
})

describe('MISP files written to break importers', () => {
  const uuid = 'bbbbbbbb-0000-4000-8000-000000000001'
  const xss = '<script>alert(document.cookie)</script><img src=x onerror=alert(1)>'
  it(
    'keeps markup in info and comment verbatim, reports an unknown type and a huge value, and imports the rest',
    async () => {
      const file = join(dir, 'adversarial.json')
      writeFileSync(
        file,
        JSON.stringify({
          Event: {
            uuid,
            info: `Event ${xss}`,
            date: '2024-02-03',
            timestamp: '1706918400',
            Attribute: [
              { type: 'domain', value: 'xss.example', uuid: `${uuid.slice(0, -1)}2`, comment: xss, to_ids: true },
              { type: 'x-made-up-type', value: 'anything', uuid: `${uuid.slice(0, -1)}3` },
              { type: 'url', value: `http://huge.example/${'a'.repeat(1_200_000)}`, uuid: `${uuid.slice(0, -1)}4` },
              { type: 'ip-dst', value: '198.51.100.23', uuid: `${uuid.slice(0, -1)}5`, to_ids: '1' },
            ],
            Tag: [{ name: 'tlp:red' }, { name: xss }],
          },
        }),
      )
      const result = await run(file, 'adversarial')
      expect(result.errors).toEqual([
        { item: 'Event.Attribute[2]', message: 'longer than 1000000 characters' },
        {
          item: 'Event',
          message: '1 attributes of types no Indicator holds were not imported: x-made-up-type 1',
        },
      ])
      const [group] = await groupsOf('adversarial')
      expect(group.name).toBe(`Event ${xss}`)
      expect(await metadataOf('group', group.id)).toMatchObject({ tags: [xss], labels: ['TLP:RED'] })
      const indicators = await indicatorsOf('adversarial')
      expect(indicators.map((i) => [i.summary, i.description, Boolean(i.active)])).toEqual([
        ['xss.example', xss, true],
        ['198.51.100.23', null, true],
      ])
      expect((await metadataOf('indicator', indicators[0].id)).labels).toEqual(['TLP:RED'])
    },
    IMPORT_TIMEOUT,
  )

  it(
    'keeps the attributes of an event file cut short, and its Group with what was read',
    async () => {
      const file = join(dir, 'truncated.json')
      const text = readFileSync(join(ESET, 'sshdoor/misp-events/mimban.json'), 'utf8')
      writeFileSync(file, text.slice(0, text.indexOf('"Object"')))
      const result = await run(file, 'labels')
      expect(result.errors.at(-1)).toEqual({ item: '(file)', message: 'The file ends before its JSON document does' })
      expect((await indicatorsOf('labels')).length).toBe(9)
      expect((await groupsOf('labels')).map((g) => g.name)).toEqual(['SSHDoor : Mimban'])
    },
    IMPORT_TIMEOUT,
  )

  it(
    'cuts jobs by size too: 3,000 attributes with 1,000-character comments (3 MB of items) all come in',
    async () => {
      const file = join(dir, 'long-comments.json')
      const comment = 'x'.repeat(1000)
      writeFileSync(
        file,
        JSON.stringify({
          Event: {
            uuid: 'cccccccc-0000-4000-8000-000000000001',
            info: 'long comments',
            date: '2024-02-03',
            Attribute: Array.from({ length: 3000 }, (_, i) => ({
              type: 'domain',
              value: `h${i}.long.example`,
              comment,
              uuid: `cccccccc-0000-4000-8000-${String(i).padStart(12, '0')}`,
            })),
          },
        }),
      )
      const result = await run(file, 'long')
      expect(result).toMatchObject({ items: 3001, successCount: 3001, errorCount: 0 })
      // 3 MB of items: more than one job's 2 MB (batchMaxUploadBytes).
      expect(result.jobs).toBeGreaterThanOrEqual(2)
      expect((await indicatorsOf('long')).length).toBe(3000)
    },
    IMPORT_TIMEOUT,
  )
})

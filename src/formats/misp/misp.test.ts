/**
 * Reading MISP events as published, without a database: every shape an event comes in (the
 * `Event` wrapper, the bare event, a search response, a list), told from the content; each
 * attribute type's Indicators; the event's tags and TLP (written by MISP after the attributes);
 * a document cut short keeping what came before; and the walk of a document as it streams.
 */
import { describe, expect, it } from 'vitest'
import type { ReadEvent } from '../format.js'
import { detectFormat } from '../index.js'
import { type WalkEvent, walkJson } from '../json-walk.js'
import { mispEvents, readMispDocument } from './misp.js'

async function* chunks(text: string, size: number) {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size)
}

async function read(text: string, size = 7): Promise<ReadEvent[]> {
  const out: ReadEvent[] = []
  for await (const e of mispEvents.reader!.read(chunks(text, size), { name: 'in.json' })) out.push(e)
  return out
}

const UUID = '5bbe6052-8768-4f09-a6de-7ad70a016219'

const attribute = (type: string, value: string, extra: Record<string, unknown> = {}) => ({
  type,
  value,
  to_ids: false,
  uuid: `00000000-0000-4000-8000-${String(type.length).padStart(12, '0')}`,
  timestamp: '1539201259',
  comment: '',
  ...extra,
})

/** An event in MISP's own member order: its tags after its attributes and objects. */
const event = (attributes: unknown[], extra: Record<string, unknown> = {}, objects: unknown[] = []) => ({
  id: '285',
  date: '2018-10-10',
  info: 'SSHDoor : Mimban',
  uuid: UUID,
  timestamp: '1539269931',
  threat_level_id: '4',
  analysis: '0',
  Orgc: { id: '2', name: 'ESET' },
  Attribute: attributes,
  Object: objects,
  Tag: [{ name: 'tlp:amber' }, { name: 'SSHDoor' }],
  ...extra,
})

const indicators = (events: ReadEvent[]) =>
  events.flatMap((e) => (e.kind === 'element' ? e.indicators.map((i) => i.indicator as Record<string, unknown>) : []))
const summaries = (events: ReadEvent[]) =>
  events.flatMap((e) =>
    e.kind === 'element' ? e.indicators.map((i) => `${i.where} ${(i.indicator as { summary: string }).summary}`) : [],
  )
const groups = (events: ReadEvent[]) =>
  events.flatMap((e) => (e.kind === 'element' ? (e.groups ?? []).map((g) => g.item as Record<string, unknown>) : []))
const errors = (events: ReadEvent[]) =>
  events.flatMap((e) => (e.kind === 'input' ? [`(input) ${e.error}`] : e.error ? [`${e.where} ${e.error}`] : []))

describe('MISP event shapes', () => {
  const one = [attribute('domain', 'evil.example')]
  it.each([
    ['{"Event": …}', { Event: event(one) }, 'Event.Attribute[0]'],
    ['the bare event', event(one), 'Event.Attribute[0]'],
    ['a search response', { response: [{ Event: event(one) }] }, 'response[0].Event.Attribute[0]'],
    ['a list of wrapped events', [{ Event: event(one) }], '[0].Event.Attribute[0]'],
    ['a list of bare events', [event(one)], '[0].Attribute[0]'],
  ])('%s: the event is one Group and its attribute an Indicator, named by its place', async (_shape, doc, where) => {
    const text = JSON.stringify(doc, null, 1)
    expect(detectFormat('in.json', () => text.slice(0, 4096)).name).toBe('misp')
    const events = await read(text)
    expect(summaries(events)).toEqual([`${where} evil.example`])
    expect(groups(events).map((g) => [g.type, g.xid, g.name])).toEqual([['Event', UUID, 'SSHDoor : Mimban']])
    expect(errors(events)).toEqual([])
  })

  it('reads every event of a list, each its own Group; the Group comes before its Indicators', async () => {
    const second = { ...event([attribute('ip-dst', '198.51.100.7')]), uuid: '5bbe58cb-eb4c-48ea-9cbc-79220a016219' }
    const events = await read(JSON.stringify({ response: [{ Event: event(one) }, { Event: second }] }))
    expect(
      events.map((e) => (e.kind === 'element' ? `${e.where} ${e.groups ? 'group' : 'indicators'}` : e.kind)),
    ).toEqual([
      'response[0].Event group',
      'response[0].Event.Attribute[0] indicators',
      'response[1].Event group',
      'response[1].Event.Attribute[0] indicators',
    ])
  })

  it('refuses a JSON document with no MISP event in it, and is not taken for a STIX bundle or a batch file', async () => {
    await expect(read(JSON.stringify({ type: 'bundle', objects: [] }))).rejects.toThrow(/holds no MISP event/)
    expect(detectFormat('b.json', () => '{"type": "bundle", "id": "bundle--1", "objects": []}').name).toBe('stix')
    expect(detectFormat('b.json', () => '{"indicator": [{"type": "Host", "summary": "a.example"}]}').name).toBe('batch')
  })
})

describe('MISP attributes', () => {
  it('maps each attribute type to its Indicators; composite types give both values or the value with its port', async () => {
    const events = await read(
      JSON.stringify({
        Event: event([
          attribute('ip-src', '203.0.113.9'),
          attribute('ip-dst|port', '69.64.47.10|1194'),
          attribute('domain|ip', 'patf.site90.net|153.92.0.100'),
          attribute('hostname', 'Www.Evil.Example'),
          attribute('url', 'http://45.124.132.127/company-device-support/values/correlate-sec.php'),
          attribute('email-src', 'karakos3232@seznam.cz'),
          attribute('md5', '33fc441d4decb897440cbc7bde869484'),
          attribute('filename|sha256', 'a.exe|fe7526364eca8b5e9cb55f7a5b8ae451fa0906122effb95fc2d50131281c9ac8'),
          attribute('AS', '174'),
          attribute('mutex', 'flPGdvyhPykxGvhDOAZnU'),
          attribute('regkey|value', 'HKCU\\Software\\Microsoft\\Office test\\Special\\Perf|%TEMP%\\apisecconnect.dll'),
          attribute('user-agent', 'Mozilla/5.0 (Windows NT 6.1)'),
          attribute('ip-dst', '10.1.0.0/16'),
          attribute('btc', 'qph3s8p27pfg2lxgpzqmdel25tsmlryatyhxwzx3x5'),
          attribute('text', 'Linux/SSHDoor.M'),
          attribute('text', 'Linux/SSHDoor.P'),
        ]),
      }),
    )
    expect(indicators(events).map((i) => `${String(i.type)} ${String(i.summary)}`)).toEqual([
      'Address 203.0.113.9',
      'Address 69.64.47.10',
      'Host patf.site90.net',
      'Address 153.92.0.100',
      'Host www.evil.example',
      'URL http://45.124.132.127/company-device-support/values/correlate-sec.php',
      'EmailAddress karakos3232@seznam.cz',
      'File 33FC441D4DECB897440CBC7BDE869484',
      'File FE7526364ECA8B5E9CB55F7A5B8AE451FA0906122EFFB95FC2D50131281C9AC8',
      'ASN ASN174',
      'Mutex flPGdvyhPykxGvhDOAZnU',
      'Registry Key HKCU\\Software\\Microsoft\\Office test\\Special\\Perf',
      'User Agent Mozilla/5.0 (Windows NT 6.1)',
      'CIDR 10.1.0.0/16',
    ])
    const [, withPort, , , , , , , named, , , regkey] = indicators(events)
    expect(withPort.description).toBe('port 1194')
    expect(named.fileOccurrence).toEqual([{ fileName: 'a.exe' }])
    expect(regkey.attribute).toEqual([
      { type: 'External ID', value: '00000000-0000-4000-8000-000000000012' },
      { type: 'Additional Analysis and Context', value: 'registry value data: %TEMP%\\apisecconnect.dll' },
    ])
    expect(errors(events)).toEqual(['Event 3 attributes of types no Indicator holds were not imported: text 2, btc 1'])
  })

  it('keeps the uuid, timestamp, first and last seen, comment and to_ids; the event TLP, given after the attributes, labels them', async () => {
    const events = await read(
      JSON.stringify({
        Event: event([
          attribute('domain', 'evil.example', {
            to_ids: true,
            comment: 'C&C <b>server</b>',
            first_seen: '2021-01-24T15:43:30.000000+00:00',
            last_seen: '2021-02-01T00:00:00.000000+00:00',
            Tag: [{ name: 'tlp:green' }, { name: 'misp-galaxy:threat-actor="Sofacy"' }],
          }),
          attribute('domain', 'quiet.example'),
        ]),
      }),
    )
    const [loud, quiet] = indicators(events)
    expect(loud).toEqual({
      type: 'Host',
      summary: 'evil.example',
      active: true,
      description: 'C&C <b>server</b>',
      source: 'ESET',
      externalDateAdded: '2018-10-10T00:00:00.000Z',
      externalLastModified: '2018-10-10T19:54:19.000Z',
      firstSeen: '2021-01-24T15:43:30.000Z',
      lastSeen: '2021-02-01T00:00:00.000Z',
      attribute: [{ type: 'External ID', value: '00000000-0000-4000-8000-000000000006' }],
      tag: [{ name: 'misp-galaxy:threat-actor="Sofacy"' }],
      securityLabel: [{ name: 'TLP:GREEN', color: '33FF00', description: 'Traffic Light Protocol GREEN' }],
      associatedGroups: [{ groupXid: UUID }],
    })
    expect(quiet.active).toBe(false)
    expect(quiet.securityLabel).toEqual([
      { name: 'TLP:AMBER', color: 'FFC000', description: 'Traffic Light Protocol AMBER' },
    ])
    expect(groups(events)).toEqual([
      {
        type: 'Event',
        xid: UUID,
        name: 'SSHDoor : Mimban',
        eventDate: '2018-10-10T00:00:00.000Z',
        externalDateAdded: '2018-10-10T00:00:00.000Z',
        externalLastModified: '2018-10-11T14:58:51.000Z',
        attribute: [
          { type: 'Source', value: 'ESET' },
          { type: 'Additional Analysis and Context', value: 'MISP threat level Undefined, analysis Initial' },
        ],
        tag: [{ name: 'SSHDoor' }],
        securityLabel: [{ name: 'TLP:AMBER', color: 'FFC000', description: 'Traffic Light Protocol AMBER' }],
      },
    ])
  })

  it("makes one File of a file object's hashes, keeping its other hashes as attributes; a SHA-512 alone is refused", async () => {
    const file = {
      name: 'file',
      uuid: 'b25c6d51-ccfe-4c8c-a8ca-39a30ebcd5ac',
      timestamp: '1637024870',
      comment: 'Document with VBA macro',
      first_seen: '2021-01-24T15:43:30.000000+00:00',
      Attribute: [
        attribute('filename', 'المرسوم.doc', { object_relation: 'filename' }),
        attribute('md5', '8bc450e392f25407d931caaf212bf562', { to_ids: true, timestamp: '1637024157' }),
        attribute('sha1', '4f824294bbeca4f4abeede8648695ee1d815ad53', { to_ids: true, timestamp: '1637024157' }),
        attribute('sha512', 'ab'.repeat(64), { timestamp: '1637024158' }),
        attribute('size-in-bytes', '1024'),
      ],
    }
    const domainIp = { name: 'domain-ip', Attribute: [attribute('domain', 'cuturl.app'), attribute('port', '443')] }
    const events = await read(
      JSON.stringify({ Event: event([attribute('sha512', 'cd'.repeat(64))], {}, [file, domainIp]) }),
    )
    expect(summaries(events)).toEqual([
      'Event.Object[0] 8BC450E392F25407D931CAAF212BF562 : 4F824294BBECA4F4ABEEDE8648695EE1D815AD53',
      'Event.Object[1].Attribute[0] cuturl.app',
    ])
    const [merged] = indicators(events)
    expect(merged).toMatchObject({
      active: true,
      description: 'Document with VBA macro',
      externalLastModified: '2021-11-16T00:55:57.000Z',
      firstSeen: '2021-01-24T15:43:30.000Z',
      fileOccurrence: [{ fileName: 'المرسوم.doc' }],
      attribute: [
        { type: 'External ID', value: 'b25c6d51-ccfe-4c8c-a8ca-39a30ebcd5ac' },
        { type: 'Additional Analysis and Context', value: `sha512: ${'ab'.repeat(64)}` },
      ],
    })
    expect(errors(events)).toEqual([
      'Event.Attribute[0] attribute 00000000-0000-4000-8000-000000000006: a sha512 hash alone is no File: Bulwark finds Files by MD5, SHA-1 or SHA-256 (a file object that gives one of them keeps the sha512 as an attribute)',
      'Event 2 attributes of types no Indicator holds were not imported: size-in-bytes 1, port 1',
    ])
  })

  it('refuses a value its type does not hold, naming the attribute, and reads on', async () => {
    const events = await read(
      JSON.stringify(
        event([attribute('ip-dst', 'not-an-ip'), attribute('md5', 'xyz'), attribute('domain', 'ok.example')]),
      ),
    )
    expect(summaries(events)).toEqual(['Event.Attribute[2] ok.example'])
    expect(errors(events)).toEqual([
      "Event.Attribute[0] attribute 00000000-0000-4000-8000-000000000006: 'not-an-ip' is not an Address (MISP type ip-dst)",
      "Event.Attribute[1] attribute 00000000-0000-4000-8000-000000000003: 'xyz' is not a valid MD5 hash",
    ])
  })
})

describe("an event's attributes held until its tags are known", () => {
  const attributes = [1, 2, 3, 4].map((n) => attribute('domain', `h${n}.example`))
  const text = JSON.stringify({ Event: event(attributes) })
  const readHolding = async (holdChars: number) => {
    const out: ReadEvent[] = []
    for await (const e of readMispDocument(chunks(text, 64), { name: 'in.json' }, holdChars)) out.push(e)
    return out
  }
  const labels = (events: ReadEvent[]) =>
    indicators(events).map((i) => (i.securityLabel as { name: string }[] | undefined)?.[0]?.name ?? 'none')

  it('gives them after the Group, each with the TLP the event states after them', async () => {
    const events = await readHolding(1_000_000)
    expect(events[0]).toMatchObject({ where: 'Event', groups: [{ item: { xid: UUID } }] })
    expect(labels(events)).toEqual(['TLP:AMBER', 'TLP:AMBER', 'TLP:AMBER', 'TLP:AMBER'])
  })

  it('past the hold, goes on without the TLP and says so when it comes', async () => {
    const one = JSON.stringify(attributes[0]).length
    const events = await readHolding(one * 2)
    // The first three were held past the limit and given then; the fourth streamed; none could wait for the tags.
    expect(labels(events)).toEqual(['none', 'none', 'none', 'none'])
    expect(errors(events)).toEqual([
      `Event the event's TLP tag came after ${one * 2} characters of its attributes: those read before it do not carry it`,
    ])
    // The Group, given before its tags, is given again whole at the event's end, as a version a millisecond newer.
    expect(groups(events).map((g) => [g.externalLastModified, g.securityLabel && 'TLP', g.tag])).toEqual([
      ['2018-10-11T14:58:50.999Z', undefined, undefined],
      ['2018-10-11T14:58:51.000Z', 'TLP', [{ name: 'SSHDoor' }]],
    ])
  })
})

describe('MISP documents that are not whole', () => {
  it('keeps what came before a cut: the attributes read, and the Group with what was known of it', async () => {
    const text = JSON.stringify({
      Event: event([
        attribute('domain', 'a.example'),
        attribute('domain', 'b.example'),
        attribute('domain', 'c.example'),
      ]),
    })
    const events = await read(text.slice(0, text.indexOf('c.example')))
    expect(summaries(events)).toEqual(['Event.Attribute[0] a.example', 'Event.Attribute[1] b.example'])
    expect(groups(events).map((g) => [g.xid, g.tag])).toEqual([[UUID, undefined]])
    expect(errors(events)).toEqual(['(input) The file ends before its JSON document does'])
  })

  it('refuses an attribute longer than the element limit, alone', async () => {
    const events = await read(
      JSON.stringify(
        event([attribute('domain', 'a.example'), attribute('url', `http://x.example/${'a'.repeat(1_100_000)}`)]),
      ),
      65_536,
    )
    expect(summaries(events)).toEqual(['Event.Attribute[0] a.example'])
    expect(errors(events)).toEqual(['Event.Attribute[1] longer than 1000000 characters'])
  })
})

describe('walkJson', () => {
  it('gives kept values as text and closed containers, whatever the chunks', async () => {
    const text = '{"a": {"x": [1, "s\\"]", {"k": [true]}], "y": null}, "b": 2}'
    for (const size of [1, 3, 100]) {
      const out: WalkEvent[] = []
      for await (const e of walkJson(chunks(text, size), (path) =>
        path.length < 2 || (path.length === 2 && path[1] === 'x') ? 'descend' : path.length === 3 ? 'whole' : 'skip',
      ))
        out.push(e)
      expect(out).toEqual([
        { kind: 'value', path: ['a', 'x', 0], text: '1' },
        { kind: 'value', path: ['a', 'x', 1], text: '"s\\"]"' },
        { kind: 'value', path: ['a', 'x', 2], text: '{"k": [true]}' },
        { kind: 'close', path: ['a', 'x'] },
        { kind: 'close', path: ['a'] },
        { kind: 'value', path: ['b'], text: '2' },
        { kind: 'close', path: [] },
      ])
    }
  })

  it('refuses structure that is not JSON, and content after the document', async () => {
    const walk = async (text: string) => {
      for await (const _ of walkJson(chunks(text, 4), () => 'descend'));
    }
    await expect(walk('{"a" 1}')).rejects.toThrow("Expected ':' but found '1' at character 6")
    await expect(walk('{"a": 1} x')).rejects.toThrow('Content after the JSON document at character 10')
    await expect(walk('')).rejects.toThrow('The file is empty')
  })
})

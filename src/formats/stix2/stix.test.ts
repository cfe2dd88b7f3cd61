import { describe, expect, it } from 'vitest'
import type { FeedIndicator } from '../../domain/listing/feed.js'
import { UuidV5Namespace, uuidV5 } from '../../core/uuid.js'
import { stixSchemaErrors, stixSchemasUnavailable } from '../../test/stix-schemas.js'
import {
  MARKINGS,
  StixIds,
  collectionMarkings,
  expandHive,
  fromStixIndicator,
  indicatorsOfPattern,
  readPattern,
  labelOfMarkingDefinition,
  labelOfMarkingId,
  markingOf,
  stixPattern,
  toStixIndicator,
} from './stix.js'

describe('patterns', () => {
  // value fields as stored → the pattern, as it reads before JSON encoding (STIX 2.1 §9).
  const table: [string, (string | null)[], string | undefined][] = [
    ['Address', ['198.51.100.7'], "[ipv4-addr:value = '198.51.100.7']"],
    ['Address', ['2001:db8::1'], "[ipv6-addr:value = '2001:db8::1']"],
    ['Address', ['::ffff:192.0.2.1'], "[ipv6-addr:value = '::ffff:192.0.2.1']"],
    ['Address', ['not an address'], undefined],
    ['CIDR', ['10.10.1.0/24'], "[ipv4-addr:value ISSUBSET '10.10.1.0/24']"],
    ['CIDR', ['2001:db8::/32'], "[ipv6-addr:value ISSUBSET '2001:db8::/32']"],
    ['EmailAddress', ["o'brien@example.com"], "[email-addr:value = 'o\\'brien@example.com']"],
    ['Host', ['xn--bcher-kva.example'], "[domain-name:value = 'xn--bcher-kva.example']"],
    ['URL', ['http://example.com/a\'b\\c?q=ü&x="y"'], "[url:value = 'http://example.com/a\\'b\\\\c?q=ü&x=\"y\"']"],
    ['URL', ["http://example.com/\\'"], "[url:value = 'http://example.com/\\\\\\'']"],
    ['ASN', ['AS174'], '[autonomous-system:number = 174]'],
    ['ASN', ['ASN0065000'], '[autonomous-system:number = 65000]'],
    ['ASN', ['AS-X'], undefined],
    ['Mutex', ['Global\\ABC'], "[mutex:name = 'Global\\\\ABC']"],
    ['Mutex', ["它's \\\\ 🦠"], "[mutex:name = '它\\'s \\\\\\\\ 🦠']"],
    [
      'File',
      ['D41D8CD98F00B204E9800998ECF8427E', null, null],
      "[file:hashes.MD5 = 'D41D8CD98F00B204E9800998ECF8427E']",
    ],
    [
      'File',
      [null, 'DA39A3EE5E6B4B0D3255BFEF95601890AFD80709', null],
      "[file:hashes.'SHA-1' = 'DA39A3EE5E6B4B0D3255BFEF95601890AFD80709']",
    ],
    [
      'File',
      ['D41D8CD98F00B204E9800998ECF8427E', null, 'E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855'],
      "[file:hashes.MD5 = 'D41D8CD98F00B204E9800998ECF8427E' OR file:hashes.'SHA-256' = 'E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855']",
    ],
    ['File', [null, null, null], undefined],
    [
      'Registry Key',
      ['HKLM\\Software\\Run', 'evil', 'REG_SZ'],
      "[windows-registry-key:key = 'HKEY_LOCAL_MACHINE\\\\Software\\\\Run' AND windows-registry-key:values[*].name = 'evil' AND windows-registry-key:values[*].data_type = 'REG_SZ']",
    ],
    [
      'Registry Key',
      ['hkcu\\Console', null, 'REG_QWORD_LITTLE_ENDIAN'],
      "[windows-registry-key:key = 'HKEY_CURRENT_USER\\\\Console' AND windows-registry-key:values[*].data_type = 'REG_QWORD']",
    ],
    [
      'Registry Key',
      ["HKEY_USERS\\S-1-5\\it's", null, null],
      "[windows-registry-key:key = 'HKEY_USERS\\\\S-1-5\\\\it\\'s']",
    ],
    [
      'User Agent',
      ['Mozilla/5.0 (compatible; "bot"; it\'s)'],
      "[network-traffic:extensions.'http-request-ext'.request_header.'User-Agent' = 'Mozilla/5.0 (compatible; \"bot\"; it\\'s)']",
    ],
    ['Widget', ['x'], undefined],
  ]
  it.each(table)('%s %j → %s', (type, values, pattern) => {
    expect(stixPattern(type, values)).toBe(pattern)
  })

  // Read back (import): the same type and values, as the writer normalizes them (hives in full, ASN digits).
  const readable = table.filter((row): row is [string, (string | null)[], string] => row[2] !== undefined)
  it.each(readable)('%s %j ← %s', (type, values, pattern) => {
    const expected = [0, 1, 2].map((i) => values[i] ?? null)
    if (type === 'Registry Key') {
      expected[0] = expandHive(expected[0]!)
      if (expected[2] === 'REG_QWORD_LITTLE_ENDIAN') expected[2] = 'REG_QWORD'
    }
    if (type === 'ASN') expected[0] = `ASN${Number(/\d+/.exec(expected[0]!)![0])}`
    expect(indicatorsOfPattern(pattern)).toEqual([{ type, values: expected }])
  })

  it('reads an OR of observations or comparisons as one Indicator each, hashes of one File as one File', () => {
    expect(
      indicatorsOfPattern(
        "[domain-name:value = 'a.example'] OR ([url:value = 'http://b.example/'] OR [ipv4-addr:value = '10.0.0.0/8'])".replace(
          /\(|\)/g,
          '',
        ),
      ),
    ).toEqual([
      { type: 'Host', values: ['a.example', null, null] },
      { type: 'URL', values: ['http://b.example/', null, null] },
      { type: 'CIDR', values: ['10.0.0.0/8', null, null] },
    ])
    expect(
      indicatorsOfPattern("[(email-addr:value = 'a@b.example' OR mutex:name = 'm') OR file:hashes.SHA1 = 'X']"),
    ).toEqual([
      { type: 'EmailAddress', values: ['a@b.example', null, null] },
      { type: 'Mutex', values: ['m', null, null] },
      { type: 'File', values: [null, 'X', null] },
    ])
    expect(indicatorsOfPattern("[file:hashes.MD5 = 'A' OR file:hashes.MD5 = 'B']")).toEqual([
      { type: 'File', values: ['A', null, null] },
      { type: 'File', values: ['B', null, null] },
    ])
    expect(indicatorsOfPattern("[ipv6-addr:value ISSUBSET '2001:db8::/32']")).toEqual([
      { type: 'CIDR', values: ['2001:db8::/32', null, null] },
    ])
  })

  it('keeps the hashes and properties of a File it has no column for as its extras', () => {
    expect(
      readPattern(
        "[file:hashes.MD5 = 'A' OR file:hashes.'SHA-1' = 'B' OR file:hashes.'SHA-256' = 'C' OR file:hashes.SSDEEP = '12:x/y' OR file:size = '951312' OR file:name = 'a.exe']",
      ),
    ).toEqual({
      indicators: [
        {
          type: 'File',
          values: ['A', 'B', 'C'],
          extras: ["file:hashes.SSDEEP = '12:x/y'", 'file:size = 951312', "file:name = 'a.exe'"],
        },
      ],
      skipped: [],
    })
    expect(readPattern("[file:hashes.MD5 = 'A' AND file:size > 10]").indicators).toEqual([
      { type: 'File', values: ['A', null, null], extras: ['file:size > 10'] },
    ])
  })

  it.each([
    ["[domain-name:value = 'a'] AND [url:value = 'b']", /'AND' after an observation/],
    ["[domain-name:value = 'a'] WITHIN 5 SECONDS", /'WITHIN' after an observation/],
    ["[domain-name:value LIKE 'a%']", /operator LIKE/],
    ["[domain-name:value = 'a' AND url:value = 'b']", /AND of domain-name:value = AND url:value =/],
    ["[process:name = 'x']", /process:name is not an observable/],
    ["[file:hashes.'SHA-512' = 'x']", /file:hashes.'SHA-512' = 'x': a File needs an MD5, SHA-1 or SHA-256 hash/],
    ["[domain-name:value NOT = 'a']", /NOT comparisons/],
    ["[domain-name:value = 'a'", /expected '\]'/],
    ["[domain-name:value = 'a]", /unterminated string/],
    ["[domain-name:value = 'a\\n']", /unknown escape/],
    ["[url:value = b'aGk=']", /only a string or integer constant/],
    ['', /expected '\['/],
  ])('refuses %s, saying why', (pattern, why) => {
    expect(() => indicatorsOfPattern(pattern)).toThrow(why)
  })

  it('expands every abbreviated hive and leaves other keys alone', () => {
    expect(['HKLM', 'HKCU', 'HKCR', 'HKU', 'HKCC'].map((h) => expandHive(`${h}\\X`))).toEqual([
      'HKEY_LOCAL_MACHINE\\X',
      'HKEY_CURRENT_USER\\X',
      'HKEY_CLASSES_ROOT\\X',
      'HKEY_USERS\\X',
      'HKEY_CURRENT_CONFIG\\X',
    ])
    expect(expandHive('hkey_local_machine\\X')).toBe('HKEY_LOCAL_MACHINE\\X')
    expect(expandHive('Software\\X')).toBe('Software\\X')
  })
})

describe('ids', () => {
  it('computes UUIDv5 as RFC 9562 and STIX 2.1 §2.9 do (the spec test vector)', () => {
    expect(uuidV5('00abedb4-aa42-466c-9c01-fed23315a9b7', '{"value":"198.51.100.3"}')).toBe(
      '28bb3599-77cd-5a82-a950-b5bc3caf07c4',
    )
    const many = new UuidV5Namespace('00abedb4-aa42-466c-9c01-fed23315a9b7')
    expect(many.uuid('{"value":"198.51.100.3"}')).toBe('28bb3599-77cd-5a82-a950-b5bc3caf07c4')
    for (const name of ['', 'ü', 'x'.repeat(1000), 'indicator|1|2'])
      expect(many.uuid(name)).toBe(uuidV5('00abedb4-aa42-466c-9c01-fed23315a9b7', name))
  })

  it('derives the same indicator and collection ids from the same installation, others from another', () => {
    const a = new StixIds('0d9c9d3a-2f55-4c67-9d0b-0e2bd1c0c001')
    const again = new StixIds('0d9c9d3a-2f55-4c67-9d0b-0e2bd1c0c001')
    const other = new StixIds('0d9c9d3a-2f55-4c67-9d0b-0e2bd1c0c002')
    expect(a.indicator(1, 42)).toBe(again.indicator(1, 42))
    expect(a.indicator(1, 42)).toMatch(
      /^indicator--[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    )
    expect(a.indicator(1, 42)).not.toBe(a.indicator(1, 43))
    expect(a.indicator(1, 42)).not.toBe(other.indicator(1, 42))
    expect(a.collection(3)).toBe(again.collection(3))
    expect(a.collection(3)).not.toBe(a.collection(4))
    expect(a.collection(3)).not.toBe(other.collection(3))
  })

  it('gives collections ids in the form of a version 4 UUID, as TAXII 2.1 identifiers must be, the former v5 ids beside them', () => {
    const ids = new StixIds('0d9c9d3a-2f55-4c67-9d0b-0e2bd1c0c001')
    for (const owner of [1, 2, 3, 1000]) {
      expect(ids.collection(owner)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      expect(ids.formerCollection(owner)).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      )
      // The same 122 bits of the name's hash, only the version differs.
      expect(ids.collection(owner).replace(/^(.{14})4/, '$15')).toBe(ids.formerCollection(owner))
    }
  })
})

describe('markings', () => {
  it('carries only the strictest TLP label, TLP 2.0 objects only for the levels TLP 1.0 lacks', () => {
    expect(markingOf(['TLP:GREEN', 'TLP:RED', 'Internal'])?.id).toBe(
      'marking-definition--5e57c739-391a-4eb3-b6be-7d15ca92d5ed',
    )
    expect(markingOf(['tlp:amber', 'TLP:AMBER+STRICT'])?.id).toBe(
      'marking-definition--939a9414-2ddd-4d32-a0cd-375ea402b003',
    )
    expect(markingOf(['TLP:CLEAR'])?.id).toBe('marking-definition--94868c89-83c2-464b-929b-a1a8aa3c8487')
    expect(markingOf(['Internal'])).toBeUndefined()
    expect(collectionMarkings([]).map((m) => m.name)).toEqual(['TLP:WHITE', 'TLP:GREEN', 'TLP:AMBER', 'TLP:RED'])
    expect(collectionMarkings(['TLP:AMBER+STRICT']).map((m) => m.name)).toEqual([
      'TLP:WHITE',
      'TLP:GREEN',
      'TLP:AMBER',
      'TLP:RED',
      'TLP:AMBER+STRICT',
    ])
  })
})

describe('reading indicator objects', () => {
  const object = {
    type: 'indicator',
    spec_version: '2.1',
    id: 'indicator--0f1f8f31-c3e5-4d8f-8a49-2c4c1b5a0f0e',
    created: '2026-01-02T03:04:05.006Z',
    modified: '2026-01-03T00:00:00.000Z',
    pattern: "[domain-name:value = 'bad.example']",
    pattern_type: 'stix',
    valid_from: '2026-01-02T03:04:05.006Z',
  }

  it('maps labels to tags, the strictest TLP marking to its Security Label, and the rating, confidence, description and expiry', () => {
    expect(
      fromStixIndicator({
        ...object,
        labels: ['APT 1', 'APT 1', ''],
        confidence: 80,
        description: 'seen',
        x_threat_rating: 4,
        valid_until: '2099-01-01T00:00:00.000Z',
        object_marking_refs: [
          MARKINGS[1].id,
          MARKINGS[3].id,
          'marking-definition--00000000-0000-4000-8000-000000000000',
        ],
      }),
    ).toEqual({
      indicators: [{ type: 'Host', values: ['bad.example', null, null] }],
      skipped: [],
      tags: ['APT 1'],
      securityLabels: [{ name: 'TLP:RED', color: 'FF2B2B', description: 'Traffic Light Protocol RED' }],
      stixId: object.id,
      fields: {
        rating: 4,
        confidence: 80,
        description: 'seen',
        firstSeen: '2026-01-02T03:04:05.006Z',
        externalDateAdded: '2026-01-02T03:04:05.006Z',
        externalLastModified: '2026-01-03T00:00:00.000Z',
        externalDateExpires: '2099-01-01T00:00:00.000Z',
      },
    })
  })

  it('reads every marking markingOf writes back to its label, and TLP marking definitions under other ids', () => {
    for (const m of MARKINGS) expect(markingOf([labelOfMarkingId(m.id)!.name])).toBe(m)
    expect(
      labelOfMarkingDefinition({ type: 'marking-definition', definition_type: 'tlp', definition: { tlp: 'amber' } })
        ?.name,
    ).toBe('TLP:AMBER')
    expect(labelOfMarkingDefinition({ type: 'marking-definition', extensions: MARKINGS[5].extensions })?.name).toBe(
      'TLP:AMBER+STRICT',
    )
    expect(
      labelOfMarkingDefinition({
        type: 'marking-definition',
        definition_type: 'statement',
        definition: { statement: 'x' },
      }),
    ).toBeUndefined()
    const custom = new Map([
      ['marking-definition--00000000-0000-4000-8000-000000000001', labelOfMarkingId(MARKINGS[2].id)!],
    ])
    expect(
      fromStixIndicator(
        { ...object, object_marking_refs: ['marking-definition--00000000-0000-4000-8000-000000000001'] },
        custom,
      ).securityLabels.map((l) => l.name),
    ).toEqual(['TLP:AMBER'])
  })

  it.each([
    [{ ...object, type: 'malware' }, /a malware object is not imported/],
    [{ ...object, pattern_type: 'sigma' }, /pattern_type sigma/],
    [{ ...object, revoked: true }, /revoked/],
    [{ ...object, spec_version: '2.2' }, /spec_version 2.2 is not 2.0 or 2.1/],
    [
      { ...object, pattern: "[process:name = 'x']" },
      /^pattern \[process:name = 'x'\]: process:name is not an observable/,
    ],
  ])('refuses %j', (o, why) => {
    expect(() => fromStixIndicator(o)).toThrow(why)
  })

  it('reads a STIX 2.0 indicator (no pattern_type, no spec_version) as STIX patterning', () => {
    const { spec_version: _, pattern_type: __, ...v20 } = object
    expect(fromStixIndicator(v20).indicators).toEqual([{ type: 'Host', values: ['bad.example', null, null] }])
  })

  it('imports an indicator whose valid_until has passed inactive, with its dates', () => {
    const read = fromStixIndicator(
      { ...object, created: '2021-03-01T00:00:00Z', valid_until: '2022-01-01T00:00:00Z' },
      new Map(),
      Date.parse('2026-01-01T00:00:00Z'),
    )
    expect(read.active).toBe(false)
    expect(read.fields.externalDateExpires).toBe('2022-01-01T00:00:00Z')
    expect(fromStixIndicator({ ...object, valid_until: '2027-01-01T00:00:00Z' }, new Map(), 0).active).toBeUndefined()
  })

  it('imports the comparisons it can hold and says which it left out', () => {
    const read = fromStixIndicator({
      ...object,
      pattern: "[domain-name:value = 'a.example' OR process:command_line = 'x' OR url:value LIKE 'b%']",
    })
    expect(read.indicators).toEqual([{ type: 'Host', values: ['a.example', null, null] }])
    expect(read.skipped).toEqual([
      'process:command_line is not an observable Bulwark holds as an Indicator',
      'the operator LIKE is not supported on url:value (only =)',
    ])
  })
})

const skipSchemas = stixSchemasUnavailable()
if (skipSchemas) console.warn(skipSchemas)

describe.skipIf(!!skipSchemas)('objects against the STIX 2.1 schemas', () => {
  const ids = new StixIds('0d9c9d3a-2f55-4c67-9d0b-0e2bd1c0c001')
  const base: FeedIndicator = {
    id: 7,
    ownerId: 2,
    type: 'Host',
    summary: 'bad.example',
    values: ['bad.example', null, null],
    rating: 4.4,
    confidence: 80,
    description: 'seen',
    active: true,
    dateAdded: '2026-01-02T03:04:05.006Z',
    lastModified: '2026-01-03T00:00:00.000Z',
    externalAdded: null,
    expires: null,
    tags: ['APT 1', 'x'],
    securityLabels: ['TLP:AMBER'],
  }

  it('accepts every marking definition', () => {
    for (const m of MARKINGS) expect(stixSchemaErrors(m), m.name).toEqual([])
  })

  it('accepts the indicators of both application versions, and each carries the fields of its version', () => {
    for (const [type, values] of table()) {
      for (const version of ['1.0', '2.0'] as const) {
        const object = toStixIndicator(ids, { ...base, type, values }, 'Owner', version)!
        expect(stixSchemaErrors(object), `${type} ${version}`).toEqual([])
      }
    }
    expect(toStixIndicator(ids, base, 'Owner', '1.0')).toEqual({
      type: 'indicator',
      spec_version: '2.1',
      id: ids.indicator(2, 7),
      created: '2026-01-02T03:04:05.006Z',
      modified: '2026-01-03T00:00:00.000Z',
      name: 'bad.example',
      pattern: "[domain-name:value = 'bad.example']",
      pattern_type: 'stix',
      valid_from: '2026-01-02T03:04:05.006Z',
      revoked: false,
      indicator_types: ['malicious-activity'],
      lang: 'en',
      object_marking_refs: ['marking-definition--f88d31f6-486f-44da-b317-01333bde0b82'],
      labels: ['APT 1', 'x'],
      confidence: 80,
      description: 'seen',
    })
    expect(
      toStixIndicator(ids, { ...base, active: false, rating: 1, tags: [], securityLabels: [] }, 'Owner', '2.0'),
    ).toEqual({
      type: 'indicator',
      spec_version: '2.1',
      id: ids.indicator(2, 7),
      created: '2026-01-02T03:04:05.006Z',
      modified: '2026-01-03T00:00:00.000Z',
      name: 'bad.example',
      pattern: "[domain-name:value = 'bad.example']",
      pattern_type: 'stix',
      valid_from: '2026-01-02T03:04:05.006Z',
      valid_until: '2026-01-03T00:00:00.000Z',
      revoked: false,
      indicator_types: ['anomalous-activity'],
      lang: 'en',
      x_threat_rating: 1,
      x_svc_id: 7,
      x_svc_owner: 'Owner',
      x_svc_type: 'Host',
    })
  })

  it('ends the validity of an Indicator that expired before it was created, and leaves out optional fields that are empty', () => {
    const object = toStixIndicator(
      ids,
      { ...base, expires: '2025-01-01T00:00:00.000Z', rating: null, confidence: null, description: null, tags: [] },
      'O',
      '2.0',
    )!
    expect([object.valid_from, object.valid_until]).toEqual(['2024-12-31T23:59:59.999Z', '2025-01-01T00:00:00.000Z'])
    const imported = toStixIndicator(
      ids,
      { ...base, externalAdded: '2021-03-01T00:00:00.000Z', expires: '2022-01-01T00:00:00.000Z', active: false },
      'O',
      '2.0',
    )!
    expect([imported.created, imported.valid_from, imported.valid_until]).toEqual([
      base.dateAdded,
      '2021-03-01T00:00:00.000Z',
      '2022-01-01T00:00:00.000Z',
    ])
    expect(object.indicator_types).toEqual(['unknown'])
    expect('x_threat_rating' in object).toBe(false)
    const v1 = toStixIndicator(
      ids,
      { ...base, confidence: null, description: null, tags: [], securityLabels: [] },
      'O',
      '1.0',
    )!
    expect(['labels', 'confidence', 'description', 'object_marking_refs'].filter((k) => k in v1)).toEqual([])
  })

  function table(): [string, FeedIndicator['values']][] {
    return [
      ['Address', ['198.51.100.7', null, null]],
      ['Address', ['2001:db8::1', null, null]],
      ['CIDR', ['10.0.0.0/8', null, null]],
      ['EmailAddress', ['a@example.com', null, null]],
      ['Host', ['a.example', null, null]],
      ['URL', ["http://a.example/'\\", null, null]],
      ['ASN', ['AS1', null, null]],
      ['Mutex', ['m\\x', null, null]],
      ['File', ['D41D8CD98F00B204E9800998ECF8427E', 'DA39A3EE5E6B4B0D3255BFEF95601890AFD80709', null]],
      ['Registry Key', ['HKLM\\A', 'v', 'REG_DWORD']],
      ['User Agent', ['UA "1"', null, null]],
    ]
  }
})

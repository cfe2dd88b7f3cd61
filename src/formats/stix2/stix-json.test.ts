import { describe, expect, it } from 'vitest'
import type { FeedIndicator } from '../../domain/listing/feed.js'
import { StixIds, stixPattern, toStixIndicator } from './stix.js'
import { IndicatorJsonWriter, jsonString } from './stix-json.js'

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

/** Text JSON escapes, and text it must leave alone. */
const AWKWARD = [
  '',
  'plain',
  'quote " and \\ backslash',
  "it's",
  'tab\there',
  'nul\u0000',
  '\u001f',
  '\u007f',
  'é ü 中文',
  '😀 pair',
  'lone \ud800 high',
  'lone \udfff low',
  '\u2028\u2029',
  '</script>',
  '{"json":[1]}',
]

describe('jsonString', () => {
  it.each(AWKWARD)('writes %j as JSON.stringify does', (text) => {
    expect(jsonString(text)).toBe(JSON.stringify(text))
  })
})

describe('IndicatorJsonWriter', () => {
  const cases: [string, FeedIndicator][] = [
    ['every field', base],
    ['nothing optional', { ...base, rating: null, confidence: null, description: null, tags: [], securityLabels: [] }],
    ['inactive, rating 1', { ...base, active: false, rating: 1 }],
    ['rating 0, confidence 0', { ...base, rating: 0, confidence: 0 }],
    ['expiry after valid_from', { ...base, expires: '2027-01-01T00:00:00.000Z', rating: 2.5 }],
    ['expiry before valid_from', { ...base, expires: '2025-01-01T00:00:00.000Z' }],
    ['inactive since its creation', { ...base, active: false, lastModified: base.dateAdded }],
    [
      "a source's dates, expired",
      { ...base, externalAdded: '2021-03-01T00:00:00.000Z', expires: '2022-01-01T00:00:00.000Z', active: false },
    ],
    ["a source's creation after Bulwark's", { ...base, externalAdded: '2030-01-01T00:00:00.000Z' }],
    [
      "under its source's id, with the source's creation",
      { ...base, stixId: 'indicator--8f4728a7-f6fd-4af3-8f85-20fe4e39c6a0', externalAdded: '2021-03-01T00:00:00.000Z' },
    ],
    [
      "under its source's id, without the source's creation",
      { ...base, stixId: 'indicator--8f4728a7-f6fd-4af3-8f85-20fe4e39c6a0' },
    ],
    [
      "under its source's id, the source's creation after its last change",
      { ...base, stixId: 'indicator--8f4728a7-f6fd-4af3-8f85-20fe4e39c6a0', externalAdded: '2030-01-01T00:00:00.000Z' },
    ],
    ['modified before created', { ...base, lastModified: '2026-01-01T00:00:00.000Z' }],
    ['labels that are not TLP, and several TLP', { ...base, securityLabels: ['Internal', 'tlp:green', 'TLP:RED'] }],
    ['labels with no TLP', { ...base, securityLabels: ['Internal'] }],
    ['TLP 2.0', { ...base, securityLabels: ['TLP:CLEAR'] }],
    ['empty description', { ...base, description: '' }],
    ...AWKWARD.map((text): [string, FeedIndicator] => [
      `text ${JSON.stringify(text)}`,
      {
        ...base,
        type: 'URL',
        summary: `http://a.example/${text}`,
        values: [`http://a.example/${text}`, null, null],
        description: text,
        tags: [text, 'z'],
      },
    ]),
    [
      'File',
      {
        ...base,
        type: 'File',
        summary: 'D41D8CD98F00B204E9800998ECF8427E',
        values: [
          'D41D8CD98F00B204E9800998ECF8427E',
          null,
          'E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855',
        ],
      },
    ],
    [
      'Registry Key',
      {
        ...base,
        type: 'Registry Key',
        summary: 'HKLM\\Software\\x : v : REG_SZ',
        values: ['HKLM\\Software\\x', "v'1", 'REG_SZ'],
      },
    ],
    ['User Agent', { ...base, type: 'User Agent', summary: 'UA "1"', values: ['UA "1"', null, null] }],
  ]

  for (const owner of ['Owner', 'Owner "quoted" \\ é']) {
    for (const profile of ['1.0', '2.0', 'bundle'] as const) {
      it.each(cases)(
        `writes %s in profile ${profile} for owner ${JSON.stringify(owner)} byte for byte as JSON.stringify(toStixIndicator(…))`,
        (_name, indicator) => {
          const expected = JSON.stringify(toStixIndicator(ids, indicator, owner, profile))
          const written = new IndicatorJsonWriter(ids, owner, profile).write(
            indicator,
            stixPattern(indicator.type, indicator.values)!,
          )
          expect(written).toBe(expected)
          expect(JSON.parse(written)).toEqual(JSON.parse(expected))
        },
      )
    }
  }

  it('writes the fields of each profile (spot check of real values)', () => {
    expect(
      JSON.parse(
        new IndicatorJsonWriter(ids, 'Owner', '2.0').write(
          { ...base, tags: [], securityLabels: [] },
          "[domain-name:value = 'bad.example']",
        ),
      ),
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
      revoked: false,
      indicator_types: ['malicious-activity'],
      lang: 'en',
      x_threat_rating: 4,
      x_svc_id: 7,
      x_svc_owner: 'Owner',
      x_svc_type: 'Host',
    })
  })

  it('writes an Indicator with a source id under that id, created when its source created it, modified when Bulwark last changed it', () => {
    const sourced = {
      ...base,
      stixId: 'indicator--8f4728a7-f6fd-4af3-8f85-20fe4e39c6a0',
      externalAdded: '2021-03-01T00:00:00.000Z',
    }
    const written = JSON.parse(
      new IndicatorJsonWriter(ids, 'Owner', '2.0').write(sourced, "[domain-name:value = 'bad.example']"),
    )
    expect([written.id, written.created, written.modified, written.valid_from]).toEqual([
      'indicator--8f4728a7-f6fd-4af3-8f85-20fe4e39c6a0',
      '2021-03-01T00:00:00.000Z',
      '2026-01-03T00:00:00.000Z',
      '2021-03-01T00:00:00.000Z',
    ])
  })
})

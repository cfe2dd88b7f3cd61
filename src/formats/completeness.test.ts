/**
 * Every Indicator type of the model in every format: its STIX 2.1 pattern both ways, its STIX 1.1.1
 * observable written and read back, and what the bundle, CSV, plain-list and batch-file readers make of it, down to the
 * type and values the batch job reads from the item (readIndicatorKey); a plain list without
 * --type too, for every type its values tell. The types come from INDICATOR_TYPES, so a type added
 * there without a sample here, or without a mapping in a format, fails.
 */
import { XMLParser } from 'fast-xml-parser'
import { describe, expect, it } from 'vitest'
import { readIndicatorKey } from '../domain/batch/input.js'
import type { IndicatorRecord } from '../domain/indicators/record.js'
import type { FeedIndicator } from '../domain/listing/feed.js'
import { INDICATOR_TYPES, type IndicatorTypeDef, composeSummary } from '../model/indicator-types.js'
import { batchFile } from './batch/batch-file.js'
import { csvFile } from './csv/csv.js'
import type { Format, ReadIndicator } from './format.js'
import { plainList } from './text/text.js'
import { DETECTABLE_TYPES } from './text/values.js'
import { stix1Packages } from './stix1/read.js'
import { CYBOX_OBJECT_SCHEMAS, cyboxProperties, renderIndicator, renderPackage } from './stix1/stix.js'
import { stixBundle } from './stix2/bundle.js'
import { StixIds, indicatorsOfPattern, stixPattern, toStixIndicator } from './stix2/stix.js'

type Values = [string | null, string | null, string | null]

/**
 * Values of each type as the type stores them (normalized), with the shapes a format could lose:
 * both address families, a File of one hash, a Registry Key whose value type has no value name.
 */
const SAMPLES: Record<string, Values[]> = {
  Address: [
    ['198.51.100.7', null, null],
    ['2001:db8::7', null, null],
  ],
  EmailAddress: [["o'brien@bad.example", null, null]],
  File: [
    [
      'D41D8CD98F00B204E9800998ECF8427E',
      'DA39A3EE5E6B4B0D3255BFEF95601890AFD80709',
      'E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855',
    ],
    [null, 'DA39A3EE5E6B4B0D3255BFEF95601890AFD80709', null],
  ],
  Host: [['bad.example', null, null]],
  URL: [['http://bad.example/a\'b\\c?q="1",2', null, null]],
  ASN: [['ASN64500', null, null]],
  CIDR: [
    ['10.10.1.0/24', null, null],
    ['2001:db8::/32', null, null],
  ],
  Mutex: [['Global\\evil, "quoted"', null, null]],
  'Registry Key': [
    ['HKEY_LOCAL_MACHINE\\Software\\Run', 'evil', 'REG_SZ'],
    ['HKEY_CURRENT_USER\\Console', null, 'REG_QWORD'],
  ],
  'User Agent': [['Mozilla/5.0 (evil "bot"; it\'s)', null, null]],
}

/** STIX IndicatorTypeVocab-1.1. */
const STIX1_INDICATOR_TYPES = [
  'Anonymization',
  'C2',
  'Compromised PKI Certificate',
  'Domain Watchlist',
  'Exfiltration',
  'File Hash Watchlist',
  'Host Characteristics',
  'IMEI Watchlist',
  'IMSI Watchlist',
  'IP Watchlist',
  'Login Name',
  'Malicious E-mail',
  'Malware Artifacts',
  'URL Watchlist',
]

const ids = new StixIds('0d9c9d3a-2f55-4c67-9d0b-0e2bd1c0c001')

function feedIndicator(def: IndicatorTypeDef, values: Values): FeedIndicator {
  return {
    id: 7,
    ownerId: 2,
    type: def.name,
    summary: composeSummary(def, values),
    values,
    rating: 3,
    confidence: 60,
    description: null,
    active: true,
    dateAdded: '2026-01-02T03:04:05.006Z',
    lastModified: '2026-01-03T00:00:00.000Z',
    externalAdded: null,
    expires: null,
    tags: [],
    securityLabels: [],
  }
}

async function* textOf(text: string) {
  yield text
}

/** The Indicators a format's reader finds in a text, with no element refused. */
async function readAll(format: Format, text: string, type?: string): Promise<ReadIndicator[]> {
  const found: ReadIndicator[] = []
  for await (const event of format.reader!.read(textOf(text), { name: 'sample', type })) {
    expect(event.error).toBeUndefined()
    if (event.kind === 'element') found.push(...event.indicators)
  }
  return found
}

/** What the batch job takes each read item to be. */
const asJobReadsThem = (found: ReadIndicator[]) =>
  found.map(({ indicator }) => {
    const key = readIndicatorKey(indicator as Record<string, unknown>)
    return { type: key.def.name, values: key.values }
  })

const csvCell = (text: string) => `"${text.replace(/"/g, '""')}"`

const cases = INDICATOR_TYPES.flatMap((def) =>
  (SAMPLES[def.name] ?? [undefined]).map((values) => [def.name, def, values] as const),
)

describe.each(cases)('%s', (_name, def, values) => {
  it('has samples in this test', () => {
    expect(values, `add ${def.name} to SAMPLES, with a mapping in every format`).toBeDefined()
  })
  if (!values) return
  const expected = { type: def.name, values: values.slice(0, def.fields.length) }
  // A summary leaves empty fields out; Files place hashes by length, other types by order, so a field missing before one that is not needs its slot said.
  const summarySaysAll =
    def.name === 'File' ||
    !expected.values.some((v, i, all) => v === null && all.slice(i + 1).some((later) => later !== null))

  it(`${JSON.stringify(values)}: STIX 2.1 pattern and back`, () => {
    const pattern = stixPattern(def.name, values)
    expect(pattern).toBeDefined()
    expect(indicatorsOfPattern(pattern!)).toEqual([{ type: def.name, values }])
  })

  it(`${JSON.stringify(values)}: STIX 2.1 bundle, written and read`, async () => {
    const object = toStixIndicator(ids, feedIndicator(def, values), 'Owner', 'bundle')
    expect(object).toBeDefined()
    const found = await readAll(stixBundle, JSON.stringify({ type: 'bundle', id: 'bundle--1', objects: [object] }))
    expect(asJobReadsThem(found)).toEqual([expected])
  })

  it(`${JSON.stringify(values)}: STIX 1.1.1 observable`, () => {
    const xml = renderIndicator(feedIndicator(def, values), 'Owner')
    const term = /IndicatorTypeVocab-1\.1">([^<]*)</.exec(xml)?.[1]
    expect(STIX1_INDICATOR_TYPES).toContain(term)
    const properties = cyboxProperties(def.name, values, composeSummary(def, values))
    const object = /^<cybox:Properties xsi:type="(\w+):/.exec(properties)?.[1]
    expect(Object.keys(CYBOX_OBJECT_SCHEMAS)).toContain(object)
    // Each value is in the observable, whole or by its part CybOX has a field for (an ASN's number, a key below its hive).
    const texts: string[] = []
    const walk = (node: unknown): void => {
      if (typeof node === 'string') texts.push(node)
      else if (node && typeof node === 'object') Object.values(node).forEach(walk)
    }
    walk(
      new XMLParser({ ignoreAttributes: true, parseTagValue: false, trimValues: false }).parse(`<r>${properties}</r>`),
    )
    for (const value of values)
      if (value !== null)
        expect(
          texts.some((t) => t !== '' && value.endsWith(t)),
          `${value} in ${properties}`,
        ).toBe(true)
  })

  it(`${JSON.stringify(values)}: STIX 1.1.1 package, written and read`, async () => {
    const text = renderPackage('https://bulwark.example', 'Owner', [feedIndicator(def, values)])
    expect(asJobReadsThem(await readAll(stix1Packages, text))).toEqual([expected])
  })

  it(`${JSON.stringify(values)}: CSV`, async () => {
    const summary = composeSummary(def, values)
    const found = await readAll(
      csvFile,
      `type,summary,value1,value2,value3\n${[def.name, summary, ...values.map((v) => v ?? '')].map(csvCell).join(',')}\n`,
    )
    expect(asJobReadsThem(found)).toEqual([expected])
    if (summarySaysAll)
      expect(
        asJobReadsThem(await readAll(csvFile, `type,summary\n${csvCell(def.name)},${csvCell(summary)}\n`)),
      ).toEqual([expected])
  })

  it.skipIf(!summarySaysAll)(`${JSON.stringify(values)}: plain list (a summary a line)`, async () => {
    expect(asJobReadsThem(await readAll(plainList, `${composeSummary(def, values)}\n`, def.name))).toEqual([expected])
  })

  it.skipIf(!summarySaysAll || !DETECTABLE_TYPES.includes(def.name))(
    `${JSON.stringify(values)}: plain list without --type (the type detected)`,
    async () => {
      expect(asJobReadsThem(await readAll(plainList, `${composeSummary(def, values)}\n`))).toEqual([expected])
    },
  )

  it(`${JSON.stringify(values)}: V2 batch file, written and read`, async () => {
    const record = { ...feedIndicator(def, values), source: null } as unknown as IndicatorRecord
    const writer = batchFile.writer!.open({ installationId: 'x', ownerName: 'Owner' })
    const text =
      writer.opening() + writer.indicator({ record, tags: [], securityLabels: [], attributes: [] })! + writer.closing()
    expect(asJobReadsThem(await readAll(batchFile, text))).toEqual([expected])
  })
})

/**
 * CSV as vendors publish it: a header of their own names (or `--map`), the type detected where no
 * column gives it, values re-fanged, the source's dates kept and a value past its end of validity
 * inactive; quoted cells with commas and line breaks, a byte order mark, CRLF, rows of the wrong
 * width named by line. The SEKOIA stealc file (../shared/datasets) read as published.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { datasetFile, datasetsUnavailable } from '../../test/datasets.js'
import type { ReadEvent, ReadOptions } from '../format.js'
import { csvFile } from './csv.js'
import { parseColumnMap, resolveColumns } from './columns.js'
import { readCsvRecords } from './records.js'

async function* chunksOf(text: string, size = text.length || 1) {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size)
}

const NOW = '2026-11-26T00:00:00.000Z'

async function readCsv(text: string, options: Partial<ReadOptions> = {}, size?: number): Promise<ReadEvent[]> {
  const events: ReadEvent[] = []
  for await (const event of csvFile.reader!.read(chunksOf(text, size), { name: 'feed.csv', now: NOW, ...options }))
    events.push(event)
  return events
}

type Item = Record<string, unknown>
const items = (events: ReadEvent[]) =>
  events.flatMap((e) => (e.kind === 'element' ? e.indicators.map((i) => i.indicator as Item) : []))
const errors = (events: ReadEvent[]) =>
  events.flatMap((e) => (e.kind === 'input' ? [`(file): ${e.error}`] : e.error ? [`${e.where}: ${e.error}`] : []))

describe('readCsvRecords', () => {
  const records = async (text: string, size?: number) => {
    const out: unknown[] = []
    for await (const record of readCsvRecords(chunksOf(text, size))) out.push(record)
    return out
  }
  const TEXT =
    '\ufeffvalue,description\r\n' +
    '"bad.example","a, b and ""c"""\r\n' +
    '\r\n' +
    'x.example,"two\r\nlines"\r\n' +
    'y.example, "spaced, quoted" \n' +
    'z.example,a"b\r' +
    'last.example,'
  const EXPECTED = [
    { line: 1, cells: ['value', 'description'] },
    { line: 2, cells: ['bad.example', 'a, b and "c"'] },
    { line: 4, cells: ['x.example', 'two\r\nlines'] },
    { line: 6, cells: ['y.example', 'spaced, quoted '] },
    { line: 7, cells: ['z.example', 'a"b'] },
    { line: 8, cells: ['last.example', ''] },
  ]

  it.each([1, 2, 3, 5, 8, 64, 10_000])(
    'reads quoted cells, line breaks in them, a BOM, CRLF and a lone CR, in chunks of %d characters',
    async (size) => {
      expect(await records(TEXT, size)).toEqual(EXPECTED)
    },
  )

  it('takes the delimiter the header uses most: `;` or tab as well as `,`', async () => {
    expect(await records('value;tags\nbad.example;"a;b"\n')).toEqual([
      { line: 1, cells: ['value', 'tags'] },
      { line: 2, cells: ['bad.example', 'a;b'] },
    ])
    expect(await records('value\ttags\nbad.example\ta,b\n')).toEqual([
      { line: 1, cells: ['value', 'tags'] },
      { line: 2, cells: ['bad.example', 'a,b'] },
    ])
  })

  it('reports a quoted cell never closed, and a record too long to hold by its length', async () => {
    expect(await records('value\nbad.example\n"open, never closed\nmore\n')).toEqual([
      { line: 1, cells: ['value'] },
      { line: 2, cells: ['bad.example'] },
      { line: 3, unterminated: true },
    ])
    const long = `value\n"${'x'.repeat(10 * 1024 * 1024)}"\nbad.example\n`
    expect(await records(long, 65_536)).toEqual([
      { line: 1, cells: ['value'] },
      { line: 2, error: 'a record of 10485760 characters: longer than 1000000' },
      { line: 3, cells: ['bad.example'] },
    ])
  })
})

describe('columns', () => {
  it('recognises common names in any case and spacing, the first of a field’s names winning', () => {
    const header = ['IOC', ' Valid From', ' Valid Until', ' Link', 'Threat Rating', 'Score', 'first_seen_utc', 'TLP']
    expect(resolveColumns(header)).toEqual({
      value: 0,
      externalDateAdded: 1,
      externalDateExpires: 2,
      source: 3,
      rating: 4,
      firstSeen: 6,
      tlp: 7,
    })
  })

  it('takes --map before names, and refuses a map it cannot follow', () => {
    expect(parseColumnMap('value=Observable Name, type=Kind,validUntil=Expiry')).toEqual({
      value: 'Observable Name',
      type: 'Kind',
      externalDateExpires: 'Expiry',
    })
    expect(
      resolveColumns(['Kind', 'Observable Name', 'Expiry', 'value'], parseColumnMap('value=observable name')),
    ).toEqual({ value: 1, type: 0 })
    expect(() => parseColumnMap('value')).toThrow('--map takes field=column pairs separated by commas')
    expect(() => parseColumnMap('colour=Kind')).toThrow("--map: 'colour' is not a field; the fields are value, type")
    expect(() => parseColumnMap('value=a,value=b')).toThrow('--map names the column of value twice')
    expect(() => resolveColumns(['a', 'b'], { value: 'IOC' })).toThrow(
      "--map value=IOC: the header has no column 'IOC' (it has a, b)",
    )
    expect(() => resolveColumns(['id', 'first seen'])).toThrow(
      'The CSV header names no column of values (value, indicator, ioc, observable or summary); it has id, first seen. Name it with --map value=<column>',
    )
  })
})

describe('the CSV format', () => {
  it('reads the existing type,summary CSV as before', async () => {
    const events = await readCsv(
      'type,summary,rating,confidence,tags\nHost,bad.example,3,50,phishing;kit\nAddress,192.0.2.7,,,\nHost,not a host!!,,,\n"URL","http://x.example/a,b",1,,\n',
    )
    expect(errors(events)).toEqual([])
    expect(items(events)).toEqual([
      {
        type: 'Host',
        summary: 'bad.example',
        rating: '3',
        confidence: '50',
        tag: [{ name: 'phishing' }, { name: 'kit' }],
      },
      { type: 'Address', summary: '192.0.2.7' },
      { type: 'Host', summary: 'not a host!!' },
      { type: 'URL', summary: 'http://x.example/a,b', rating: '1' },
    ])
    expect(events.map((e) => e.kind === 'element' && e.where)).toEqual(['line 2', 'line 3', 'line 4', 'line 5'])
  })

  it('detects the type where no column gives it, maps a feed’s type names, and keeps every recognised field', async () => {
    const events = await readCsv(
      'Indicator,Kind,Score,Confidence,Labels,First Seen,Last Seen,Valid Until,Comment,TLP,Reference\n' +
        'hxxp://bad[.]example/x,,4,80,"c2, stealer",2026-01-01,2026-02-01T10:00:00Z,2027-01-01,"first, ""quoted""",amber,https://vendor.example/1\n' +
        '91.215.85[.]188,ip,,,,,,,,TLP:RED,\n' +
        'bad.example,domain,,,,,,,,tlp:clear,\n',
    )
    expect(errors(events)).toEqual([])
    expect(items(events)).toEqual([
      {
        type: 'URL',
        summary: 'http://bad.example/x',
        rating: '4',
        confidence: '80',
        description: 'first, "quoted"',
        source: 'https://vendor.example/1',
        tag: [{ name: 'c2' }, { name: 'stealer' }],
        securityLabel: [{ name: 'TLP:AMBER', color: 'FFC000', description: 'Traffic Light Protocol AMBER' }],
        firstSeen: '2026-01-01',
        lastSeen: '2026-02-01T10:00:00Z',
        externalDateExpires: '2027-01-01',
      },
      {
        type: 'Address',
        summary: '91.215.85.188',
        securityLabel: [{ name: 'TLP:RED', color: 'FF2B2B', description: 'Traffic Light Protocol RED' }],
      },
      {
        type: 'Host',
        summary: 'bad.example',
        securityLabel: [{ name: 'TLP:CLEAR', color: 'FFFFFF', description: 'Traffic Light Protocol CLEAR' }],
      },
    ])
  })

  it('names each bad record by its line: wrong width, no known type, no value, no TLP level, NUL; the rest is read', async () => {
    const events = await readCsv(
      '\ufeffvalue,tlp\r\nbad.example,\r\nbad.example\r\nnss3.dll,\r\n,green\r\nx.example,purple\r\n"multi\r\nline",\r\n"a\u0000b",\r\nok.example,white\r\n',
    )
    expect(errors(events)).toEqual([
      'line 3: 1 cells, where the header names 2 columns',
      "line 4: 'nss3.dll' is a file name (.dll is no top-level domain), not a host",
      'line 5: the value cell is empty',
      "line 6: TLP 'purple' is no TLP level (CLEAR, WHITE, GREEN, AMBER, AMBER+STRICT, RED)",
      "line 7: 'multi\r\nline' is not a value of a known type (IPv4, IPv6, CIDR, host, URL, email, MD5/SHA-1/SHA-256, ASN)",
      'line 9: a cell holds a NUL character (U+0000), which no Indicator field can hold',
    ])
    expect(items(events).map((i) => i.summary)).toEqual(['bad.example', 'ok.example'])
  })

  it('keeps markup and control characters verbatim as text', async () => {
    const payload = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    const events = await readCsv(`value,description,tags\nbad.example,"${payload.replace(/"/g, '""')}\u0007","<b>;x"\n`)
    expect(items(events)).toEqual([
      { type: 'Host', summary: 'bad.example', description: `${payload}\u0007`, tag: [{ name: '<b>' }, { name: 'x' }] },
    ])
  })

  it('marks a value inactive when its end of validity has passed, and leaves it alone otherwise', async () => {
    const events = await readCsv('value,valid until\na.example,2026-11-25T23:59:59Z\nb.example,2026-11-26T00:00:01Z\n')
    expect(items(events)).toEqual([
      { type: 'Host', summary: 'a.example', externalDateExpires: '2026-11-25T23:59:59Z', active: false },
      { type: 'Host', summary: 'b.example', externalDateExpires: '2026-11-26T00:00:01Z' },
    ])
  })

  it('refuses, before writing anything, a file with no header, a header with no value column, a bad --map', async () => {
    await expect(readCsv('')).rejects.toThrow('The CSV file is empty: it has no header')
    await expect(readCsv('id,name\n1,x\n')).rejects.toThrow('The CSV header names no column of values')
    await expect(readCsv('IOC,Kind\nbad.example,Host\n', { map: 'value=Observable' })).rejects.toThrow(
      "--map value=Observable: the header has no column 'Observable' (it has IOC, Kind)",
    )
    expect(() => csvFile.reader!.check!({ name: 'x', map: 'value' })).toThrow('--map takes field=column pairs')
  })

  it('reads a vendor header through --map', async () => {
    const events = await readCsv('Observable Name,Expiry\nbad.example,2027-01-01\n', {
      map: 'value=observable name,validUntil=expiry',
    })
    expect(items(events)).toEqual([{ type: 'Host', summary: 'bad.example', externalDateExpires: '2027-01-01' }])
  })
})

const STEALC = 'SEKOIA-IO+Community/IOCs/stealc/stealc_iocs_20230220.csv'
const unavailable = datasetsUnavailable()
if (unavailable) console.warn(unavailable)

describe.skipIf(!!unavailable)(`the SEKOIA stealc CSV (${STEALC})`, () => {
  it('reads all 152 rows: 105 URLs, 37 Addresses, 7 Hosts and 3 Files of three hashes, their dates kept, the expired inactive', async () => {
    const events = await readCsv(readFileSync(datasetFile(STEALC), 'utf8'), {}, 4096)
    expect(errors(events)).toEqual([])
    const read = items(events)
    expect(read).toHaveLength(152)
    const perType: Record<string, number> = {}
    for (const i of read) perType[i.type as string] = (perType[i.type as string] ?? 0) + 1
    expect(perType).toEqual({ URL: 105, Address: 37, Host: 7, File: 3 })
    // The network values' validity ended in 2023: kept, and inactive. The hashes are valid until 2048.
    expect(read.filter((i) => i.active === false)).toHaveLength(149)
    expect(read.filter((i) => i.active !== false).map((i) => [i.type, i.externalDateExpires])).toEqual([
      ['File', '2048-01-04T00:00:00Z'],
      ['File', '2048-01-04T00:00:00Z'],
      ['File', '2048-02-07T00:00:00Z'],
    ])
    expect(read[0]).toEqual({
      type: 'Address',
      summary: '91.215.85.188',
      source: 'https://app.sekoia.io/intelligence/public/objects/indicator--747b83e1-e70a-4785-b981-60dbf81fd717',
      externalDateAdded: '2023-02-14T00:00:00Z',
      externalDateExpires: '2023-02-27T00:00:00Z',
      active: false,
    })
    expect(read.find((i) => i.type === 'File')).toEqual({
      type: 'File',
      summary:
        '0D049F764A22E16933F8C3F1704D4E50 : 5FAAD57C7341F76C18AE813E9FA9FBFE434F7B41 : 77D6F1914AF6CAF909FA2A246FCEC05F500F79DD56E5D0D466D55924695C702D',
      source: 'https://app.sekoia.io/intelligence/public/objects/indicator--c87d6c4a-aefb-48b6-84a3-0c535a348722',
      externalDateAdded: '2023-01-10T00:00:00Z',
      externalDateExpires: '2048-01-04T00:00:00Z',
    })
    expect(read.find((i) => i.summary === 'http://777palm.com/2ccaf544c0cf7de7/nss3.dll')).toMatchObject({
      type: 'URL',
      externalDateAdded: expect.stringMatching(/^2023-/),
      externalDateExpires: expect.stringMatching(/^2023-/),
    })
    expect(events.map((e) => e.kind === 'element' && e.where).slice(0, 2)).toEqual(['line 2', 'line 3'])
  })
})

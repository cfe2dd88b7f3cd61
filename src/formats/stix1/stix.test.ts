import { XMLParser } from 'fast-xml-parser'
import { describe, expect, it } from 'vitest'
import type { FeedIndicator } from '../../domain/listing/feed.js'
import { INDICATOR_TYPES } from '../../model/indicator-types.js'
import { schemasUnavailable, validateXml } from '../../test/xml-schemas.js'
import { cyboxProperties, renderPackage } from './stix.js'

function indicator(
  id: number,
  type: string,
  values: (string | null)[],
  extra: Partial<FeedIndicator> = {},
): FeedIndicator {
  return {
    id,
    ownerId: 1,
    type,
    summary: values.filter(Boolean).join(' : '),
    values: [values[0] ?? null, values[1] ?? null, values[2] ?? null],
    rating: 3,
    confidence: 50,
    description: null,
    active: true,
    dateAdded: '2026-03-01T00:00:00.000Z',
    lastModified: '2026-03-01T01:02:03.456Z',
    externalAdded: null,
    expires: null,
    tags: [],
    securityLabels: [],
    ...extra,
  }
}

const NASTY = 'a<b>&c"d\'e]]>\u0001\u{1F600}\tend'
const MD5 = 'D41D8CD98F00B204E9800998ECF8427E'
const SHA1 = 'DA39A3EE5E6B4B0D3255BFEF95601890AFD80709'
const SHA256 = 'E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855'

/** Each type: values as stored, the CybOX Properties type, and the values a reader must find in it. */
const TABLE: {
  type: string
  values: (string | null)[]
  properties: string
  attrs: Record<string, string>
  path: string[]
  expected: string
}[] = [
  {
    type: 'Address',
    values: ['192.0.2.1'],
    properties: 'AddressObj:AddressObjectType',
    attrs: { category: 'ipv4-addr' },
    path: ['Address_Value'],
    expected: '192.0.2.1',
  },
  {
    type: 'Address',
    values: ['2001:db8::1'],
    properties: 'AddressObj:AddressObjectType',
    attrs: { category: 'ipv6-addr' },
    path: ['Address_Value'],
    expected: '2001:db8::1',
  },
  {
    type: 'EmailAddress',
    values: ['"o\'neil&co"@example.com'],
    properties: 'AddressObj:AddressObjectType',
    attrs: { category: 'e-mail' },
    path: ['Address_Value'],
    expected: '"o\'neil&co"@example.com',
  },
  {
    type: 'File',
    values: [MD5, null, SHA256],
    properties: 'FileObj:FileObjectType',
    attrs: {},
    path: ['Hashes', 'Hash'],
    expected: `MD5=${MD5} SHA256=${SHA256}`,
  },
  {
    type: 'File',
    values: [null, SHA1, null],
    properties: 'FileObj:FileObjectType',
    attrs: {},
    path: ['Hashes', 'Hash'],
    expected: `SHA1=${SHA1}`,
  },
  {
    type: 'Host',
    values: ['xn--bcher-kva.example'],
    properties: 'DomainNameObj:DomainNameObjectType',
    attrs: { type: 'FQDN' },
    path: ['Value'],
    expected: 'xn--bcher-kva.example',
  },
  {
    type: 'URL',
    values: ['https://x.example/p?a=1&b=<script>"x"</script>#]]>'],
    properties: 'URIObj:URIObjectType',
    attrs: { type: 'URL' },
    path: ['Value'],
    expected: 'https://x.example/p?a=1&b=<script>"x"</script>#]]>',
  },
  {
    type: 'ASN',
    values: ['AS64512'],
    properties: 'ASObj:ASObjectType',
    attrs: {},
    path: ['Number'],
    expected: '64512',
  },
  {
    type: 'CIDR',
    values: ['198.51.100.0/24'],
    properties: 'AddressObj:AddressObjectType',
    attrs: { category: 'ipv4-net' },
    path: ['Address_Value'],
    expected: '198.51.100.0/24',
  },
  {
    type: 'CIDR',
    values: ['2001:db8::/32'],
    properties: 'AddressObj:AddressObjectType',
    attrs: { category: 'ipv6-net' },
    path: ['Address_Value'],
    expected: '2001:db8::/32',
  },
  {
    type: 'Mutex',
    values: [NASTY],
    properties: 'MutexObj:MutexObjectType',
    attrs: { named: 'true' },
    path: ['Name'],
    expected: 'a<b>&c"d\'e]]>\uFFFD\u{1F600}\tend',
  },
  {
    type: 'Registry Key',
    values: ['HKEY_LOCAL_MACHINE\\Software\\<Evil> & "Co"', 'Run & Hide', 'REG_DWORD_LITTLE_ENDIAN'],
    properties: 'WinRegistryKeyObj:WindowsRegistryKeyObjectType',
    attrs: {},
    path: ['Key'],
    expected: 'Software\\<Evil> & "Co"|HKEY_LOCAL_MACHINE|Run & Hide|REG_DWORD',
  },
  {
    type: 'Registry Key',
    values: ['HKCU\\Software\\x', null, null],
    properties: 'WinRegistryKeyObj:WindowsRegistryKeyObjectType',
    attrs: {},
    path: ['Key'],
    expected: 'Software\\x|HKEY_CURRENT_USER||',
  },
  {
    type: 'Registry Key',
    values: ['NotAHive\\x', null, 'REG_SZ'],
    properties: 'WinRegistryKeyObj:WindowsRegistryKeyObjectType',
    attrs: {},
    path: ['Key'],
    expected: 'NotAHive\\x|||REG_SZ',
  },
  {
    type: 'User Agent',
    values: [`Mozilla/5.0 (${NASTY})`],
    properties: 'HTTPSessionObj:HTTPSessionObjectType',
    attrs: {},
    path: ['HTTP_Request_Response', 'HTTP_Client_Request', 'HTTP_Request_Header', 'Parsed_Header', 'User_Agent'],
    expected: 'Mozilla/5.0 (a<b>&c"d\'e]]>\uFFFD\u{1F600}\tend)',
  },
]

const reader = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseTagValue: false,
  trimValues: false,
  removeNSPrefix: false,
})

function readProperties(xml: string) {
  const doc = reader.parse(`<r xmlns:cybox="c" xmlns:xsi="x">${xml}</r>`).r['cybox:Properties']
  const strip = (node: any): any => {
    if (typeof node !== 'object' || node === null) return node
    if (Array.isArray(node)) return node.map(strip)
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k.replace(/^(@?)[A-Za-z]+:/, '$1'), strip(v)]))
  }
  return { raw: doc, plain: strip(doc) }
}

function valueOf(type: string, plain: any, path: string[]): string {
  if (type === 'File') {
    const hashes = Array.isArray(plain.Hashes.Hash) ? plain.Hashes.Hash : [plain.Hashes.Hash]
    return hashes.map((h: any) => `${h.Type['#text']}=${h.Simple_Hash_Value['#text']}`).join(' ')
  }
  if (type === 'Registry Key') {
    const value = plain.Values?.Value
    return [
      plain.Key?.['#text'] ?? '',
      plain.Hive?.['#text'] ?? '',
      value?.Name?.['#text'] ?? '',
      value?.Datatype?.['#text'] ?? '',
    ].join('|')
  }
  return path.reduce((node, key) => node[key], plain)['#text']
}

describe('CybOX mapping', () => {
  it('covers every Indicator type of the model', () => {
    expect(new Set(TABLE.map((r) => r.type))).toEqual(new Set(INDICATOR_TYPES.map((t) => t.name)))
  })

  for (const row of TABLE) {
    it(`${row.type} ${JSON.stringify(row.values)} → ${row.properties}`, () => {
      const xml = cyboxProperties(row.type, row.values, row.values.filter(Boolean).join(' : '))
      const { raw, plain } = readProperties(xml)
      expect(raw['@xsi:type']).toBe(row.properties)
      for (const [k, v] of Object.entries(row.attrs)) expect(plain[`@${k}`]).toBe(v)
      expect(valueOf(row.type, plain, row.path)).toBe(row.expected)
    })
  }

  const skip = schemasUnavailable()
  if (skip) console.warn(`CybOX mapping: ${skip}`)
  it.skipIf(!!skip)(
    'every row, with descriptions, confidence, expiry and labels, is a valid STIX 1.1.1 package',
    async () => {
      const labels = [['TLP:RED'], ['TLP:AMBER+STRICT', 'Internal <only>'], ['TLP:CLEAR'], []]
      const indicators = TABLE.map((row, i) =>
        indicator(i + 1, row.type, row.values, {
          description: i % 2 ? `Seen in "${NASTY}"` : null,
          confidence: [null, 10, 50, 90][i % 4],
          expires: i % 3 ? null : '2027-01-01T00:00:00.000Z',
          securityLabels: labels[i % 4],
        }),
      )
      const packages = [
        renderPackage('https://bulwark.test', 'Owner <&> "Name"', indicators),
        ...indicators.map((i) => renderPackage('https://bulwark.test', NASTY, [i])),
      ]
      expect(await validateXml('stix', packages)).toEqual({})
      // The check itself can fail: a Title after the Observable breaks the Indicator's sequence.
      const broken = packages[1].replace(
        /(<indicator:Title>[^<]*<\/indicator:Title>)([\s\S]*?<\/indicator:Observable>)/,
        '$2$1',
      )
      expect(Object.keys(await validateXml('stix', [packages[1], broken]))).toEqual(['1'])
      expect(packages[0]).toContain(
        '<marking:Marking_Structure xsi:type="tlpMarking:TLPMarkingStructureType" color="AMBER"/><marking:Marking_Structure xsi:type="simpleMarking:SimpleMarkingStructureType"><simpleMarking:Statement>Internal &lt;only&gt;</simpleMarking:Statement></marking:Marking_Structure>',
      )
      expect(packages[0]).toContain(
        '<indicator:Confidence><stixCommon:Value xsi:type="stixVocabs:HighMediumLowVocab-1.0">High</stixCommon:Value></indicator:Confidence>',
      )
      expect(packages[0]).toContain(
        '<indicator:Producer><stixCommon:Identity><stixCommon:Name>Owner &lt;&amp;&gt; "Name"</stixCommon:Name></stixCommon:Identity></indicator:Producer>',
      )
    },
  )
})

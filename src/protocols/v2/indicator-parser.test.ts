/**
 * Every v2 Indicator record, in every list and single read, carries what the v2 SDK's parser
 * (threatconnect-python, IndicatorObjectParser.parse_typed_indicator) needs: it picks the type
 * from which keys a record has, in a fixed order, and takes the value from those keys.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, createTestApp } from '../../test/harness.js'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(async () => {
  await t.close()
})

const call = async (method: 'GET' | 'POST', url: string, payload?: object) => {
  const res = await t.request({ method, url: `/api/v2${url}`, payload })
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`)
  return res.json()
}

/** The parser's decision, in its order: what it would build from one record. */
function sdkParse(record: Record<string, unknown>): { kind: string; value: unknown } {
  if ('ip' in record) return { kind: 'Address', value: record.ip }
  if ('address' in record) return { kind: 'EmailAddress', value: record.address }
  if ('md5' in record || 'sha1' in record || 'sha256' in record)
    return { kind: 'File', value: record.sha256 ?? record.sha1 ?? record.md5 }
  if ('hostName' in record || 'dnsActive' in record || 'whoisActive' in record)
    return { kind: 'Host', value: record.hostName }
  if ('text' in record || 'source' in record) return { kind: 'URL', value: record.text }
  // Past those keys the record's `type` decides, and `summary` is the value (split on ' : ' for custom types).
  return { kind: String(record.type), value: record.summary }
}

const INDICATORS: Array<[string, object, { kind: string; value: string }]> = [
  ['addresses', { ip: '192.0.2.10', source: 'feed' }, { kind: 'Address', value: '192.0.2.10' }],
  ['emailAddresses', { address: 'parser@example.org' }, { kind: 'EmailAddress', value: 'parser@example.org' }],
  ['files', { md5: '900150983CD24FB0D6963F7D28E17F72' }, { kind: 'File', value: '900150983CD24FB0D6963F7D28E17F72' }],
  ['hosts', { hostName: 'parser.example.net', source: 'feed' }, { kind: 'Host', value: 'parser.example.net' }],
  [
    'urls',
    { text: 'http://parser.example.net/a', source: 'feed' },
    { kind: 'URL', value: 'http://parser.example.net/a' },
  ],
  ['asns', { 'AS Number': 'ASN64501', source: 'feed' }, { kind: 'ASN', value: 'ASN64501' }],
  ['cidrBlocks', { Block: '198.51.100.0/24', source: 'feed' }, { kind: 'CIDR', value: '198.51.100.0/24' }],
  ['mutexes', { Mutex: 'parser-mutex', source: 'feed' }, { kind: 'Mutex', value: 'parser-mutex' }],
  [
    'registryKeys',
    { 'Key Name': 'HKCU\\Parser', 'Value Name': 'v', 'Value Type': 'REG_SZ' },
    { kind: 'Registry Key', value: 'HKCU\\Parser : v : REG_SZ' },
  ],
  ['userAgents', { 'User Agent String': 'Parser/1.0', source: 'feed' }, { kind: 'User Agent', value: 'Parser/1.0' }],
]

const VALUE_KEYS: Record<string, string[]> = {
  Address: ['ip'],
  EmailAddress: ['address'],
  File: ['md5'],
  Host: ['hostName', 'dnsActive', 'whoisActive'],
  URL: ['text'],
  ASN: ['AS Number'],
  CIDR: ['Block'],
  Mutex: ['Mutex'],
  'Registry Key': ['Key Name', 'Value Name', 'Value Type'],
  'User Agent': ['User Agent String'],
}

describe('v2 Indicator records as the v2 SDK parses them', () => {
  it("carry each type's value fields in every list and single read", async () => {
    const group = (await call('POST', '/groups/adversaries', { name: 'Parser Adversary' })).data.adversary.id
    const task = (await call('POST', '/tasks', { name: 'Parser Task' })).data.task.id
    const victim = (await call('POST', '/victims', { name: 'Parser Victim' })).data.victim.id
    await call('POST', `/victims/${victim}/victimAssets/phoneNumbers`, { phoneType: '555-0101' })
    await call('POST', `/groups/adversaries/${group}/victims/${victim}`)
    const singles: Array<Record<string, unknown>> = []
    for (const [branch, body] of INDICATORS) {
      const created = await call('POST', `/indicators/${branch}`, body)
      const record = Object.values(created.data)[0] as Record<string, unknown>
      const path = `/indicators/${branch}/${encodeURIComponent(String(record.summary))}`
      await call('POST', `${path}/tags/Parsed`)
      await call('POST', `${path}/securityLabels/TLP:GREEN`)
      await call('POST', `${path}/groups/adversaries/${group}`)
      await call('POST', `${path}/tasks/${task}`)
      singles.push(record, Object.values((await call('GET', path)).data)[0] as Record<string, unknown>)
      const typed = (await call('GET', `/indicators/${branch}`)).data
      singles.push(...(Object.values(typed).find(Array.isArray) as Array<Record<string, unknown>>))
    }
    const expected = INDICATORS.map(([, , parsed]) => parsed).sort((a, b) => a.kind.localeCompare(b.kind))
    for (const url of [
      '/indicators',
      `/groups/adversaries/${group}/indicators`,
      `/tasks/${task}/indicators`,
      `/victims/${victim}/indicators`,
      '/tags/Parsed/indicators',
      '/securityLabels/TLP:GREEN/indicators',
      '/indicators?includes=additional',
    ]) {
      const list = (await call('GET', url)).data.indicator as Array<Record<string, unknown>>
      expect(
        list.map(sdkParse).sort((a, b) => a.kind.localeCompare(b.kind)),
        url,
      ).toEqual(expected)
      // Not only parsable: every record carries its type's value fields by name, as the typed lists do.
      for (const record of list)
        expect(Object.keys(record), `${url} ${String(record.type)}`).toEqual(
          expect.arrayContaining(VALUE_KEYS[String(record.type)]),
        )
    }
    const bulk = (await t.request({ method: 'GET', url: '/api/v2/indicators/bulk/json?runNow=true' })).json()
      .indicator as Array<Record<string, unknown>>
    expect(bulk.map(sdkParse).sort((a, b) => a.kind.localeCompare(b.kind))).toEqual(expected)
    expect(singles).toHaveLength(30)
    const byType = new Map(INDICATORS.map(([, , parsed]) => [parsed.kind, parsed]))
    for (const record of singles) expect(sdkParse(record)).toEqual(byType.get(String(record.type)))
  })

  it('keep the source of the built-in types, which the parser cannot mistake for a URL', async () => {
    const host = (await call('GET', '/indicators/hosts/parser.example.net')).data.host
    expect([host.source, host.hostName, host.dnsActive, host.whoisActive]).toEqual([
      'feed',
      'parser.example.net',
      'false',
      'false',
    ])
    expect((await call('GET', '/indicators/asns/ASN64501')).data.asn.source).toBeUndefined()
  })
})

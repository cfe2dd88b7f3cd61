import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ORG, type TestApp, createTestApp } from '../../test/harness.js'
import { announceSkip, runClientScript } from '../../test/real-clients.js'
import { CONTENT_BINDING_STIX_111, MESSAGE_BINDING, PROTOCOL_HTTPS, SERVICES_VERSION } from './constants.js'

const HERE = dirname(fileURLToPath(import.meta.url))
const skip = announceSkip('TAXII 1.1 real clients (cabby, libtaxii)')
const BEGIN = '2026-04-01T00:00:00.000Z'
const at = (minute: number) => new Date(Date.parse(BEGIN) + minute * 60_000).toISOString()

/** 13 Indicators of every type inside the window, one on its (exclusive) begin, one after its end. */
const ROWS: { type: string; summary: string; v: (string | null)[] }[] = [
  { type: 'Address', summary: '192.0.2.7', v: ['192.0.2.7'] },
  { type: 'EmailAddress', summary: 'mallory@example.com', v: ['mallory@example.com'] },
  { type: 'File', summary: 'D41D8CD98F00B204E9800998ECF8427E', v: ['D41D8CD98F00B204E9800998ECF8427E', null, null] },
  { type: 'Host', summary: 'c2.example', v: ['c2.example'] },
  { type: 'URL', summary: 'https://c2.example/gate.php?id=1&x=<y>', v: ['https://c2.example/gate.php?id=1&x=<y>'] },
  { type: 'ASN', summary: 'AS64500', v: ['AS64500'] },
  { type: 'CIDR', summary: '198.51.100.0/24', v: ['198.51.100.0/24'] },
  { type: 'Mutex', summary: 'Global\\evil"mutex"', v: ['Global\\evil"mutex"'] },
  {
    type: 'Registry Key',
    summary: 'HKEY_CURRENT_USER\\Software\\Run : evil : REG_SZ',
    v: ['HKEY_CURRENT_USER\\Software\\Run', 'evil', 'REG_SZ'],
  },
  { type: 'User Agent', summary: 'EvilBot/1.0 (<&>)', v: ['EvilBot/1.0 (<&>)'] },
  { type: 'Host', summary: 'b.example', v: ['b.example'] },
  { type: 'Host', summary: 'c.example', v: ['c.example'] },
  { type: 'Host', summary: 'd.example', v: ['d.example'] },
]

describe.skipIf(skip)('TAXII 1.1 with real clients', () => {
  let t: TestApp
  let env: Record<string, string>

  beforeAll(async () => {
    t = await createTestApp({ listen: true, taxii11Poll: { partSize: 4, blockSize: 2 } })
    const org = (await t.store.db.selectFrom('owner').select('id').where('name', '=', ORG).executeTakeFirstOrThrow()).id
    await t.createOwner('Client Community', 'Community')
    const password = 'real-client-password-1'
    const { userName } = await t.createAccount({ kind: 'taxii', password, memberships: { 'Client Community': 'User' } })
    const rows = [
      ...ROWS.map((r, i) => ({ ...r, lastModified: at(60 + i) })),
      { type: 'Host', summary: 'on-begin.example', v: ['on-begin.example'], lastModified: BEGIN },
      { type: 'Host', summary: 'after-end.example', v: ['after-end.example'], lastModified: at(24 * 60 + 1) },
    ]
    await t.store.db
      .insertInto('indicator')
      .values(
        rows.map((r) => ({
          owner_id: org,
          type: r.type,
          summary: r.summary,
          value1: r.v[0],
          value2: r.v[1] ?? null,
          value3: r.v[2] ?? null,
          date_added: r.lastModified,
          last_modified: r.lastModified,
          rating: 4,
          confidence: 90,
        })),
      )
      .execute()
    const url = new URL(t.baseUrl)
    env = {
      TAXII_HOST: url.hostname,
      TAXII_PORT: url.port,
      TAXII_USER: userName,
      TAXII_PASSWORD: password,
      COLLECTION: ORG,
      POLL_BEGIN: BEGIN,
    }
  })
  afterAll(() => t?.close())

  it('cabby discovers, lists collections, polls 24 hours through Poll_Fulfillment, and is refused a wider window and an unknown collection', async () => {
    const { result } = await runClientScript<any>(join(HERE, 'cabby-client.py'), env)
    const poll = `${t.baseUrl}/api/taxii/poll/`
    expect(result.services).toEqual([
      ['COLLECTION_MANAGEMENT', `${t.baseUrl}/api/taxii/collection-management/`, PROTOCOL_HTTPS],
      ['DISCOVERY', `${t.baseUrl}/api/taxii/discovery/`, PROTOCOL_HTTPS],
      ['POLL', poll, PROTOCOL_HTTPS],
    ])
    expect(result.collections).toEqual([
      [ORG, 'DATA_FEED', true, [CONTENT_BINDING_STIX_111], [poll]],
      ['Client Community', 'DATA_FEED', true, [CONTENT_BINDING_STIX_111], [poll]],
    ])
    // 13 Indicators in parts of 4 (blocks of 2): 4 parts, 7 blocks; the Indicator on the begin is left out.
    expect(result.poll).toEqual({ blocks: 7, titles: ROWS.map((r) => r.summary) })
    expect(result.count).toBe(7)
    expect(result.wider[0]).toBe('BAD_MESSAGE')
    expect(result.wider[1]).toMatch(/^The poll window is 24\.00 hours wide/)
    expect(result.unknown).toEqual([
      'NOT_FOUND',
      "No collection named 'No Such Collection' is available to this account",
    ])
    expect(result.bad_credentials).toEqual(['HTTP', 'HTTP Error: status code 401'])
  })

  it('libtaxii: its messages, HTTP client and schema validator agree with every answer', async () => {
    const { result } = await runClientScript<any>(join(HERE, 'libtaxii-client.py'), env)
    expect(result.invalid).toEqual([])
    expect(result.headers).toEqual(['application/xml', MESSAGE_BINDING, PROTOCOL_HTTPS, SERVICES_VERSION])
    expect(result.discovery.map((s: any[]) => [s[0], s[1], s[2], s[3]])).toEqual([
      ['DISCOVERY', `${t.baseUrl}/api/taxii/discovery/`, PROTOCOL_HTTPS, [MESSAGE_BINDING]],
      ['COLLECTION_MANAGEMENT', `${t.baseUrl}/api/taxii/collection-management/`, PROTOCOL_HTTPS, [MESSAGE_BINDING]],
      ['POLL', `${t.baseUrl}/api/taxii/poll/`, PROTOCOL_HTTPS, [MESSAGE_BINDING]],
    ])
    expect(result.collections.map((c: any[]) => c.slice(0, 3))).toEqual([
      [ORG, 'DATA_FEED', true],
      ['Client Community', 'DATA_FEED', true],
    ])
    expect(result.parts).toEqual([
      ['Poll_Response', true, 1, 2, 7],
      ['Poll_Response', true, 2, 2, 7],
      ['Poll_Response', true, 3, 2, 7],
      ['Poll_Response', false, 4, 1, 7],
    ])
    expect(result.blocks).toBe(7)
    expect(result.block_binding).toBe(CONTENT_BINDING_STIX_111)
    expect(result.wide.slice(0, 2)).toEqual(['Status_Message', 'BAD_MESSAGE'])
    expect(result.inbox).toEqual(['Status_Message', 'DESTINATION_COLLECTION_ERROR'])
  })
})

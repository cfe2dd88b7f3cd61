import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ORG, PUBLIC_URL, type TestApp, createTestApp } from '../../test/harness.js'
import {
  type Credentials,
  fulfillment,
  message,
  pollRequest,
  readXml,
  statusOf,
  taxiiRequest,
} from '../../test/taxii11-client.js'
import { schemasUnavailable, stixPackagesOf, validateXml } from '../../test/xml-schemas.js'
import { CONTENT_BINDING_STIX_111, MESSAGE_BINDING, PROTOCOL_HTTPS, SERVICES_VERSION } from './constants.js'

let t: TestApp
let reader: Credentials
let owners: Record<string, number>
/** Every response body of a TAXII message, validated at the end of the file. */
const responses: string[] = []

const POLL = '/api/taxii/poll/'
const DAY = '2026-03-01'

async function send(
  path: string,
  body: string,
  as: Credentials | null = reader,
  headers: Record<string, string | undefined> = {},
): Promise<LightMyRequestResponse> {
  const res = await taxiiRequest(t, path, body, as, headers)
  responses.push(res.body)
  return res
}

function expectBindingHeaders(res: LightMyRequestResponse) {
  expect(res.headers['content-type']).toMatch(/^application\/xml/)
  expect(res.headers['x-taxii-content-type']).toBe(MESSAGE_BINDING)
  expect(res.headers['x-taxii-protocol']).toBe(PROTOCOL_HTTPS)
  expect(res.headers['x-taxii-services']).toBe(SERVICES_VERSION)
}

function expectStatus(res: LightMyRequestResponse, type: string, inResponseTo: string, http = 200) {
  expectBindingHeaders(res)
  expect(res.statusCode).toBe(http)
  const status = statusOf(res)
  expect(status, res.body).toBeDefined()
  expect(status).toMatchObject({ type, inResponseTo })
  expect(res.body).not.toMatch(/at \w+ \(|node_modules|<html/i)
  return status!
}

async function insertIndicators(
  ownerId: number,
  rows: {
    type: string
    summary: string
    v?: (string | null)[]
    lastModified: string
    confidence?: number | null
    description?: string
  }[],
) {
  await t.store.db
    .insertInto('indicator')
    .values(
      rows.map((r) => ({
        owner_id: ownerId,
        type: r.type,
        summary: r.summary,
        value1: r.v?.[0] ?? r.summary,
        value2: r.v?.[1] ?? null,
        value3: r.v?.[2] ?? null,
        date_added: r.lastModified,
        last_modified: r.lastModified,
        rating: 3,
        confidence: r.confidence === undefined ? 80 : r.confidence,
        description: r.description ?? null,
      })),
    )
    .execute()
}

const at = (minute: number) => new Date(Date.parse(`${DAY}T00:00:00.000Z`) + minute * 60_000).toISOString()

beforeAll(async () => {
  t = await createTestApp({ taxii11Poll: { partSize: 6, blockSize: 3 } })
  owners = {
    org: (await t.store.db.selectFrom('owner').select('id').where('name', '=', ORG).executeTakeFirstOrThrow()).id,
    community: await t.createOwner('Sharing <Community> & "Friends"', 'Community'),
    banned: await t.createOwner('Banned Community', 'Community'),
    source: await t.createOwner('Feed Source', 'Source'),
    unrelated: await t.createOwner('Unrelated Community', 'Community'),
  }
  reader = { userName: '', password: 'taxii-reader-password-1' }
  reader.userName = (
    await t.createAccount({
      kind: 'taxii',
      password: reader.password,
      memberships: {
        'Sharing <Community> & "Friends"': 'User',
        'Banned Community': 'Banned',
        'Feed Source': 'Subscriber',
      },
    })
  ).userName
  // 20 Indicators in the Organization, one per hour of DAY (minutes 0, 60 … 1140), then 3 on the next day.
  await insertIndicators(
    owners.org,
    Array.from({ length: 20 }, (_, i) => ({ type: 'Host', summary: `host-${i}.example`, lastModified: at(i * 60) })),
  )
  await insertIndicators(
    owners.org,
    Array.from({ length: 3 }, (_, i) => ({ type: 'Address', summary: `10.0.0.${i}`, lastModified: at(24 * 60 + i) })),
  )
  await insertIndicators(owners.community, [
    { type: 'URL', summary: 'https://evil.example/a?b=1&c=<2>', lastModified: at(5) },
  ])
  await insertIndicators(owners.banned, [{ type: 'Host', summary: 'banned.example', lastModified: at(5) }])
})
afterAll(() => t.close())

describe('HTTP binding', () => {
  it('answers Discovery_Request on the path with and without its trailing slash, with the binding headers', async () => {
    for (const path of ['/api/taxii/discovery/', '/api/taxii/discovery']) {
      const res = await send(path, message('Discovery_Request', { message_id: 'd-1' }))
      expect(res.statusCode).toBe(200)
      expectBindingHeaders(res)
      const doc = readXml(res.body).Discovery_Response
      expect(doc['@in_response_to']).toBe('d-1')
      expect(doc['@message_id']).toMatch(/^[0-9a-f-]{36}$/)
      expect(
        doc.Service_Instance.map((s: any) => [
          s['@service_type'],
          s['@service_version'],
          s['@available'],
          s.Protocol_Binding,
          s.Address,
          s.Message_Binding,
          s.Content_Binding?.['@binding_id'],
        ]),
      ).toEqual([
        [
          'DISCOVERY',
          SERVICES_VERSION,
          'true',
          PROTOCOL_HTTPS,
          `${PUBLIC_URL}/api/taxii/discovery/`,
          MESSAGE_BINDING,
          undefined,
        ],
        [
          'COLLECTION_MANAGEMENT',
          SERVICES_VERSION,
          'true',
          PROTOCOL_HTTPS,
          `${PUBLIC_URL}/api/taxii/collection-management/`,
          MESSAGE_BINDING,
          undefined,
        ],
        [
          'POLL',
          SERVICES_VERSION,
          'true',
          PROTOCOL_HTTPS,
          `${PUBLIC_URL}/api/taxii/poll/`,
          MESSAGE_BINDING,
          CONTENT_BINDING_STIX_111,
        ],
      ])
    }
  })

  it('refuses a missing or foreign X-TAXII-Content-Type or X-TAXII-Accept with UNSUPPORTED_MESSAGE naming the supported binding', async () => {
    const body = message('Discovery_Request', { message_id: 'h-1' })
    for (const headers of [
      { 'x-taxii-content-type': undefined },
      { 'x-taxii-content-type': 'urn:taxii.mitre.org:message:xml:1.0' },
      { 'x-taxii-accept': 'urn:taxii.mitre.org:message:xml:1.0' },
    ]) {
      const status = expectStatus(
        await send('/api/taxii/discovery/', body, reader, headers),
        'UNSUPPORTED_MESSAGE',
        'h-1',
      )
      expect(status.details).toEqual({ SUPPORTED_BINDING: MESSAGE_BINDING })
    }
  })

  it('refuses a missing or foreign X-TAXII-Services with BAD_MESSAGE', async () => {
    const body = message('Discovery_Request', { message_id: 'h-2' })
    for (const value of [undefined, 'urn:taxii.mitre.org:services:1.0']) {
      const status = expectStatus(
        await send('/api/taxii/discovery/', body, reader, { 'x-taxii-services': value }),
        'BAD_MESSAGE',
        'h-2',
      )
      expect(status.message).toContain('X-TAXII-Services')
    }
  })

  it('takes the HTTP and HTTPS protocol binding ids (or none), refuses others and plain HTTP with UNSUPPORTED_PROTOCOL', async () => {
    const body = message('Discovery_Request', { message_id: 'h-3' })
    for (const value of [undefined, 'urn:taxii.mitre.org:protocol:http:1.0', PROTOCOL_HTTPS]) {
      expect((await send('/api/taxii/discovery/', body, reader, { 'x-taxii-protocol': value })).statusCode).toBe(200)
    }
    const foreign = expectStatus(
      await send('/api/taxii/discovery/', body, reader, { 'x-taxii-protocol': 'urn:example:carrier-pigeon' }),
      'UNSUPPORTED_PROTOCOL',
      'h-3',
    )
    expect(foreign.details).toEqual({ SUPPORTED_PROTOCOL: PROTOCOL_HTTPS })
    const plain = expectStatus(
      await send('/api/taxii/discovery/', body, reader, { 'x-forwarded-proto': undefined }),
      'UNSUPPORTED_PROTOCOL',
      'h-3',
    )
    expect(plain.message).toContain('HTTPS')
  })

  it('refuses a body that is not application/xml with UNSUPPORTED_MESSAGE, before reading it', async () => {
    const res = await send('/api/taxii/discovery/', '{"message_id":"x"}', reader, {
      'content-type': 'application/json',
    })
    expect(expectStatus(res, 'UNSUPPORTED_MESSAGE', '0').message).toBe('Content-Type must be application/xml')
  })

  it('answers GET and unknown TAXII paths with a Status_Message, not the REST envelope', async () => {
    const get = await t.app.inject({
      method: 'GET',
      url: '/api/taxii/poll/',
      headers: { 'x-forwarded-proto': 'https' },
    })
    expect(expectStatus(get, 'BAD_MESSAGE', '0', 405).message).toBe('TAXII services take POST, not GET')
    const unknown = await send('/api/taxii/inbox/', message('Inbox_Message', { message_id: 'u-1' }))
    expect(expectStatus(unknown, 'NOT_FOUND', '0', 404).details).toEqual({ ITEM: '/api/taxii/inbox/' })
  })

  it('sends a message to the service that takes it: others are UNSUPPORTED_MESSAGE, Inbox_Message a DESTINATION_COLLECTION_ERROR', async () => {
    const wrong = await send('/api/taxii/discovery/', pollRequest('m-1', ORG, at(0), at(60)))
    expect(expectStatus(wrong, 'UNSUPPORTED_MESSAGE', 'm-1').message).toBe(
      'The DISCOVERY service does not take Poll_Request: send it to poll/',
    )
    const subscription = await send(
      '/api/taxii/collection-management/',
      message('Manage_Collection_Subscription_Request', {
        message_id: 'm-2',
        collection_name: ORG,
        action: 'SUBSCRIBE',
      }),
    )
    expect(expectStatus(subscription, 'UNSUPPORTED_MESSAGE', 'm-2').message).toBe(
      'Manage_Collection_Subscription_Request is not supported by this server',
    )
    const inbox = await send(POLL, message('Inbox_Message', { message_id: 'm-3' }))
    expect(expectStatus(inbox, 'DESTINATION_COLLECTION_ERROR', 'm-3').message).toContain('read-only')
  })

  it('refuses a TAXII 1.0 message and a message without message_id with the right status', async () => {
    const v10 =
      '<taxii:Discovery_Request xmlns:taxii="http://taxii.mitre.org/messages/taxii_xml_binding-1" message_id="v10"/>'
    expect(expectStatus(await send('/api/taxii/discovery/', v10), 'UNSUPPORTED_MESSAGE', 'v10').details).toEqual({
      SUPPORTED_BINDING: MESSAGE_BINDING,
    })
    expect(
      expectStatus(await send('/api/taxii/discovery/', message('Discovery_Request', {})), 'BAD_MESSAGE', '0').message,
    ).toBe('Discovery_Request has no message_id')
  })
})

describe('authentication', () => {
  it('answers missing or wrong Basic credentials, and non-TAXII accounts, with UNAUTHORIZED and HTTP 401', async () => {
    const api = await t.createAccount({ kind: 'api' })
    const body = message('Collection_Information_Request', { message_id: 'a-1' })
    const cases: [Credentials | null, Record<string, string>][] = [
      [null, {}],
      [{ userName: reader.userName, password: 'wrong-password' }, {}],
      [{ userName: 'nobody', password: 'x' }, {}],
      [null, { authorization: `TC-Token ${api.token}` }],
      [{ userName: api.userName, password: 'whatever' }, {}],
    ]
    for (const [as, headers] of cases) {
      const res = await send('/api/taxii/collection-management/', body, as, headers)
      expectStatus(res, 'UNAUTHORIZED', 'a-1', 401)
      expect(res.headers['www-authenticate']).toBe('Basic realm="Bulwark TAXII"')
      expect(res.body).not.toContain('<Collection ')
    }
  })
})

describe('collection management', () => {
  it('lists one DATA_FEED per owner the account may read, named by the owner, with STIX 1.1.1 and the poll service', async () => {
    const res = await send(
      '/api/taxii/collection-management/',
      message('Collection_Information_Request', { message_id: 'c-1' }),
    )
    expect(res.statusCode).toBe(200)
    expectBindingHeaders(res)
    const doc = readXml(res.body).Collection_Information_Response
    expect(doc['@in_response_to']).toBe('c-1')
    expect(
      doc.Collection.map((c: any) => [
        c['@collection_name'],
        c['@collection_type'],
        c['@available'],
        c.Content_Binding['@binding_id'],
        c.Polling_Service.Protocol_Binding,
        c.Polling_Service.Address,
        c.Polling_Service.Message_Binding,
      ]),
    ).toEqual([
      [
        ORG,
        'DATA_FEED',
        'true',
        CONTENT_BINDING_STIX_111,
        PROTOCOL_HTTPS,
        `${PUBLIC_URL}/api/taxii/poll/`,
        MESSAGE_BINDING,
      ],
      [
        'Sharing <Community> & "Friends"',
        'DATA_FEED',
        'true',
        CONTENT_BINDING_STIX_111,
        PROTOCOL_HTTPS,
        `${PUBLIC_URL}/api/taxii/poll/`,
        MESSAGE_BINDING,
      ],
      [
        'Feed Source',
        'DATA_FEED',
        'true',
        CONTENT_BINDING_STIX_111,
        PROTOCOL_HTTPS,
        `${PUBLIC_URL}/api/taxii/poll/`,
        MESSAGE_BINDING,
      ],
    ])
    expect(doc.Collection[1].Description).toBe(
      'Indicators of the Community Sharing <Community> & "Friends", as STIX 1.1.1, polled by windows of at most 24 hours.',
    )
    expect(res.body).not.toContain('Banned Community')
    expect(res.body).not.toContain('Unrelated Community')
  })
})

function indicatorsOf(res: LightMyRequestResponse): string[] {
  const blocks = readXml(res.body).Poll_Response.Content_Block ?? []
  return blocks.flatMap((b: any) => b.Content.STIX_Package.Indicators.Indicator.map((i: any) => i.Title))
}

describe('poll', () => {
  it('serves a 24-hour window as a Poll_Response: STIX packages of Indicators, Record_Count, timestamps, block labels', async () => {
    const res = await send(POLL, pollRequest('p-1', 'Sharing <Community> & "Friends"', at(0), at(24 * 60)))
    expect(res.statusCode).toBe(200)
    expectBindingHeaders(res)
    const doc = readXml(res.body).Poll_Response
    expect(doc).toMatchObject({
      '@in_response_to': 'p-1',
      '@collection_name': 'Sharing <Community> & "Friends"',
      '@more': 'false',
      '@result_part_number': '1',
      Exclusive_Begin_Timestamp: at(0),
      Inclusive_End_Timestamp: at(24 * 60),
      Record_Count: { '#text': '1', '@partial_count': 'false' },
    })
    expect(doc['@result_id']).toBeUndefined()
    expect(doc.Content_Block).toHaveLength(1)
    const block = doc.Content_Block[0]
    expect(block.Content_Binding['@binding_id']).toBe(CONTENT_BINDING_STIX_111)
    expect(block.Timestamp_Label).toBe(at(5))
    const indicator = block.Content.STIX_Package.Indicators.Indicator[0]
    expect(indicator.Title).toBe('https://evil.example/a?b=1&c=<2>')
    expect(indicator.Observable.Object.Properties.Value).toEqual({
      '#text': 'https://evil.example/a?b=1&c=<2>',
      '@condition': 'Equals',
    })
    expect(res.body).toContain(
      '<cybox:Properties xsi:type="URIObj:URIObjectType" type="URL"><URIObj:Value condition="Equals">https://evil.example/a?b=1&amp;c=&lt;2&gt;</URIObj:Value>',
    )
  })

  it('keeps the begin exclusive and the end inclusive', async () => {
    const res = await send(POLL, pollRequest('p-2', ORG, at(60), at(180)))
    expect(indicatorsOf(res)).toEqual(['host-2.example', 'host-3.example'])
  })

  it('refuses a window wider than 24 hours, an inverted one and a missing begin with BAD_MESSAGE; a missing end is now', async () => {
    const wide = expectStatus(await send(POLL, pollRequest('w-1', ORG, at(0), at(24 * 60 + 1))), 'BAD_MESSAGE', 'w-1')
    expect(wide.message).toBe(
      'The poll window is 24.02 hours wide; at most 24 hours may lie between Exclusive_Begin_Timestamp and Inclusive_End_Timestamp',
    )
    const inverted = expectStatus(await send(POLL, pollRequest('w-2', ORG, at(60), at(0))), 'BAD_MESSAGE', 'w-2')
    expect(inverted.message).toBe(`Inclusive_End_Timestamp (${at(0)}) is before Exclusive_Begin_Timestamp (${at(60)})`)
    expect(
      expectStatus(await send(POLL, pollRequest('w-3', ORG, undefined, at(60))), 'BAD_MESSAGE', 'w-3').message,
    ).toBe('Exclusive_Begin_Timestamp is required: a poll covers at most 24 hours')
    expect(
      expectStatus(await send(POLL, pollRequest('w-4', ORG, 'yesterday', at(60))), 'BAD_MESSAGE', 'w-4').message,
    ).toBe("Exclusive_Begin_Timestamp is not an xs:dateTime: 'yesterday'")
    const old = expectStatus(await send(POLL, pollRequest('w-5', ORG, at(0))), 'BAD_MESSAGE', 'w-5')
    expect(old.message).toMatch(/^The poll window is \d+\.\d\d hours wide/)
    const begin = new Date(Date.now() - 3_600_000).toISOString()
    const recent = await send(POLL, pollRequest('w-6', ORG, begin))
    const end = Date.parse(readXml(recent.body).Poll_Response.Inclusive_End_Timestamp)
    expect(Math.abs(end - Date.now())).toBeLessThan(60_000)
  })

  it('clamps an end in the future to now, so the answer never claims a time not yet seen', async () => {
    const begin = new Date(Date.now() - 3_600_000).toISOString()
    const future = new Date(Date.now() + 3_600_000).toISOString()
    const res = await send(POLL, pollRequest('f-1', ORG, begin, future))
    expect(Date.parse(readXml(res.body).Poll_Response.Inclusive_End_Timestamp)).toBeLessThanOrEqual(Date.now())
  })

  it('answers an unknown collection, and a Banned or unrelated owner, with NOT_FOUND naming the collection', async () => {
    for (const name of ['No Such Owner', 'Banned Community', 'Unrelated Community']) {
      const status = expectStatus(await send(POLL, pollRequest('n-1', name, at(0), at(60))), 'NOT_FOUND', 'n-1')
      expect(status.details).toEqual({ ITEM: name })
      expect(status.message).toBe(`No collection named '${name}' is available to this account`)
    }
  })

  it('answers COUNT_ONLY with the Record_Count alone: the Content_Blocks a FULL poll would deliver', async () => {
    const res = await send(
      POLL,
      pollRequest('k-1', ORG, at(0), at(24 * 60), '<taxii_11:Response_Type>COUNT_ONLY</taxii_11:Response_Type>'),
    )
    const doc = readXml(res.body).Poll_Response
    // 20 Indicators in blocks of 3.
    expect(doc.Record_Count['#text']).toBe('7')
    expect(doc['@more']).toBe('false')
    expect(doc.Content_Block).toBeUndefined()
  })

  it('refuses queries, subscriptions, pushed delivery and other content bindings with their status types', async () => {
    const query = pollRequest(
      'q-1',
      ORG,
      at(0),
      at(60),
      '<taxii_11:Response_Type>FULL</taxii_11:Response_Type><taxii_11:Query format_id="urn:taxii.mitre.org:query:default:1.0"/>',
    )
    expectStatus(await send(POLL, query), 'UNSUPPORTED_QUERY', 'q-1')
    const subscription = message(
      'Poll_Request',
      { message_id: 'q-2', collection_name: ORG },
      '<taxii_11:Subscription_ID>sub-9</taxii_11:Subscription_ID>',
    )
    expect(expectStatus(await send(POLL, subscription), 'NOT_FOUND', 'q-2').details).toEqual({ ITEM: 'sub-9' })
    const push = pollRequest(
      'q-3',
      ORG,
      at(0),
      at(60),
      '<taxii_11:Response_Type>FULL</taxii_11:Response_Type><taxii_11:Delivery_Parameters/>',
    )
    expectStatus(await send(POLL, push), 'DENIED', 'q-3')
    const binding = pollRequest(
      'q-4',
      ORG,
      at(0),
      at(60),
      '<taxii_11:Response_Type>FULL</taxii_11:Response_Type><taxii_11:Content_Binding binding_id="urn:stix.mitre.org:xml:1.0"/>',
    )
    expect(expectStatus(await send(POLL, binding), 'UNSUPPORTED_CONTENT', 'q-4').details).toEqual({
      SUPPORTED_CONTENT: CONTENT_BINDING_STIX_111,
    })
    const stix = pollRequest(
      'q-5',
      ORG,
      at(0),
      at(60),
      `<taxii_11:Response_Type>FULL</taxii_11:Response_Type><taxii_11:Content_Binding binding_id="${CONTENT_BINDING_STIX_111}"/>`,
    )
    expect(indicatorsOf(await send(POLL, stix))).toEqual(['host-1.example'])
  })
})

describe('result parts', () => {
  async function pollAll(as: Credentials): Promise<{ parts: any[]; titles: string[]; resultId: string }> {
    const first = await send(POLL, pollRequest('r-1', ORG, at(0), at(24 * 60)), as)
    const parts = [readXml(first.body).Poll_Response]
    const titles = indicatorsOf(first)
    const resultId = parts[0]['@result_id']
    for (let n = 2; parts.at(-1)['@more'] === 'true'; n++) {
      const res = await send(POLL, fulfillment(`r-${n}`, ORG, resultId, n), as)
      expect(res.statusCode).toBe(200)
      parts.push(readXml(res.body).Poll_Response)
      titles.push(...indicatorsOf(res))
    }
    return { parts, titles, resultId }
  }

  it('splits a large result into parts of at most 6 Indicators, served in order by Poll_Fulfillment, each Indicator once', async () => {
    const { parts, titles, resultId } = await pollAll(reader)
    expect(resultId).toMatch(/^[0-9a-f-]{36}$/)
    expect(
      parts.map((p) => [
        p['@more'],
        p['@result_part_number'],
        p['@result_id'],
        p.Record_Count['#text'],
        p.Content_Block?.length ?? 0,
      ]),
    ).toEqual([
      ['true', '1', resultId, '7', 2],
      ['true', '2', resultId, '7', 2],
      ['true', '3', resultId, '7', 2],
      ['false', '4', resultId, '7', 1],
    ])
    // The begin is exclusive (host-0 is on it), the end inclusive (10.0.0.0 is on it).
    expect(titles).toEqual([...Array.from({ length: 19 }, (_, i) => `host-${i + 1}.example`), '10.0.0.0'])
    expect(parts[0].Content_Block.map((b: any) => b.Timestamp_Label)).toEqual([at(180), at(360)])
    expect(parts[3].Content_Block.map((b: any) => b.Timestamp_Label)).toEqual([at(24 * 60)])
    // Cabby asks for one part past the last and stops at an empty one.
    const after = await send(POLL, fulfillment('r-9', ORG, resultId, 5))
    expect(readXml(after.body).Poll_Response).toMatchObject({ '@more': 'false', '@result_part_number': '5' })
    expect(indicatorsOf(after)).toEqual([])
  })

  it('refuses a part not reached yet, an unknown result, another collection and another account', async () => {
    const { resultId } = await pollAll(reader)
    expectStatus(await send(POLL, fulfillment('x-1', ORG, resultId, 9)), 'INVALID_RESPONSE_PART', 'x-1')
    expect(
      expectStatus(await send(POLL, fulfillment('x-2', ORG, 'no-such-result', 2)), 'NOT_FOUND', 'x-2').details,
    ).toEqual({ ITEM: 'no-such-result' })
    expectStatus(await send(POLL, fulfillment('x-3', 'Feed Source', resultId, 2)), 'NOT_FOUND', 'x-3')
    const other = { userName: '', password: 'taxii-other-password-1' }
    other.userName = (await t.createAccount({ kind: 'taxii', password: other.password })).userName
    expectStatus(await send(POLL, fulfillment('x-4', ORG, resultId, 2), other), 'NOT_FOUND', 'x-4')
    expect(
      expectStatus(
        await send(
          POLL,
          message('Poll_Fulfillment', {
            message_id: 'x-5',
            collection_name: ORG,
            result_id: resultId,
            result_part_number: '0',
          }),
        ),
        'BAD_MESSAGE',
        'x-5',
      ).message,
    ).toBe("result_part_number must be a positive integer, not '0'")
  })

  it('any node can serve any part: the parts live in the database, not in the process', async () => {
    const first = await send(POLL, pollRequest('s-1', ORG, at(0), at(24 * 60)))
    const resultId = readXml(first.body).Poll_Response['@result_id']
    const rows = await t.store.db
      .selectFrom('feed_result_part')
      .select(['part_number', 'after_last_modified'])
      .where('result_id', '=', resultId)
      .orderBy('part_number')
      .execute()
    expect(rows).toEqual([
      { part_number: 1, after_last_modified: null },
      { part_number: 2, after_last_modified: at(360) },
    ])
  })
})

describe('XML attacks', () => {
  it('refuses DTDs, so external entities are never resolved', async () => {
    const xxe = `<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]><taxii_11:Discovery_Request xmlns:taxii_11="http://taxii.mitre.org/messages/taxii_xml_binding-1.1" message_id="&x;"/>`
    const res = await send('/api/taxii/discovery/', xxe)
    expect(expectStatus(res, 'BAD_MESSAGE', '0').message).toBe('DTDs and entity declarations are not accepted')
    expect(res.body).not.toContain('root:')
  })

  it('refuses entity expansion ("billion laughs") at once', async () => {
    const entities = Array.from({ length: 10 }, (_, i) => `<!ENTITY l${i + 1} "${`&l${i};`.repeat(10)}">`).join('')
    const bomb = `<?xml version="1.0"?><!DOCTYPE d [<!ENTITY l0 "lol">${entities}]><taxii_11:Discovery_Request xmlns:taxii_11="http://taxii.mitre.org/messages/taxii_xml_binding-1.1" message_id="&l10;"/>`
    const started = Date.now()
    expectStatus(await send('/api/taxii/discovery/', bomb), 'BAD_MESSAGE', '0')
    expect(Date.now() - started).toBeLessThan(2000)
  })

  it('refuses very deep nesting and bodies over 1 MiB', async () => {
    const deep = message(
      'Discovery_Request',
      { message_id: 'deep' },
      `${'<a>'.repeat(100_000)}${'</a>'.repeat(100_000)}`,
    )
    expect(expectStatus(await send('/api/taxii/discovery/', deep), 'BAD_MESSAGE', '0').message).toBe(
      'The message nests deeper than 32 elements',
    )
    const large = message('Discovery_Request', { message_id: 'large' }, `<!--${'x'.repeat(1024 * 1024)}-->`)
    expect(expectStatus(await send('/api/taxii/discovery/', large), 'BAD_MESSAGE', '0').message).toBe(
      'The message is larger than 1048576 bytes',
    )
  })

  it('refuses malformed XML with BAD_MESSAGE in response to 0', async () => {
    for (const body of ['<taxii_11:Discovery_Request', 'not xml at all', '<a><b></a>']) {
      expectStatus(await send('/api/taxii/discovery/', body), 'BAD_MESSAGE', '0')
    }
  })
})

describe('schemas', () => {
  const skip = schemasUnavailable()
  if (skip) console.warn(`TAXII 1.1: ${skip}`)

  it.skipIf(!!skip)(
    'every response of this file is a valid TAXII 1.1 message, and every content block valid STIX 1.1.1',
    async () => {
      const messages = responses.filter((r) => r.startsWith('<?xml'))
      expect(messages.length).toBeGreaterThan(50)
      expect(await validateXml('taxii', messages)).toEqual({})
      const packages = messages.flatMap(stixPackagesOf)
      expect(packages.length).toBeGreaterThan(10)
      expect(await validateXml('stix', packages)).toEqual({})
    },
  )
})

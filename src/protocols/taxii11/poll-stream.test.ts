import { request } from 'node:https'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ORG, type TestApp, createTestApp } from '../../test/harness.js'
import { BINDING_REQUEST_HEADERS, type Credentials, basic, message, pollRequest } from '../../test/taxii11-client.js'

let t: TestApp
let reader: Credentials
const BEGIN = '2026-05-01T00:00:00.000Z'

/** POSTs over real HTTPS; `stopAfter` bytes into the answer the client hangs up. */
function post(
  path: string,
  body: string,
  stopAfter?: number,
): Promise<{ status: number; text: string; aborted: boolean }> {
  const url = new URL(t.baseUrl)
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: 'POST',
        rejectUnauthorized: false,
        headers: { ...BINDING_REQUEST_HEADERS, authorization: basic(reader) },
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => {
          text += chunk
          if (stopAfter !== undefined && text.length >= stopAfter) {
            req.destroy()
            resolve({ status: res.statusCode ?? 0, text, aborted: true })
          }
        })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, aborted: false }))
        res.on('error', () => {})
      },
    )
    req.on('error', (error) => (stopAfter === undefined ? reject(error) : undefined))
    req.end(body)
  })
}

beforeAll(async () => {
  t = await createTestApp({ listen: true, taxii11Poll: { partSize: 2000, blockSize: 10 } })
  const org = (await t.store.db.selectFrom('owner').select('id').where('name', '=', ORG).executeTakeFirstOrThrow()).id
  reader = { userName: '', password: 'stream-reader-password-1' }
  reader.userName = (await t.createAccount({ kind: 'taxii', password: reader.password })).userName
  for (let s = 0; s < 5000; s += 1000) {
    await t.store.db
      .insertInto('indicator')
      .values(
        Array.from({ length: 1000 }, (_, k) => ({
          owner_id: org,
          type: 'Host',
          summary: `s${s + k}.example`,
          value1: `s${s + k}.example`,
          date_added: BEGIN,
          last_modified: new Date(Date.parse(BEGIN) + (s + k) * 1000).toISOString(),
        })),
      )
      .execute()
  }
})
afterAll(() => t.close())

describe('poll responses as streams', () => {
  it('a client that hangs up mid-response leaves the server serving, and the result can be polled again', async () => {
    const end = new Date(Date.parse(BEGIN) + 6 * 3_600_000).toISOString()
    const cut = await post('/api/taxii/poll/', pollRequest('cut-1', ORG, BEGIN, end), 50_000)
    expect(cut).toMatchObject({ status: 200, aborted: true })
    expect(cut.text).toContain('more="true"')
    const again = await post('/api/taxii/poll/', pollRequest('again-1', ORG, BEGIN, end))
    expect(again.status).toBe(200)
    // 4,999 Indicators after the exclusive begin: the first part holds 2,000 of them, in 200 blocks.
    expect(again.text.match(/<stix:Indicator /g)).toHaveLength(2000)
    expect(again.text).toMatch(/<\/taxii_11:Poll_Response>$/)
    const discovery = await post('/api/taxii/discovery/', message('Discovery_Request', { message_id: 'd-after' }))
    expect(discovery.text).toContain('in_response_to="d-after"')
  })

  it('sends the head before the whole part is rendered: the first bytes name the result', async () => {
    const end = new Date(Date.parse(BEGIN) + 6 * 3_600_000).toISOString()
    const head = await post('/api/taxii/poll/', pollRequest('head-1', ORG, BEGIN, end), 1)
    expect(head.text).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?><taxii_11:Poll_Response [^>]*more="true" result_id="[0-9a-f-]{36}" result_part_number="1">/,
    )
    expect(head.text).toContain('<taxii_11:Record_Count partial_count="false">500</taxii_11:Record_Count>')
  })
})

/**
 * Long request lines over a real TLS connection: a URL past MAX_URL_BYTES gets 414 in the
 * envelope of the interface it names, a head past MAX_HEAD_BYTES gets 431; either way the client
 * reads the whole answer, even while it is still sending.
 */
import { connect } from 'node:tls'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, createTestApp } from '../../test/harness.js'
import { MAX_HEAD_BYTES, MAX_URL_BYTES } from './limits.js'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp({ listen: true })
})
afterAll(async () => {
  await t.close()
})

/** Sends a GET as raw bytes and returns everything the server answered before closing. */
function rawGet(path: string): Promise<{ status: number; headers: string; body: string }> {
  const { hostname, port } = new URL(t.baseUrl)
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), rejectUnauthorized: false }, () => {
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: TC-Token ${t.admin.token}\r\nConnection: close\r\n\r\n`,
      )
    })
    let data = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk) => {
      data += chunk
    })
    socket.on('error', reject)
    socket.on('close', () => {
      const [headers, body] = data.split('\r\n\r\n', 2)
      resolve({ status: Number(headers.split(' ')[1]), headers, body })
    })
  })
}

describe('request line limits', () => {
  it('answers a URL longer than the limit with 414 in the v3 and v2 envelopes', async () => {
    for (const length of [MAX_URL_BYTES + 1, 30_000, 60_000]) {
      const v3 = await rawGet(`/api/v3/indicators?tql=${'a'.repeat(length)}`)
      expect(v3.status, `v3 ${length}`).toBe(414)
      expect(JSON.parse(v3.body)).toEqual({
        errCode: '0x1001',
        status: 'Error',
        message: expect.stringMatching(/at most 16384 are accepted$/),
      })
      const v2 = await rawGet(`/api/v2/indicators?filters=${'%25'.repeat(length / 3)}`)
      expect(v2.status, `v2 ${length}`).toBe(414)
      expect(JSON.parse(v2.body)).toEqual({
        status: 'Error',
        message: expect.stringMatching(/^The URL is \d+ bytes long/),
      })
    }
  })

  it('serves a URL just under the limit', async () => {
    const res = await rawGet(`/api/v2/owners?x=${'a'.repeat(MAX_URL_BYTES - 20)}`)
    expect(res.status).toBe(200)
    expect(JSON.parse(res.body).status).toBe('Success')
  })

  it('answers a head larger than the parser accepts with 431, every time, while the client is still sending', async () => {
    for (const length of [MAX_HEAD_BYTES + 100, 300_000, MAX_HEAD_BYTES + 100, 300_000, 1_000_000]) {
      const res = await rawGet(`/api/v2/indicators?x=${'b'.repeat(length)}`)
      expect(res.status, String(length)).toBe(431)
      expect(res.headers).toMatch(/\r\nConnection: close/i)
      expect(JSON.parse(res.body)).toEqual({
        errCode: '0x1001',
        status: 'Error',
        message: `The request line and headers are larger than ${MAX_HEAD_BYTES} bytes`,
      })
    }
  })

  it('answers bytes that are not HTTP with 400 carrying an id, the one in X-Request-Id (logged with the parser code)', async () => {
    const { hostname, port } = new URL(t.baseUrl)
    const answer = await new Promise<string>((resolve) => {
      let data = ''
      const socket = connect({ host: hostname, port: Number(port), rejectUnauthorized: false }, () =>
        socket.write('NOT HTTP AT ALL\r\n\r\n'),
      )
      socket.setEncoding('utf8')
      socket.on('data', (chunk) => (data += chunk))
      socket.on('error', () => {})
      socket.on('close', () => resolve(data))
    })
    const [head, body] = answer.split('\r\n\r\n', 2)
    expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request/)
    const id = /\r\nX-Request-Id: ([0-9a-f-]{36})/.exec(head)?.[1]
    expect(id).toBeDefined()
    expect(JSON.parse(body)).toEqual({
      errCode: '0x1001',
      status: 'Error',
      message: `The request is not valid HTTP (request ${id})`,
    })
  })
})

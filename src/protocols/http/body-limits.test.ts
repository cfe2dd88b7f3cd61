/**
 * Bodies over the limit over a real TLS connection: the client that goes on sending its 30 MB
 * JSON body or its 8 MB TAXII 1.1 message sends all of it and reads the whole 413 (TAXII 1.1: its
 * Status_Message) in the interface's envelope, because the server reads and drops the rest of the
 * body and keeps the connection, instead of closing it while the client is still writing to it.
 */
import { connect } from 'node:tls'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, createTestApp } from '../../test/harness.js'
import { BINDING_REQUEST_HEADERS, basic } from '../../test/taxii11-client.js'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp({ listen: true })
})
afterAll(async () => {
  await t.close()
})

interface Answer {
  status: number
  headers: string
  body: string
  /** Body bytes the client wrote before the connection closed. */
  sent: number
  /** Body bytes the client had written when the answer came. */
  sentWhenAnswered: number
  /** What ended the client's writing, if anything did. */
  writeError?: string
}

/** Sends a head and then `size` bytes of body in 64 KB chunks, as fast as the server takes them. */
function rawPost(path: string, headers: Record<string, string>, size: number): Promise<Answer> {
  const { hostname, port } = new URL(t.baseUrl)
  return new Promise((resolve) => {
    let sent = 0
    let sentWhenAnswered = -1
    let writeError: string | undefined
    let data = ''
    const socket = connect({ host: hostname, port: Number(port), rejectUnauthorized: false }, () => {
      const head = Object.entries({ host: hostname, 'content-length': String(size), ...headers })
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('')
      socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n`)
      const chunk = Buffer.alloc(64 * 1024, 0x20)
      const pump = () => {
        while (sent < size && !socket.destroyed) {
          const piece = chunk.subarray(0, Math.min(chunk.length, size - sent))
          sent += piece.length
          if (!socket.write(piece)) return void socket.once('drain', pump)
        }
        finishWhenAnswered()
      }
      pump()
    })
    // The server may keep the connection for the next request: done once all is sent and the answer is whole.
    const finishWhenAnswered = () => {
      const at = data.indexOf('\r\n\r\n')
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(data.slice(0, at))?.[1] ?? NaN)
      if (sent === size && at >= 0 && Buffer.byteLength(data.slice(at + 4)) >= length) socket.end()
    }
    socket.setEncoding('utf8')
    socket.on('data', (text) => {
      if (sentWhenAnswered < 0) sentWhenAnswered = sent
      data += text
      finishWhenAnswered()
    })
    socket.on('error', (error: NodeJS.ErrnoException) => {
      writeError = error.code ?? error.message
    })
    socket.on('close', () => {
      const at = data.indexOf('\r\n\r\n')
      const head = at < 0 ? data : data.slice(0, at)
      resolve({
        status: Number(head.split(' ')[1]),
        headers: head,
        body: at < 0 ? '' : data.slice(at + 4),
        sent,
        sentWhenAnswered,
        writeError,
      })
    })
  })
}

describe('request bodies over the limit', () => {
  it('a 30 MB JSON body to v3 gets a 413 in the v3 envelope, read in full', async () => {
    const answer = await rawPost(
      '/api/v3/indicators',
      {
        'content-type': 'application/json',
        'x-forwarded-proto': 'https',
        authorization: `TC-Token ${t.admin.token}`,
      },
      30 * 1024 * 1024,
    )
    expect(answer).toMatchObject({ status: 413, sent: 30 * 1024 * 1024, writeError: undefined })
    expect(JSON.parse(answer.body)).toEqual({
      errCode: '0x1001',
      message: 'Request body is larger than this endpoint accepts',
      status: 'Error',
    })
    // Kept for the client's next request: the rest of the body was read and dropped.
    expect(answer.headers).not.toMatch(/\r\nconnection: close/i)
  }, 30_000)

  it('a 30 MB JSON body to v2 gets a 413 in the v2 envelope, read in full', async () => {
    const answer = await rawPost(
      '/api/v2/indicators/hosts',
      { 'content-type': 'application/json', authorization: `TC-Token ${t.admin.token}` },
      30 * 1024 * 1024,
    )
    expect(answer).toMatchObject({ status: 413, sent: 30 * 1024 * 1024, writeError: undefined })
    expect(JSON.parse(answer.body)).toEqual({
      status: 'Error',
      message: 'Request body is larger than this endpoint accepts',
    })
  }, 30_000)

  it('an 8 MB TAXII 1.1 message gets its Status_Message, read in full', async () => {
    const taxii = await t.createAccount({ kind: 'taxii', password: 'a-taxii-password-2' })
    const answer = await rawPost(
      '/api/taxii/poll/',
      {
        ...BINDING_REQUEST_HEADERS,
        authorization: basic({ userName: taxii.userName, password: 'a-taxii-password-2' }),
      },
      8 * 1024 * 1024,
    )
    expect(answer).toMatchObject({ status: 200, sent: 8 * 1024 * 1024, writeError: undefined })
    expect(answer.body).toContain('status_type="BAD_MESSAGE"')
    expect(answer.body).toContain('The message is larger than 1048576 bytes')
  }, 30_000)
})

/** Sends raw bytes on one connection and collects everything answered until the server closes or `ms` pass. */
function rawExchange(bytes: string, ms = 1500): Promise<string> {
  const { hostname, port } = new URL(t.baseUrl)
  return new Promise((resolve) => {
    let data = ''
    const socket = connect({ host: hostname, port: Number(port), rejectUnauthorized: false }, () => socket.write(bytes))
    socket.setEncoding('utf8')
    socket.on('data', (text) => (data += text))
    socket.on('error', () => {})
    const timer = setTimeout(() => socket.end(), ms)
    socket.on('close', () => {
      clearTimeout(timer)
      resolve(data)
    })
  })
}

describe('a kept-alive connection after a refused body', () => {
  it('serves the next request sent right behind a malformed JSON body', async () => {
    const post = (body: string) =>
      `POST /api/v3/indicators HTTP/1.1\r\nHost: bulwark.test\r\nContent-Type: application/json\r\n` +
      `Authorization: TC-Token ${t.admin.token}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
    const answers = await rawExchange(
      post('{"type": "Host", "hostName": ') + post('{"type": "Host", "hostName": "kept-alive.example"}'),
    )
    const statuses = [...answers.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]))
    expect(statuses).toEqual([400, 201])
    expect(answers).toContain('Malformed JSON body')
    expect(answers).not.toContain('The request is not valid HTTP')
  })
})

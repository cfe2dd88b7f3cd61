/**
 * The feeds' HTTP client against real servers this test starts on loopback (plain and TLS with a
 * certificate made here). Addresses beyond loopback are never connected to: their refusal is proven
 * with a stubbed resolver and a socket whose connect would fail the test.
 */
import { once } from 'node:events'
import http, { type IncomingMessage, type ServerResponse } from 'node:http'
import https from 'node:https'
import type { AddressInfo } from 'node:net'
import net from 'node:net'
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import type { FeedCredentials } from '../../domain/feeds/feed.js'
import { FeedFetchError } from '../../domain/feeds/pull.js'
import { createFeedHttp, type FeedHttpOptions } from './index.js'

type Handler = (req: IncomingMessage, res: ServerResponse) => void

interface TestServer {
  url: string
  port: number
  connections: number
  requests: IncomingMessage[]
  handle: Handler
  closed: Promise<void>[]
  server: http.Server
}

const servers: TestServer[] = []
let tlsPair: { cert: string; key: string }

async function serve(secure = false): Promise<TestServer> {
  const state = { connections: 0, requests: [], closed: [] } as unknown as TestServer
  state.handle = (_req, res) => res.end('ok')
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    state.requests.push(req)
    state.handle(req, res)
  }
  const server = secure
    ? https.createServer({ cert: tlsPair.cert, key: tlsPair.key }, listener)
    : http.createServer(listener)
  server.on(secure ? 'secureConnection' : 'connection', (socket: net.Socket) => {
    state.connections++
    state.closed.push(once(socket, 'close').then(() => undefined))
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  state.port = (server.address() as AddressInfo).port
  state.url = `${secure ? 'https' : 'http'}://127.0.0.1:${state.port}`
  state.server = server
  servers.push(state)
  return state
}

async function failure(promise: Promise<unknown>): Promise<FeedFetchError> {
  try {
    await promise
  } catch (error) {
    expect(error).toBeInstanceOf(FeedFetchError)
    return error as FeedFetchError
  }
  throw new Error('expected the request to fail')
}

const LOOPBACK: FeedHttpOptions = { allowPrivateNetworks: true }

beforeAll(async () => {
  const { generate } = await import('selfsigned')
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    extensions: [
      { name: 'basicConstraints', cA: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  } as never)
  tlsPair = { cert: pems.cert, key: pems.private }
})

const connectToAnyHost = net.Socket.prototype.connect

type Lookup = (hostname: string, opts: unknown, callback: (...r: unknown[]) => void) => void

const LOOPBACK_ADDRESSES = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1'])

/** Every connection this file opens goes to loopback: any other destination fails the test before a packet leaves. */
function guardLoopback() {
  vi.spyOn(net.Socket.prototype, 'connect').mockImplementation(function (this: net.Socket, ...args: unknown[]) {
    // net.createConnection hands connect its arguments normalised into an array.
    const first = Array.isArray(args[0]) ? args[0][0] : args[0]
    const options = first as { host?: string; lookup?: Lookup } | number
    if (typeof options === 'object' && typeof options.lookup === 'function') {
      const lookup = options.lookup
      // A name: what its lookup answers must be loopback.
      options.lookup = (hostname: string, opts: unknown, callback: (...r: unknown[]) => void) =>
        lookup(hostname, opts, (error: unknown, address: unknown, family: unknown) => {
          const answered = Array.isArray(address) ? address.map((a) => a.address) : [address]
          if (!error && answered.some((a) => !LOOPBACK_ADDRESSES.has(a)))
            return callback(new Error(`a connection beyond loopback was attempted: ${answered}`))
          callback(error, address, family)
        })
    } else {
      const host = typeof options === 'object' ? options.host : (args[1] as string)
      if (!LOOPBACK_ADDRESSES.has(host ?? '')) throw new Error(`a connection beyond loopback was attempted: ${host}`)
    }
    return (connectToAnyHost as (...a: unknown[]) => net.Socket).apply(this, args)
  })
}

beforeEach(() => {
  guardLoopback()
})

afterEach(() => {
  vi.restoreAllMocks()
})

afterAll(async () => {
  for (const s of servers) {
    s.server.closeAllConnections()
    s.server.close()
  }
})

describe('addresses', () => {
  it('refuses a metadata address a name resolves to, even with private networks allowed, before connecting', async () => {
    const connect = vi.spyOn(net.Socket.prototype, 'connect').mockImplementation(() => {
      throw new Error('a connection was attempted')
    })
    const lookup = vi.fn(async () => [{ address: '169.254.169.254', family: 4 }])
    const client = createFeedHttp({}, { allowPrivateNetworks: true, lookup })
    const error = await failure(client.request('http://feeds.bulwark.test/latest/meta-data/'))
    expect(error.code).toBe('refused-address')
    expect(error.message).toBe(
      'GET http://feeds.bulwark.test/latest/meta-data/: feeds.bulwark.test resolves to 169.254.169.254 is a cloud metadata service address',
    )
    expect(lookup).toHaveBeenCalledTimes(1)
    expect(lookup).toHaveBeenCalledWith('feeds.bulwark.test')
    expect(connect).not.toHaveBeenCalled()
  })

  it('refuses metadata addresses and host names given literally, without resolving or connecting', async () => {
    const connect = vi.spyOn(net.Socket.prototype, 'connect').mockImplementation(() => {
      throw new Error('a connection was attempted')
    })
    const lookup = vi.fn(async () => [{ address: '127.0.0.1', family: 4 }])
    const client = createFeedHttp({}, { allowPrivateNetworks: true, lookup })
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'http://[fd00:ec2::254]/latest/meta-data/',
      'http://[::ffff:169.254.169.254]/',
      'http://100.100.100.200/latest/meta-data/',
      'http://metadata.google.internal/computeMetadata/v1/',
      'http://metadata/computeMetadata/v1/',
      'http://[fe80::1]/',
      'http://224.0.0.1/',
    ]) {
      const error = await failure(client.request(url))
      expect(error.code, url).toBe('refused-address')
    }
    expect(lookup).not.toHaveBeenCalled()
    expect(connect).not.toHaveBeenCalled()
  })

  it('refuses loopback by default, by literal address and by name, and reaches it when private networks are allowed', async () => {
    const server = await serve()
    const lookup = vi.fn(async () => [{ address: '127.0.0.1', family: 4 }])
    const closed = createFeedHttp({}, { allowPrivateNetworks: false, lookup })
    for (const url of [
      `${server.url}/list.txt`,
      `http://[::ffff:127.0.0.1]:${server.port}/`,
      `http://loop.bulwark.test:${server.port}/`,
    ]) {
      const error = await failure(closed.request(url))
      expect(error.code, url).toBe('refused-address')
      expect(error.message).toContain('feedsAllowPrivateNetworks')
    }
    expect(server.connections).toBe(0)

    const open = createFeedHttp({}, { allowPrivateNetworks: true, lookup })
    expect(await (await open.request(`${server.url}/list.txt`)).text()).toBe('ok')
    // The name is resolved once, by the stub, and the connection goes to the address it answered:
    // feeds.bulwark.test resolves nowhere else.
    lookup.mockClear()
    const byName = await open.request(`http://loop.bulwark.test:${server.port}/list.txt`)
    expect(await byName.text()).toBe('ok')
    expect(lookup).toHaveBeenCalledTimes(1)
    expect(server.requests.at(-1)?.headers.host).toBe(`loop.bulwark.test:${server.port}`)
    expect(server.connections).toBe(2)
  })

  it('connects only to the addresses that passed, when a name answers several', async () => {
    const server = await serve()
    const lookup = vi.fn(async () => [
      { address: '10.0.0.1', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ])
    const client = createFeedHttp({}, { allowPrivateNetworks: false, lookup })
    const error = await failure(client.request(`http://two.bulwark.test:${server.port}/`))
    expect(error.code).toBe('refused-address')
    expect(error.message).toContain('10.0.0.1 is a private network address')
    expect(server.connections).toBe(0)
  })

  it('refuses what is not http or https', async () => {
    const client = createFeedHttp({}, LOOPBACK)
    expect((await failure(client.request('file:///etc/passwd'))).code).toBe('refused-address')
    expect((await failure(client.request('not a url'))).code).toBe('refused-address')
  })
})

describe('redirects', () => {
  it('follows a relative Location, and checks every hop again', async () => {
    const server = await serve()
    server.handle = (req, res) => {
      if (req.url === '/start') res.writeHead(302, { location: 'next?page=2' }).end()
      else if (req.url === '/next?page=2') res.writeHead(308, { location: '/done' }).end()
      else if (req.url === '/done') res.end('done')
      else res.writeHead(301, { location: 'http://169.254.169.254/latest/meta-data/' }).end()
    }
    const connect = vi.spyOn(net.Socket.prototype, 'connect')
    const client = createFeedHttp({}, LOOPBACK)
    const response = await client.request(`${server.url}/start`)
    expect(response.status).toBe(200)
    expect(response.url).toBe(`${server.url}/done`)
    expect(await response.text()).toBe('done')
    expect(server.requests.map((r) => r.url)).toEqual(['/start', '/next?page=2', '/done'])

    const calls = connect.mock.calls.length
    const error = await failure(client.request(`${server.url}/elsewhere`))
    expect(error.code).toBe('refused-address')
    expect(error.message).toBe(
      `GET http://169.254.169.254/latest/meta-data/: 169.254.169.254 is a cloud metadata service address`,
    )
    // One connection: the loopback server's; none to the address the redirect named.
    expect(connect.mock.calls.length - calls).toBe(1)
  })

  it('refuses a redirect loop, and a chain longer than the limit', async () => {
    const server = await serve()
    server.handle = (req, res) => {
      if (req.url === '/a') res.writeHead(302, { location: '/b' }).end()
      else if (req.url === '/b') res.writeHead(302, { location: `${server.url}/a#again` }).end()
      else res.writeHead(307, { location: `/hop/${Number(req.url?.split('/')[2] ?? 0) + 1}` }).end()
    }
    const client = createFeedHttp({}, { ...LOOPBACK, maxRedirects: 3 })
    const loop = await failure(client.request(`${server.url}/a`))
    expect(loop.code).toBe('refused-redirect')
    expect(loop.message).toBe(`GET ${server.url}/b: redirect loop, ${server.url}/a was already visited in this request`)
    const before = server.requests.length
    const long = await failure(client.request(`${server.url}/hop/0`))
    expect(long.code).toBe('refused-redirect')
    expect(long.message).toBe(`GET ${server.url}/hop/3: more than 3 redirects`)
    expect(server.requests.length - before).toBe(4)
  })

  it('refuses a redirect from https to http, without asking the http server', async () => {
    const plain = await serve()
    const secure = await serve(true)
    secure.handle = (_req, res) => res.writeHead(301, { location: `${plain.url}/feed` }).end()
    const client = createFeedHttp({ caPem: tlsPair.cert }, LOOPBACK)
    const error = await failure(client.request(`${secure.url}/feed`))
    expect(error.code).toBe('refused-redirect')
    expect(error.message).toContain('redirected from https to http')
    expect(plain.connections).toBe(0)
  })

  it('keeps the credentials on the same origin and drops them when a redirect leaves it', async () => {
    const other = await serve()
    other.handle = (_req, res) => res.end('other')
    const origin = await serve()
    origin.handle = (req, res) => {
      if (req.url === '/first') res.writeHead(302, { location: '/second' }).end()
      else if (req.url === '/second') res.writeHead(302, { location: `${other.url}/third` }).end()
      else res.end('origin')
    }
    for (const credentials of [
      { kind: 'bearer', token: 'tok-SECRET-123' },
      { kind: 'header', name: 'X-Api-Key', value: 'key-SECRET-456' },
    ] as FeedCredentials[]) {
      const client = createFeedHttp({ credentials }, LOOPBACK)
      const response = await client.request(`${origin.url}/first`, {
        headers: { Accept: 'text/plain', Authorization: 'Basic Y2FsbGVyOnNlY3JldA==' },
      })
      expect(await response.text()).toBe('other')
      const [first, second] = origin.requests.slice(-2)
      const third = other.requests.at(-1) as IncomingMessage
      for (const seen of [first, second]) {
        if (credentials.kind === 'bearer') expect(seen.headers.authorization).toBe('Bearer tok-SECRET-123')
        else expect(seen.headers['x-api-key']).toBe('key-SECRET-456')
      }
      expect(third.url).toBe('/third')
      expect(third.headers.authorization).toBeUndefined()
      expect(third.headers['x-api-key']).toBeUndefined()
      expect(third.headers.accept).toBe('text/plain')
    }
  })

  it('turns a POST into a GET on 303 and keeps it, with its body, on 307', async () => {
    const server = await serve()
    const bodies: string[] = []
    server.handle = async (req, res) => {
      let body = ''
      for await (const chunk of req) body += chunk
      bodies.push(`${req.method} ${req.url} ${body}`)
      if (req.url === '/poll') res.writeHead(307, { location: '/poll-here' }).end()
      else if (req.url === '/poll-here') res.writeHead(303, { location: '/result' }).end()
      else res.end('result')
    }
    const client = createFeedHttp({}, LOOPBACK)
    const response = await client.request(`${server.url}/poll`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/xml' },
      body: '<poll/>',
    })
    expect(await response.text()).toBe('result')
    expect(bodies).toEqual(['POST /poll <poll/>', 'POST /poll-here <poll/>', 'GET /result '])
    expect(server.requests.at(-1)?.headers['content-type']).toBeUndefined()
  })
})

describe('statuses', () => {
  it('resolves 2xx and 304, and gives the header and the final URL', async () => {
    const server = await serve()
    server.handle = (req, res) => {
      if (req.headers['if-none-match'] === '"v1"') res.writeHead(304, { etag: '"v1"' }).end()
      else res.writeHead(200, { etag: '"v1"', 'Content-Type': 'text/plain' }).end('body')
    }
    const client = createFeedHttp({}, LOOPBACK)
    const fresh = await client.request(`${server.url}/list`)
    expect([fresh.status, fresh.header('ETag'), fresh.header('content-type'), await fresh.text()]).toEqual([
      200,
      '"v1"',
      'text/plain',
      'body',
    ])
    const same = await client.request(`${server.url}/list`, { headers: { 'If-None-Match': '"v1"' } })
    expect([same.status, await same.text()]).toEqual([304, ''])
    expect(server.requests[0].headers['user-agent']).toBe('Bulwark feeds')
    expect(server.requests[0].headers['accept-encoding']).toBe('gzip, deflate, br')
  })

  it('gives Retry-After of a 429 and a 503 in milliseconds', async () => {
    const server = await serve()
    const inAMinute = new Date(Date.now() + 60_000).toUTCString()
    server.handle = (req, res) => {
      if (req.url === '/seconds') res.writeHead(429, { 'Retry-After': '7' }).end()
      else if (req.url === '/date') res.writeHead(503, { 'Retry-After': inAMinute }).end()
      else if (req.url === '/week') res.writeHead(429, { 'Retry-After': String(7 * 24 * 3600) }).end()
      else res.writeHead(503).end()
    }
    const client = createFeedHttp({}, LOOPBACK)
    const seconds = await failure(client.request(`${server.url}/seconds`))
    expect([seconds.code, seconds.details, seconds.message]).toEqual([
      'status',
      { status: 429, retryAfterMs: 7000 },
      `GET ${server.url}/seconds answered 429 Too Many Requests`,
    ])
    const date = await failure(client.request(`${server.url}/date`))
    expect(date.details.status).toBe(503)
    expect(date.details.retryAfterMs).toBeGreaterThan(55_000)
    expect(date.details.retryAfterMs).toBeLessThanOrEqual(60_000)
    expect((await failure(client.request(`${server.url}/week`))).details).toEqual({
      status: 429,
      retryAfterMs: 24 * 3600 * 1000,
    })
    expect((await failure(client.request(`${server.url}/none`))).details).toEqual({ status: 503 })
  })

  it('says a short, safe line of an error body: plain text and JSON title/description, never markup', async () => {
    const server = await serve()
    server.handle = (req, res) => {
      if (req.url === '/text')
        res.writeHead(500, { 'Content-Type': 'text/plain' }).end(`Database\u001b[31m down\n\u202e${'x'.repeat(500)}`)
      else if (req.url === '/taxii')
        res
          .writeHead(404, { 'Content-Type': 'application/taxii+json;version=2.1' })
          .end(JSON.stringify({ title: 'Collection not found', description: 'No collection abc', http_status: '404' }))
      else res.writeHead(502, { 'Content-Type': 'text/html' }).end('<html><script>alert(1)</script></html>')
    }
    const client = createFeedHttp({}, LOOPBACK)
    const text = await failure(client.request(`${server.url}/text`))
    expect(text.details).toEqual({ status: 500 })
    const line = text.message.split('Internal Server Error: ')[1]
    expect(line.startsWith('Database [31m down x')).toBe(true)
    expect(line.length).toBe(200)
    expect((await failure(client.request(`${server.url}/taxii`))).message).toBe(
      `GET ${server.url}/taxii answered 404 Not Found: Collection not found: No collection abc`,
    )
    expect((await failure(client.request(`${server.url}/html`))).message).toBe(
      `GET ${server.url}/html answered 502 Bad Gateway`,
    )
  })
})

describe('connections', () => {
  it('fails with network when nothing listens, and with an encoding it did not ask for', async () => {
    const gone = await serve()
    gone.server.close()
    await once(gone.server, 'close')
    const client = createFeedHttp({}, LOOPBACK)
    const refused = await failure(client.request(`${gone.url}/feed`))
    expect([refused.code, refused.message]).toEqual([
      'network',
      `GET ${gone.url}/feed: the connection was refused (connect ECONNREFUSED 127.0.0.1:${gone.port})`,
    ])
    const server = await serve()
    server.handle = (_req, res) => res.writeHead(200, { 'Content-Encoding': 'zstd' }).end('(zstd)')
    const encoded = await failure(client.request(`${server.url}/feed`))
    expect([encoded.code, encoded.message]).toEqual([
      'network',
      `GET ${server.url}/feed: the answer is encoded as zstd, which was not asked for`,
    ])
  })
})

describe('bodies', () => {
  it('decodes gzip, deflate (wrapped and raw) and br', async () => {
    const server = await serve()
    const text = 'indicator\n'.repeat(10_000)
    server.handle = (req, res) => {
      const encoded: Record<string, Buffer> = {
        '/gzip': gzipSync(text),
        '/deflate': deflateSync(text),
        '/raw': deflateRawSync(text),
        '/br': brotliCompressSync(text),
      }
      const encoding = req.url === '/raw' ? 'deflate' : (req.url ?? '').slice(1)
      res.writeHead(200, { 'Content-Encoding': encoding }).end(encoded[req.url ?? ''])
    }
    const client = createFeedHttp({}, LOOPBACK)
    for (const path of ['/gzip', '/deflate', '/raw', '/br'])
      expect(await (await client.request(`${server.url}${path}`)).text(), path).toBe(text)
  })

  it('stops a gzip bomb at the decompressed limit without inflating it', async () => {
    // 64 MiB of zeros in about 64 KiB; the server sends it and holds the answer open.
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024))
    const server = await serve()
    server.handle = (_req, res) => {
      res.writeHead(200, { 'Content-Encoding': 'gzip', 'Content-Type': 'text/plain' })
      res.write(bomb)
    }
    const client = createFeedHttp({}, { ...LOOPBACK, maxDecompressedBytes: 1024 * 1024 })
    const before = process.memoryUsage().arrayBuffers
    const response = await client.request(`${server.url}/bomb`)
    let seen = 0
    const error = await failure(
      (async () => {
        for await (const chunk of response.chunks()) seen += chunk.length
      })(),
    )
    const grown = process.memoryUsage().arrayBuffers - before
    expect(error.code).toBe('too-large')
    expect(error.message).toBe(`GET ${server.url}/bomb: the answer is larger than 1 MiB decompressed (the limit)`)
    expect(seen).toBeLessThanOrEqual(1024 * 1024)
    expect(seen).toBeGreaterThan(900 * 1024)
    expect(grown).toBeLessThan(16 * 1024 * 1024)
    // The client hung up: the server's side of the connection closes though it never ended the answer.
    await server.closed[0]
  })

  it('refuses a declared Content-Length over the limit before reading, and counts the wire when none is declared', async () => {
    const server = await serve()
    server.handle = (req, res) => {
      if (req.url === '/declared') {
        res.writeHead(200, { 'Content-Length': String(2 * 1024 * 1024) })
        res.write('x')
      } else {
        res.writeHead(200, { 'Content-Type': 'text/plain' })
        res.end(Buffer.alloc(2 * 1024 * 1024, 'y'))
      }
    }
    const client = createFeedHttp({}, { ...LOOPBACK, maxResponseBytes: 1024 * 1024 })
    const declared = await failure(client.request(`${server.url}/declared`))
    expect([declared.code, declared.message]).toEqual([
      'too-large',
      `GET ${server.url}/declared: the answer declares 2 MiB, more than the limit of 1 MiB`,
    ])
    const streamed = await client.request(`${server.url}/chunked`)
    const error = await failure(streamed.text())
    expect([error.code, error.message]).toEqual([
      'too-large',
      `GET ${server.url}/chunked: the answer is larger than 1 MiB on the wire (the limit)`,
    ])
  })

  it('times out when the server does not answer, and when its body stalls', async () => {
    const server = await serve()
    server.handle = (req, res) => {
      if (req.url === '/stall') {
        res.writeHead(200)
        res.write('start')
      }
    }
    const client = createFeedHttp({}, { ...LOOPBACK, timeoutMs: 300 })
    const started = Date.now()
    const silent = await failure(client.request(`${server.url}/silent`))
    expect([silent.code, silent.message]).toEqual(['timeout', `GET ${server.url}/silent: no answer within 0.3 s`])
    expect(Date.now() - started).toBeLessThan(2000)
    const stalled = await client.request(`${server.url}/stall`)
    const error = await failure(stalled.text())
    expect([error.code, error.message]).toEqual([
      'timeout',
      `GET ${server.url}/stall: the answer's body stalled for 0.3 s`,
    ])
  })
})

describe('stopping', () => {
  it("stops waiting for an answer, and reading a body, when the run's signal aborts", async () => {
    const server = await serve()
    server.handle = (req, res) => {
      if (req.url === '/body') {
        res.writeHead(200)
        res.write('first')
      }
    }
    const controller = new AbortController()
    const client = createFeedHttp({}, { ...LOOPBACK, signal: controller.signal })
    const waiting = failure(client.request(`${server.url}/head`))
    setTimeout(() => controller.abort(), 50)
    expect([(await waiting).code, (await waiting).message]).toEqual(['network', `GET ${server.url}/head: stopped`])

    const later = new AbortController()
    const reading = createFeedHttp({}, { ...LOOPBACK, signal: later.signal })
    const response = await reading.request(`${server.url}/body`)
    const chunks: string[] = []
    const error = failure(
      (async () => {
        for await (const chunk of response.chunks()) {
          chunks.push(chunk.toString())
          later.abort()
        }
      })(),
    )
    expect([(await error).code, chunks]).toEqual(['network', ['first']])
    expect((await failure(reading.request(`${server.url}/body`))).message).toBe(`GET ${server.url}/body: stopped`)
  })
})

describe('TLS', () => {
  it("refuses a self-signed server without the feed's CA and trusts it with the PEM", async () => {
    const server = await serve(true)
    server.handle = (_req, res) => res.end('secure')
    const refused = await failure(createFeedHttp({}, LOOPBACK).request(`${server.url}/feed`))
    expect(refused.code).toBe('tls')
    expect(refused.message).toContain('self-signed certificate')
    const trusted = createFeedHttp({ caPem: tlsPair.cert }, LOOPBACK)
    expect(await (await trusted.request(`${server.url}/feed`)).text()).toBe('secure')
    // Another feed does not inherit the CA.
    expect((await failure(createFeedHttp({}, LOOPBACK).request(`${server.url}/feed`))).code).toBe('tls')
    const broken = await failure(createFeedHttp({ caPem: 'not a certificate' }, LOOPBACK).request(`${server.url}/`))
    expect([broken.code, broken.message]).toEqual(['tls', "the feed's CA certificate (PEM) could not be read"])
  })
})

describe('credentials', () => {
  const SECRETS = ['hunter2-SECRET-pw', 'tok-SECRET-123', 'key-SECRET-456', 'url-SECRET-pw', 'query-SECRET-key']

  it('sends each kind as its header and never shows one in an error', async () => {
    const server = await serve()
    const secure = await serve(true)
    server.handle = (req, res) => {
      if (req.url === '/slow') return
      if (req.url === '/loop') return void res.writeHead(302, { location: '/loop' }).end()
      // A careless server echoes what it was sent.
      res
        .writeHead(401, { 'Content-Type': 'text/plain' })
        .end(`refused ${req.headers.authorization ?? ''} ${req.headers['x-api-key'] ?? ''} ${req.url}`)
    }
    const kinds: FeedCredentials[] = [
      { kind: 'basic', user: 'feed-reader', password: 'hunter2-SECRET-pw' },
      { kind: 'bearer', token: 'tok-SECRET-123' },
      { kind: 'header', name: 'X-Api-Key', value: 'key-SECRET-456' },
    ]
    const messages: string[] = []
    for (const credentials of kinds) {
      const client = createFeedHttp({ credentials }, { ...LOOPBACK, timeoutMs: 300 })
      const echoed = await failure(client.request(`${server.url}/feed?apikey=query-SECRET-key&page=2`))
      expect(echoed.code).toBe('status')
      expect(echoed.message).toContain("answered 401 Unauthorized (check the feed's credentials): refused")
      messages.push(echoed.message)
      messages.push((await failure(client.request(`${server.url}/slow`))).message)
      messages.push((await failure(client.request(`${server.url}/loop`))).message)
      messages.push((await failure(client.request(`${secure.url}/feed`))).message)
      const closed = createFeedHttp({ credentials }, { allowPrivateNetworks: false })
      messages.push((await failure(closed.request('http://feed-reader:url-SECRET-pw@10.1.1.1/feed'))).message)
    }
    const sent = server.requests.filter((r) => r.url?.startsWith('/feed')).map((r) => r.headers)
    expect(sent[0].authorization).toBe(`Basic ${Buffer.from('feed-reader:hunter2-SECRET-pw').toString('base64')}`)
    expect(sent[1].authorization).toBe('Bearer tok-SECRET-123')
    expect(sent[2]['x-api-key']).toBe('key-SECRET-456')

    // userinfo in the URL is the Basic credential of a feed without credentials, and is masked too.
    const fromUrl = createFeedHttp({}, LOOPBACK)
    const error = await failure(fromUrl.request(`http://feed-reader:url-SECRET-pw@127.0.0.1:${server.port}/feed`))
    expect(server.requests.at(-1)?.headers.authorization).toBe(
      `Basic ${Buffer.from('feed-reader:url-SECRET-pw').toString('base64')}`,
    )
    messages.push(error.message)

    expect(messages).toHaveLength(16)
    for (const message of messages) for (const secret of SECRETS) expect(message).not.toContain(secret)
    expect(messages[0]).toBe(
      `GET ${server.url}/feed?apikey=***&page=2 answered 401 Unauthorized (check the feed's credentials): refused Basic *** /feed?apikey=***&page=2`,
    )
    expect(messages.slice(1, 5)).toEqual([
      `GET ${server.url}/slow: no answer within 0.3 s`,
      `GET ${server.url}/loop: redirect loop, ${server.url}/loop was already visited in this request`,
      `GET ${secure.url}/feed: TLS failed: self-signed certificate`,
      'GET http://10.1.1.1/feed: 10.1.1.1 is a private network address; feeds reach it only when the setting feedsAllowPrivateNetworks is on',
    ])
  })
})

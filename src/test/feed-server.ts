/**
 * A feed's server for the pullers' tests: HTTPS on a loopback port with a self-signed certificate
 * made for the test, serving files the test sets (and changes) with their ETag and Last-Modified,
 * answering If-None-Match and If-Modified-Since with 304, and keeping each request's path and
 * conditional headers for the test to assert. Beside it, a FeedHttp over node:https that trusts
 * that certificate alone: the pullers' stand-in for the feeds' safe client (domain/feeds/pull.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import type { IncomingHttpHeaders } from 'node:http'
import { createServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FeedHttp } from '../domain/feeds/pull.js'
import { createFeedHttp } from '../feeds/http/index.js'
import { loadTlsMaterial } from '../protocols/http/tls.js'

export interface ServedFile {
  body: string | Buffer
  etag?: string
  lastModified?: string
}

export interface SeenRequest {
  path: string
  ifNoneMatch?: string
  ifModifiedSince?: string
  status: number
}

export interface FeedServer {
  /** `https://127.0.0.1:<port>` */
  url: string
  /** The files by path (`/misp/manifest.json`); set, change or delete them between pulls. */
  files: Map<string, ServedFile>
  requests: SeenRequest[]
  /** A FeedHttp trusting this server's certificate. */
  http: FeedHttp
  /** The server's self-signed certificate, PEM: a feed's `caPem` that trusts it. */
  caPem: string
  close(): Promise<void>
}

export async function startFeedServer(): Promise<FeedServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bulwark-feed-server-'))
  const tls = await loadTlsMaterial({ dataDir, hostName: '127.0.0.1' })
  const files = new Map<string, ServedFile>()
  const requests: SeenRequest[] = []
  const server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    const path = new URL(req.url ?? '/', 'https://feed.test').pathname
    const file = files.get(path)
    const seen: SeenRequest = { path, status: 200, ...conditions(req.headers) }
    requests.push(seen)
    if (!file) {
      seen.status = 404
      res.writeHead(404).end('not found')
      return
    }
    const headers: Record<string, string> = {}
    if (file.etag) headers.etag = file.etag
    if (file.lastModified) headers['last-modified'] = file.lastModified
    const unchanged = seen.ifNoneMatch
      ? !!file.etag && seen.ifNoneMatch === file.etag
      : !!seen.ifModifiedSince &&
        !!file.lastModified &&
        Date.parse(file.lastModified) <= Date.parse(seen.ifModifiedSince)
    if (unchanged) {
      seen.status = 304
      res.writeHead(304, headers).end()
      return
    }
    res.writeHead(200, { ...headers, 'content-type': 'application/octet-stream' })
    // In pieces, so a reader meets chunk boundaries anywhere (in a UTF-8 character too).
    const body = Buffer.from(file.body)
    for (let at = 0; at < body.length; at += 7_777) res.write(body.subarray(at, at + 7_777))
    res.end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url,
    files,
    requests,
    http: trustingHttp(tls.cert),
    caPem: tls.cert,
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

function conditions(headers: IncomingHttpHeaders): Pick<SeenRequest, 'ifNoneMatch' | 'ifModifiedSince'> {
  const out: Pick<SeenRequest, 'ifNoneMatch' | 'ifModifiedSince'> = {}
  if (typeof headers['if-none-match'] === 'string') out.ifNoneMatch = headers['if-none-match']
  if (typeof headers['if-modified-since'] === 'string') out.ifModifiedSince = headers['if-modified-since']
  return out
}

/**
 * The feed client itself (src/feeds/http/), trusting `ca` for this server's certificate and allowed
 * to reach loopback, as a feed with `feedsAllowPrivateNetworks` on and that CA file would be.
 */
export function trustingHttp(ca: string): FeedHttp {
  return createFeedHttp({ caPem: ca }, { allowPrivateNetworks: true })
}

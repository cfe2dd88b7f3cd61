/**
 * A FeedHttp for the pullers' tests until the real one (src/feeds/http/) is in: node's https over
 * loopback only, accepting the test servers' self-signed certificates, with the feed's Basic
 * credentials. It enforces none of the real client's rules (addresses, limits, redirects): it is
 * never used outside tests.
 */
import { request as httpsRequest } from 'node:https'
import { FeedFetchError, type FeedHttp, type FeedRequest, type FeedResponse } from '../domain/feeds/pull.js'

export interface LoopbackHttpLog {
  method: string
  url: string
  status: number
}

export function loopbackFeedHttp(
  credentials?: { user: string; password: string },
  log: LoopbackHttpLog[] = [],
  intercept?: (url: string) => { status: number; body: string } | undefined,
): FeedHttp {
  return {
    async request(url: string, init: FeedRequest = {}): Promise<FeedResponse> {
      const target = new URL(url)
      if (target.protocol !== 'https:' || !['127.0.0.1', '[::1]', 'localhost'].includes(target.hostname))
        throw new FeedFetchError('refused-address', `tests reach loopback HTTPS only, not ${target.origin}`)
      const method = init.method ?? 'GET'
      const faked = intercept?.(url)
      if (faked) {
        log.push({ method, url, status: faked.status })
        throw new FeedFetchError('status', `the server answered ${faked.status}`, { status: faked.status })
      }
      const headers: Record<string, string> = { ...init.headers }
      if (credentials)
        headers.authorization = `Basic ${Buffer.from(`${credentials.user}:${credentials.password}`).toString('base64')}`
      const { status, head, body } = await new Promise<{
        status: number
        head: Record<string, string | string[] | undefined>
        body: Buffer
      }>((resolve, reject) => {
        const req = httpsRequest(target, { method, headers, rejectUnauthorized: false }, (res) => {
          const parts: Buffer[] = []
          res.on('data', (chunk: Buffer) => parts.push(chunk))
          res.on('end', () => resolve({ status: res.statusCode ?? 0, head: res.headers, body: Buffer.concat(parts) }))
          res.on('error', reject)
        })
        req.on('error', (error) => reject(new FeedFetchError('network', error.message)))
        req.end(init.body)
      })
      log.push({ method, url, status })
      if (status < 200 || (status >= 300 && status !== 304))
        throw new FeedFetchError('status', `the server answered ${status}: ${body.toString('utf8').slice(0, 300)}`, {
          status,
        })
      return {
        status,
        url,
        header(name: string) {
          const value = head[name.toLowerCase()]
          return Array.isArray(value) ? value.join(', ') : value
        },
        async *chunks() {
          yield body
        },
        async text() {
          return body.toString('utf8')
        },
      }
    },
  }
}

/**
 * STAND-IN, replaced at merge by the feeds-http helper's safe client of the same export. It carries
 * the feed's credentials and turns a refusal into a FeedFetchError (with Retry-After for 429 and
 * 503), over node's fetch, so the run and its scheduler can be wired already; it enforces NONE of the
 * network rules (addresses, redirects, TLS with the feed's CA, size limits) the real one does.
 */
import type { FeedDefinition } from '../../domain/feeds/feed.js'
import { type FeedHttp, FeedFetchError, type FeedResponse } from '../../domain/feeds/pull.js'

export function createFeedHttp(feed: FeedDefinition, _options: { allowPrivateNetworks: boolean }): FeedHttp {
  const auth: Record<string, string> = {}
  const credentials = feed.credentials
  if (credentials?.kind === 'basic')
    auth.authorization = `Basic ${Buffer.from(`${credentials.user}:${credentials.password}`).toString('base64')}`
  else if (credentials?.kind === 'bearer') auth.authorization = `Bearer ${credentials.token}`
  else if (credentials?.kind === 'header') auth[credentials.name] = credentials.value
  return {
    async request(url, init = {}) {
      let response: Response
      try {
        response = await fetch(url, {
          method: init.method ?? 'GET',
          headers: { ...init.headers, ...auth },
          body: init.body,
          signal: AbortSignal.timeout(60_000),
        })
      } catch (error) {
        throw new FeedFetchError('network', `${new URL(url).host} did not answer: ${(error as Error).name}`)
      }
      if (!response.ok && response.status !== 304) {
        const retryAfter = response.headers.get('retry-after')
        const seconds = retryAfter === null ? Number.NaN : Number(retryAfter)
        const date = retryAfter === null ? Number.NaN : Date.parse(retryAfter)
        const retryAfterMs = Number.isFinite(seconds)
          ? seconds * 1000
          : Number.isFinite(date)
            ? Math.max(0, date - Date.now())
            : undefined
        await response.body?.cancel()
        throw new FeedFetchError('status', `${new URL(url).host} answered ${response.status}`, {
          status: response.status,
          ...((response.status === 429 || response.status === 503) && retryAfterMs !== undefined
            ? { retryAfterMs }
            : {}),
        })
      }
      const body = response.body
      const answer: FeedResponse = {
        status: response.status,
        url: response.url || url,
        header: (name) => response.headers.get(name) ?? undefined,
        async *chunks() {
          if (!body) return
          for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) yield Buffer.from(chunk)
        },
        async text() {
          const parts: Buffer[] = []
          for await (const chunk of answer.chunks()) parts.push(chunk)
          return Buffer.concat(parts).toString('utf8')
        },
      }
      return answer
    },
  }
}

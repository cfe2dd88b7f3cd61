/**
 * What a puller (src/feeds/pull/) is to the run that drives it (domain/feeds/run-feed.ts): it asks
 * the feed's server for what came since the cursor, through a FeedHttp that already enforces the
 * network rules and carries the credentials, and gives the run pages. Each page holds items a
 * format of formats/ reads and the cursor that is true once they are stored: the run stores a
 * page's items and its cursor in one transaction, so a pull stopped anywhere resumes after the last
 * stored page, losing and repeating nothing.
 */
import type { ReadOptions, TextChunks } from '../../formats/format.js'
import type { FeedCursor, FeedDefinition } from './feed.js'

export interface FeedRequest {
  method?: 'GET' | 'POST'
  headers?: Record<string, string>
  body?: string
}

/** An answer of 2xx or 304; its body decompressed, held to the size limits as it streams. */
export interface FeedResponse {
  status: number
  /** The URL that answered, after redirects. */
  url: string
  /** A header's value (name in any case), or undefined. */
  header(name: string): string | undefined
  /** The body as it streams; throws a FeedFetchError `too-large` past the limits. */
  chunks(): AsyncIterable<Buffer>
  /** The whole body as UTF-8 text. */
  text(): Promise<string>
}

/** The network as a feed may use it: address rules, redirects re-checked, TLS, limits, the feed's credentials. */
export interface FeedHttp {
  /** Resolves for 2xx and 304; throws a FeedFetchError otherwise. */
  request(url: string, init?: FeedRequest): Promise<FeedResponse>
}

export type FeedFetchErrorCode =
  'refused-address' | 'refused-redirect' | 'timeout' | 'too-large' | 'status' | 'tls' | 'network'

/** Why a request of a feed failed, in words safe to record (no credentials, no body). */
export class FeedFetchError extends Error {
  constructor(
    readonly code: FeedFetchErrorCode,
    message: string,
    readonly details: { status?: number; retryAfterMs?: number } = {},
  ) {
    super(message)
    this.name = 'FeedFetchError'
  }
}

/** Items of one page, for a format of formats/ to read, and where the next pull starts once they are stored. */
export interface PullPage {
  /** The reader's name in formats/index.ts: stix (STIX 2.x), stix1, misp, csv or list (plain text). */
  format: string
  content: TextChunks
  /** The reader's options beyond its name (a list's type, a CSV's column map). */
  options?: Pick<ReadOptions, 'type' | 'map'>
  /** What refusals call this page (`page 3`, an event's file name). */
  name: string
  /** Objects the page held as fetched, for the run's record. */
  fetched: number
  cursor: FeedCursor
  /**
   * Set on the page that ends a whole list (CSV, text): once it is stored, a feed in mirror mode turns
   * inactive the values it brought before and did not bring this time.
   */
  complete?: true
}

export interface PullContext {
  feed: FeedDefinition
  /** The stored cursor; null before the first pull (start from the feed's importFrom, or the beginning). */
  cursor: FeedCursor | null
  http: FeedHttp
  /** The run's start (ISO 8601). */
  now: string
  /** Aborted when the node stops or the run's lease is lost. */
  signal: AbortSignal
  /** Objects the run may still fetch (the feed's cap per run); a puller stops at a page boundary once past it. */
  remaining: number
}

export interface Puller {
  /** The pages since the cursor, oldest first; none when nothing changed (the cursor may still move: `unchanged`). */
  pull(context: PullContext): AsyncIterable<PullPage>
}

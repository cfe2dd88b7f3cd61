/**
 * The TAXII 2.1 puller: a collection of an API root, read with `added_after` + `limit` and `next`,
 * one page per envelope, each page a STIX bundle for the `stix` reader (docs/feeds.md, "TAXII 2.1
 * and TAXII 1.1 feeds").
 *
 * Why the cursor is lossless. TAXII sorts a collection by `date_added`, ascending (TAXII 2.1 §3.3),
 * and many objects may share one `date_added` (a bulk insert). Within one walk the server's `next`
 * keeps the place between equal dates; but a `next` is the server's state and dies with the walk
 * (medallion forgets it after 30 s), and a pull stopped after page k (killed, aborted, out of its
 * run's cap) resumes with `added_after` alone, which is exclusive. Were the cursor page k's newest
 * `date_added` (X-TAXII-Date-Added-Last, L), the objects of date L that page k+1 would have brought
 * would never be read: `added_after=L` skips every object of date L. So after page k the cursor is
 * a date strictly below L at or after which all objects are stored: since the order is ascending,
 * every object dated before L came on pages 1..k, so any date D < L is safe, and the tightest one
 * the server itself gave is the newest of {page k's X-TAXII-Date-Added-First, page k-1's Last,
 * the cursor before} that is below L (a date of the server's own writing, so no precision or
 * rounding of ours can move it past L). A resume then re-reads the objects of (D, L], at most one
 * page and the run of L's equal dates; the batch writer finds them `unchanged`, never a duplicate.
 * When a whole page shares one date, no such D is on it and the cursor stays where it was.
 * Once a walk has ended (`more` false) every object up to its last L is stored, equal dates
 * included, so the last page's cursor is L itself and the next pull asks only for what came after.
 *
 * A run stops at a page boundary once it has fetched `remaining` objects, but only once its cursor
 * has moved: a run of equal dates longer than the cap would otherwise be re-read, and cut, by
 * every run for ever. An expired `next` (a 400, 404 or 410 to a request carrying one) restarts the
 * walk from the last stored cursor, as a resume would; a second one before any new page fails.
 */
import { randomUUID } from 'node:crypto'
import { invalid, notFound } from '../../core/errors.js'
import type { FeedCursor } from '../../domain/feeds/feed.js'
import { FeedFetchError, type FeedHttp, type PullContext, type PullPage, type Puller } from '../../domain/feeds/pull.js'
import { stixBundle } from '../../formats/stix2/bundle.js'

export const TAXII21_MEDIA_TYPE = 'application/taxii+json;version=2.1'

/** Objects asked for a page; a server may cap it lower (medallion's max_page_size, Bulwark's 10,000). */
export const DEFAULT_TAXII21_PAGE = 1000

/** What a TAXII 2.1 feed keeps between pulls. */
export interface Taxii21Cursor {
  /** The collection's id the cursor is of: a feed moved to another collection starts again. */
  collection: string
  /** The next pull's `added_after`: every object the server dated at or before it is stored. */
  addedAfter?: string
}

interface Collection {
  id: string
  title?: string
  alias?: string
}

interface Envelope {
  more?: unknown
  next?: unknown
  objects?: unknown
}

/** TAXII 2.1 §3.5 allows an empty page with `more`; this many in a row is a server that never ends. */
const MAX_EMPTY_IN_A_ROW = 20

/** Bytes of bundle text a chunk of a page's content holds, about. */
const CHUNK = 64 * 1024

export function createTaxii21Puller(options: { pageSize?: number } = {}): Puller {
  const pageSize = options.pageSize ?? DEFAULT_TAXII21_PAGE
  return { pull: (context) => pullTaxii21(context, pageSize) }
}

async function* pullTaxii21(context: PullContext, pageSize: number): AsyncIterable<PullPage> {
  const { feed, http, signal } = context
  const root = feed.url.endsWith('/') ? feed.url : `${feed.url}/`
  const collection = await resolveCollection(http, root, feed.settings.collection)
  const objectsUrl = `${root}collections/${encodeURIComponent(collection.id)}/objects/`
  const stored = readCursor(context.cursor)
  const startAfter =
    stored?.collection === collection.id && stored.addedAfter !== undefined
      ? stored.addedAfter
      : feed.importFrom === undefined
        ? undefined
        : taxiiTimestamp(feed.importFrom)

  /** The cursor of the last page given (stored once the run asks for the next). */
  let committed = startAfter
  /** The `added_after` of the walk under way: a `next` is valid only with its walk's parameters. */
  let walkAfter = startAfter
  let next: string | undefined
  /** X-TAXII-Date-Added-Last of the walk's previous page with objects. */
  let previousLast: string | undefined
  let pagesSinceRestart = 0
  /** Envelopes in a row that said `more` and held nothing: a server going round in circles is stopped. */
  let emptyInARow = 0
  let fetched = 0
  let pageNumber = 0

  while (!signal.aborted) {
    if (fetched >= context.remaining && committed !== startAfter) return
    const query = new URLSearchParams({ limit: String(pageSize) })
    if (walkAfter !== undefined) query.set('added_after', walkAfter)
    if (feed.settings.types?.length) query.set('match[type]', feed.settings.types.join(','))
    if (next !== undefined) query.set('next', next)

    let text: string
    let first: string | undefined
    let last: string | undefined
    try {
      const response = await http.request(`${objectsUrl}?${query}`, { headers: { accept: TAXII21_MEDIA_TYPE } })
      first = validTimestamp(response.header('x-taxii-date-added-first'))
      last = validTimestamp(response.header('x-taxii-date-added-last'))
      text = await response.text()
    } catch (error) {
      if (next !== undefined && expiredNext(error)) {
        if (pagesSinceRestart === 0) throw error
        // The walk's `next` is gone (medallion keeps one 30 s): walk again from what is stored.
        walkAfter = committed
        next = undefined
        previousLast = undefined
        pagesSinceRestart = 0
        continue
      }
      if (next === undefined && statusOf(error) === 404)
        throw notFound(
          `The TAXII collection '${collection.title ?? collection.id}' has no objects endpoint at ${safeUrl(root)} (404)`,
        )
      throw error
    }

    const envelope = parseEnvelope(text, safeUrl(objectsUrl))
    const objects = Array.isArray(envelope.objects) ? (envelope.objects as unknown[]) : []
    const more = envelope.more === true
    const nextToken = typeof envelope.next === 'string' && envelope.next !== '' ? envelope.next : undefined
    if (objects.length === 0) {
      first = undefined
      last = undefined
      if (more && ++emptyInARow > MAX_EMPTY_IN_A_ROW)
        throw invalid(`${safeUrl(objectsUrl)} answered more=true with no objects ${MAX_EMPTY_IN_A_ROW} times in a row`)
    } else {
      emptyInARow = 0
    }

    let cursor: string | undefined
    if (!more) {
      // The walk is whole: every object up to its last date is stored once this page is.
      cursor = last ?? previousLast ?? committed
    } else {
      cursor = newestBelow(last, [first, previousLast, committed]) ?? committed
    }
    if (last !== undefined) previousLast = last

    if (objects.length > 0 || cursor !== committed) {
      pageNumber++
      yield {
        format: stixBundle.name,
        content: bundleText(objects),
        name: `page ${pageNumber}`,
        fetched: objects.length,
        cursor: makeCursor(collection.id, cursor),
      }
      committed = cursor
      fetched += objects.length
      pagesSinceRestart++
    }

    if (!more) return
    if (nextToken !== undefined) {
      next = nextToken
      continue
    }
    // `more` without `next` (TAXII 2.1 §3.5 lets a client go on with added_after): from the safe
    // cursor, or, when a whole page shared one date and the cursor could not move, past it (the
    // server offers no way to the rest of that date; the only case this puller can lose objects).
    if (objects.length === 0) return
    walkAfter = committed !== walkAfter ? committed : last
    next = undefined
    previousLast = undefined
  }
}

async function resolveCollection(http: FeedHttp, root: string, wanted: string | undefined): Promise<Collection> {
  let text: string
  try {
    text = await (await http.request(`${root}collections/`, { headers: { accept: TAXII21_MEDIA_TYPE } })).text()
  } catch (error) {
    if (statusOf(error) === 404)
      throw notFound(`${safeUrl(root)} is not a TAXII 2.1 API root: its collections/ answered 404`)
    throw error
  }
  const body = parseEnvelope(text, `${safeUrl(root)}collections/`) as { collections?: unknown }
  const collections = (Array.isArray(body.collections) ? body.collections : []).filter(
    (c): c is Collection => !!c && typeof c === 'object' && typeof (c as Collection).id === 'string',
  )
  const names = collections.map((c) => c.title ?? c.id).join(', ') || 'none'
  if (wanted === undefined || wanted.trim() === '') {
    if (collections.length === 1) return collections[0]
    throw invalid(`The feed names no TAXII collection (settings.collection); ${safeUrl(root)} offers: ${names}`)
  }
  const folded = wanted.toLowerCase()
  const found =
    collections.find((c) => c.id === wanted) ??
    collections.find((c) => c.alias === wanted) ??
    collections.find((c) => c.title === wanted) ??
    only(collections.filter((c) => c.alias?.toLowerCase() === folded || c.title?.toLowerCase() === folded))
  if (!found) throw notFound(`The TAXII collection '${wanted}' is not at ${safeUrl(root)}: it offers ${names}`)
  return found
}

const only = <T>(list: T[]): T | undefined => (list.length === 1 ? list[0] : undefined)

function parseEnvelope(text: string, where: string): Envelope {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    throw invalid(`${where} did not answer with TAXII JSON`)
  }
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw invalid(`${where} did not answer with a TAXII resource`)
  return body as Envelope
}

/** The page's objects as a bundle's text, in chunks: the reader streams it like a file. */
async function* bundleText(objects: unknown[]): AsyncIterable<string> {
  let chunk = `{"type":"bundle","id":"bundle--${randomUUID()}","objects":[`
  for (let i = 0; i < objects.length; i++) {
    chunk += (i ? ',' : '') + JSON.stringify(objects[i])
    if (chunk.length >= CHUNK) {
      yield chunk
      chunk = ''
    }
  }
  yield `${chunk}]}`
}

function makeCursor(collection: string, addedAfter: string | undefined): FeedCursor {
  const cursor: Taxii21Cursor = { collection }
  if (addedAfter !== undefined) cursor.addedAfter = addedAfter
  return { ...cursor }
}

function readCursor(cursor: FeedCursor | null): Taxii21Cursor | undefined {
  if (!cursor || typeof cursor.collection !== 'string') return undefined
  const addedAfter = validTimestamp(typeof cursor.addedAfter === 'string' ? cursor.addedAfter : undefined)
  return { collection: cursor.collection, addedAfter }
}

const TIMESTAMP = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$/i

/**
 * A timestamp as microseconds since 1970, or undefined. Finer digits are cut, so two dates that
 * differ below a microsecond compare equal: never "below" — the safe way round for the cursor.
 */
export function microseconds(text: string): number | undefined {
  const m = TIMESTAMP.exec(text.trim())
  if (!m) return undefined
  const seconds = Date.parse(`${m[1]}${m[3].toUpperCase()}`)
  if (Number.isNaN(seconds)) return undefined
  return seconds * 1000 + Number((m[2] ?? '').padEnd(6, '0').slice(0, 6))
}

function validTimestamp(text: string | undefined): string | undefined {
  return text !== undefined && microseconds(text) !== undefined ? text.trim() : undefined
}

/** The newest of `candidates` strictly before `limit`; undefined when `limit` is unknown or none is. */
export function newestBelow(limit: string | undefined, candidates: (string | undefined)[]): string | undefined {
  if (limit === undefined) return undefined
  const bound = microseconds(limit)!
  let best: string | undefined
  let bestAt = Number.NEGATIVE_INFINITY
  for (const candidate of candidates) {
    const at = candidate === undefined ? undefined : microseconds(candidate)
    if (at !== undefined && at < bound && at > bestAt) {
      best = candidate
      bestAt = at
    }
  }
  return best
}

/** A TAXII timestamp (§2: UTC, microseconds) of an ISO 8601 time (the feed's importFrom). */
export function taxiiTimestamp(iso: string): string {
  const at = Date.parse(iso)
  if (Number.isNaN(at)) throw invalid(`importFrom is not a time: '${iso}'`)
  return `${new Date(at).toISOString().slice(0, 23)}000Z`
}

function statusOf(error: unknown): number | undefined {
  return error instanceof FeedFetchError && error.code === 'status' ? error.details.status : undefined
}

/** How servers refuse a `next` they no longer hold: medallion 400, others 404 or 410. */
function expiredNext(error: unknown): boolean {
  const status = statusOf(error)
  return status === 400 || status === 404 || status === 410
}

/** A URL for a message: no credentials, no query. */
function safeUrl(url: string): string {
  try {
    const u = new URL(url)
    return `${u.origin}${u.pathname}`
  } catch {
    return '(the feed URL)'
  }
}

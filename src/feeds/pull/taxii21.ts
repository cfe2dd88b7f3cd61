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
 *
 * The sweep. All of the above holds only where the WHOLE collection is in date_added order; a
 * server may serve it in parts, each in order (Bulwark: markings, then Indicators, then Groups
 * and relationships). A walk resumed from a cursor D taken in an earlier part never sees what a
 * later part holds dated at or before D. So every cursor of an unfinished pull also keeps
 * `pullFrom`, the `added_after` the pull began with; a pull that did not walk unbroken from there
 * (resumed from such a cursor, or going on with a later `added_after` after an expired `next` or a
 * `more` without `next`) follows its whole walk by a sweep: a second walk from `pullFrom` with
 * `match[type]` = SWEEP_TYPES (∩ settings.types), every type the stix reader imports but
 * `indicator`. The objects it re-reads are stored `unchanged`.
 * The sweep's pages carry its own safe cursor (`sweep.addedAfter`, the same rule), so a stop during
 * the sweep resumes the sweep, not the walk. Only its end drops `pullFrom`, and the cursor becomes
 * the walk's last date, not the sweep's: an Indicator stored after the walk ended may be dated
 * below the sweep's last date. An unbroken pull makes no sweep.
 * A sweep resumed after a stop is itself lossless only if the server orders the sweep's types by
 * date_added among themselves. Bulwark does, but for its few markings (dated 2017 and 2022), which
 * come first; its Groups and relationships follow in one date order, and a page's cursor is never
 * past the page's own last date, so no marking moves it past a Group unread. A server that also
 * split those types into parts could, after a stop during the sweep, hide a later part's objects
 * dated in (pullFrom, the sweep's cursor] until they change. Sweeping again from `pullFrom` after such a stop would close that, but
 * a sweep longer than the run's cap would then be cut at the same place every run and never end,
 * and on a server ordering those types it would re-read the sweep for nothing; so it does not.
 */
import { randomUUID } from 'node:crypto'
import { invalid, notFound } from '../../core/errors.js'
import type { FeedCursor } from '../../domain/feeds/feed.js'
import { FeedFetchError, type FeedHttp, type PullContext, type PullPage, type Puller } from '../../domain/feeds/pull.js'
import { stixBundle } from '../../formats/stix2/bundle.js'
import { GROUP_TYPE_OF, SCO_TYPES } from '../../formats/stix2/graph.js'

export const TAXII21_MEDIA_TYPE = 'application/taxii+json;version=2.1'

/** Objects asked for a page; a server may cap it lower (medallion's max_page_size, Bulwark's 10,000). */
export const DEFAULT_TAXII21_PAGE = 1000

/** What a TAXII 2.1 feed keeps between pulls. */
export interface Taxii21Cursor {
  /** The collection's id the cursor is of: a feed moved to another collection starts again. */
  collection: string
  /**
   * The walk's `added_after`: every object the server dated at or before it is stored (of the
   * walk's part, where the server interleaves; see the sweep above).
   */
  addedAfter?: string
  /**
   * Only while a pull is unfinished: the `added_after` it began with (null: from the beginning).
   * A pull resumed from such a cursor sweeps from here once its walk is whole.
   */
  pullFrom?: string | null
  /** Only once the walk is whole and its sweep is under way: the sweep's own `added_after`. */
  sweep?: { addedAfter?: string }
}

/**
 * What the sweep asks for: every STIX type the stix reader imports (formats/stix2/bundle.ts) but
 * `indicator` — the SDOs it makes Groups of, relationships, sightings, the SCOs it makes Indicators
 * of, and the marking definitions (harmless: re-read, they are unchanged).
 */
export const SWEEP_TYPES: readonly string[] = [
  ...GROUP_TYPE_OF.keys(),
  'relationship',
  'sighting',
  ...SCO_TYPES,
  'marking-definition',
]

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
  const types = feed.settings.types?.length ? feed.settings.types : undefined
  const sweepTypes = types ? SWEEP_TYPES.filter((t) => types.includes(t)) : [...SWEEP_TYPES]
  const stored = readCursor(context.cursor)
  const same = stored?.collection === collection.id ? stored : undefined

  /** Where this pull began (its first walk's added_after); kept in every cursor until the pull is whole. */
  let pullFrom: string | null
  /** The walk's added_after: the stored cursor's, or, resuming a sweep, the sweep's. */
  let start: string | undefined
  /** Set when the walk did not run unbroken from pullFrom: the sweep must follow it. */
  let broken = false
  /** Set when the stored cursor is of a pull whose walk is whole and whose sweep is under way. */
  let walkLast: string | undefined
  let sweeping = false
  if (same?.pullFrom !== undefined) {
    pullFrom = same.pullFrom
    if (same.sweep) {
      sweeping = true
      walkLast = same.addedAfter
      start = same.sweep.addedAfter
    } else {
      start = same.addedAfter
      broken = (start ?? null) !== pullFrom
    }
  } else {
    start =
      same?.addedAfter !== undefined
        ? same.addedAfter
        : feed.importFrom === undefined
          ? undefined
          : taxiiTimestamp(feed.importFrom)
    pullFrom = start ?? null
  }

  const cursorOf = (addedAfter: string | undefined, unfinished: boolean, sweep?: { addedAfter?: string }) =>
    makeCursor(collection.id, addedAfter, unfinished ? pullFrom : undefined, sweep)
  const initial = sweeping ? cursorOf(walkLast, true, { addedAfter: start }) : cursorOf(start, true)
  const initialKey = JSON.stringify(initial)
  /** The cursor last given (or stored, as it was): a page without objects is given only to change it. */
  let committed = same && same.pullFrom === undefined ? JSON.stringify(cursorOf(start, false)) : initialKey
  let moved = false
  let fetched = 0
  let pageNumber = 0
  // A run stops at a page boundary past its cap, once its cursor has moved (see the top of this file).
  const stop = () => fetched >= context.remaining && moved
  const page = (objects: unknown[], cursor: FeedCursor): PullPage | undefined => {
    const key = JSON.stringify(cursor)
    if (objects.length === 0 && key === committed) return undefined
    committed = key
    if (key !== initialKey) moved = true
    fetched += objects.length
    return {
      format: stixBundle.name,
      content: bundleText(objects),
      name: `page ${++pageNumber}`,
      fetched: objects.length,
      cursor,
    }
  }
  const missing = `The TAXII collection '${collection.title ?? collection.id}' has no objects endpoint at ${safeUrl(root)} (404)`
  const walk = (after: string | undefined, match: readonly string[] | undefined, onRestart?: (from?: string) => void) =>
    walkTaxii21({ http, signal, objectsUrl, missing, pageSize, after, match, stop, onRestart })

  if (!sweeping) {
    let whole = false
    for await (const w of walk(start, types, (from) => {
      // A walk begun again from a later date is a resume: what an interleaving server served below it is behind it.
      if ((from ?? null) !== pullFrom) broken = true
    })) {
      whole = w.whole
      const sweepNext = w.whole && broken && sweepTypes.length > 0
      const cursor = sweepNext
        ? cursorOf(w.cursor, true, { addedAfter: pullFrom ?? undefined })
        : cursorOf(w.cursor, !w.whole)
      const out = page(w.objects, cursor)
      if (out) yield out
      walkLast = w.cursor
    }
    if (!whole || !broken || sweepTypes.length === 0) return
    start = pullFrom ?? undefined
  } else if (sweepTypes.length === 0) {
    // The feed's types changed since the sweep began, leaving it nothing to ask for: the pull is whole.
    const out = page([], cursorOf(walkLast, false))
    if (out) yield out
    return
  }
  for await (const w of walk(start, sweepTypes)) {
    const out = page(
      w.objects,
      w.whole ? cursorOf(walkLast, false) : cursorOf(walkLast, true, { addedAfter: w.cursor }),
    )
    if (out) yield out
  }
}

interface WalkPage {
  objects: unknown[]
  /** The added_after at or before which every object of the walk is stored once this page is. */
  cursor: string | undefined
  /** The walk has ended (`more` false): the cursor is its last date. */
  whole: boolean
}

/**
 * One walk of the collection from `after` (following `next`, or `added_after` where a server gives
 * none), as pages with the walk's own safe cursor. A page is given whenever it holds objects or
 * moves the cursor, and always at the walk's end. It stops before a request once `stop()` says so.
 */
async function* walkTaxii21(w: {
  http: FeedHttp
  signal: AbortSignal
  objectsUrl: string
  /** The not-found message for a 404 to a walk's first request. */
  missing: string
  pageSize: number
  after: string | undefined
  match: readonly string[] | undefined
  stop: () => boolean
  /** Called when the walk goes on with a new `added_after` (an expired `next`, `more` without `next`), with that date. */
  onRestart?: (from: string | undefined) => void
}): AsyncGenerator<WalkPage> {
  const { http, signal, objectsUrl } = w
  /** The cursor of the last page given (stored once the run asks for the next). */
  let committed = w.after
  /** The `added_after` of the walk under way: a `next` is valid only with its walk's parameters. */
  let walkAfter = w.after
  let next: string | undefined
  /** X-TAXII-Date-Added-Last of the walk's previous page with objects. */
  let previousLast: string | undefined
  let pagesSinceRestart = 0
  /** Envelopes in a row that said `more` and held nothing: a server going round in circles is stopped. */
  let emptyInARow = 0

  while (!signal.aborted && !w.stop()) {
    const query = new URLSearchParams({ limit: String(w.pageSize) })
    if (walkAfter !== undefined) query.set('added_after', walkAfter)
    if (w.match) query.set('match[type]', w.match.join(','))
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
        w.onRestart?.(committed)
        continue
      }
      if (next === undefined && statusOf(error) === 404) throw notFound(w.missing)
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

    if (objects.length > 0 || cursor !== committed || !more) {
      yield { objects, cursor, whole: !more }
      committed = cursor
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
    w.onRestart?.(walkAfter)
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

function makeCursor(
  collection: string,
  addedAfter: string | undefined,
  pullFrom: string | null | undefined,
  sweep: { addedAfter?: string } | undefined,
): FeedCursor {
  const cursor: Taxii21Cursor = { collection }
  if (addedAfter !== undefined) cursor.addedAfter = addedAfter
  if (pullFrom !== undefined) cursor.pullFrom = pullFrom
  if (sweep) cursor.sweep = sweep.addedAfter === undefined ? {} : { addedAfter: sweep.addedAfter }
  return { ...cursor }
}

function readCursor(cursor: FeedCursor | null): Taxii21Cursor | undefined {
  if (!cursor || typeof cursor.collection !== 'string') return undefined
  const addedAfter = validTimestamp(typeof cursor.addedAfter === 'string' ? cursor.addedAfter : undefined)
  const out: Taxii21Cursor = { collection: cursor.collection, addedAfter }
  // An unreadable pullFrom sweeps from the beginning: slower, never short.
  if ('pullFrom' in cursor)
    out.pullFrom = validTimestamp(typeof cursor.pullFrom === 'string' ? cursor.pullFrom : undefined) ?? null
  if (out.pullFrom !== undefined && cursor.sweep && typeof cursor.sweep === 'object') {
    const after = (cursor.sweep as { addedAfter?: unknown }).addedAfter
    out.sweep = { addedAfter: validTimestamp(typeof after === 'string' ? after : undefined) }
  }
  return out
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

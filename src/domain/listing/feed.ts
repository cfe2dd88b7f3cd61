/**
 * An owner's Indicators as a feed, independent of any protocol: which owners an account may
 * read as feeds, and a keyset-paged read of one owner's Indicators in a stable order. The
 * TAXII 2.1 collections (protocols/taxii21) and the TAXII 1.1 poll service both read through
 * here, so the access rule and the paging rule exist once.
 *
 * Order: last change (`lastModified`), then id. A position is the (lastModified, id) of the
 * last Indicator served; the next page starts strictly after it, so a page boundary inside a
 * run of Indicators sharing one timestamp neither loses nor repeats one. A position holds no
 * server state: any process can serve the next page. An Indicator changed during a walk moves
 * to the end of the order and is served again there, as its newer version.
 *
 * @example
 *   const owners = feedOwners(caller)                       // what may be listed as feeds
 *   let page = await readFeed(store, caller, { ownerId: owners[0].ownerId, limit: 1000 })
 *   while (page.more) page = await readFeed(store, caller, { ownerId, after: page.last, limit: 1000 })
 */
import type { Store } from '../../store/connect.js'
import {
  FEED_ROW as C,
  type FeedRow,
  countFeedRows,
  selectFeedIds,
  selectFeedRows,
  selectBySourceStixIds,
  selectFeedSpan,
  selectIndicatorStixIds,
  selectLabelNamesInUse,
  selectWithSourceStixIds,
} from '../../store/repositories/feed.repository.js'
import { feedOwners } from '../access/owner-scope.js'
import type { Caller } from '../context.js'
import { invalid, notFound } from '../../core/errors.js'
import type { Membership } from '../permissions.js'

/** The largest page one read returns; larger requests are clamped to it. */
export const MAX_FEED_PAGE = 10_000

export interface FeedPosition {
  lastModified: string
  id: number
}

export interface FeedQuery {
  ownerId: number
  /** Continue after this position (from the previous page's `last`). */
  after?: FeedPosition
  /** Exclusive lower bound on the last change: only Indicators changed strictly after it. */
  since?: string
  /** Inclusive upper bound on the last change. */
  until?: string
  /** Inclusive upper bound on the position: nothing after this Indicator (a planned page's `last`). */
  through?: FeedPosition
  /** Only Indicators whose version, the later of their last change and their creation, is one of these (stored form). */
  versions?: readonly string[]
  /** Indicator type names (Address, File …); absent means every type. */
  types?: readonly string[]
  /** Only these Indicators (ids as in `FeedIndicator.id`). */
  ids?: readonly number[]
  /** Page size, 1 … MAX_FEED_PAGE (larger is clamped). */
  limit: number
}

export interface FeedIndicator {
  id: number
  ownerId: number
  type: string
  summary: string
  /** value1 … value3 as stored (File: MD5, SHA-1, SHA-256; Registry Key: key, value name, value type …). */
  values: [string | null, string | null, string | null]
  rating: number | null
  confidence: number | null
  description: string | null
  active: boolean
  dateAdded: string
  lastModified: string
  /** When the Indicator was added in its external source (externalDateAdded), when set. */
  externalAdded: string | null
  /** When the Indicator expires in its external source, when set. */
  expires: string | null
  /** The source STIX id it is served under, when its indicator object made it alone (migration 0139). */
  stixId?: string | null
  tags: string[]
  securityLabels: string[]
}

export interface FeedPage {
  indicators: FeedIndicator[]
  /** More Indicators follow this page. */
  more: boolean
  /** Position of the page's last Indicator: pass it as `after` for the next page. */
  last?: FeedPosition
}

/** One feed owner by id; an owner the caller may not read as a feed is as unknown as a missing one. */
export function feedOwner(caller: Caller, ownerId: number): Membership {
  const owner = feedOwners(caller).find((m) => m.ownerId === ownerId)
  if (!owner) throw notFound('No such feed')
  return owner
}

export async function readFeed(store: Store, caller: Caller, query: FeedQuery): Promise<FeedPage> {
  const limit = pageLimit(caller, query)
  const rows = await selectFeedRows(store, store.db, { ...rowQuery(query), limit: limit + 1 })
  const more = rows.length > limit
  const count = more ? limit : rows.length
  const indicators = new Array<FeedIndicator>(count)
  for (let i = 0; i < count; i++) indicators[i] = toFeedIndicator(rows[i])
  const tail = indicators.at(-1)
  return { indicators, more, last: tail ? { lastModified: tail.lastModified, id: tail.id } : undefined }
}

/** Where a page would begin and end, without its Indicators. */
export interface FeedPlan {
  /** Indicators on the page (fewer when some are deleted or changed before it is read). */
  count: number
  first?: FeedPosition
  /** Pass it as `through` to read exactly this page, and as `after` for the next one. */
  last?: FeedPosition
  more: boolean
}

/**
 * The bounds of the page readFeed would return for this query, from the positions alone (an
 * index-only read on an owner's unfiltered feed). A protocol that must name a page's first and
 * last Indicator before sending any of it plans the page, then reads it in parts with `through`
 * set to the plan's `last`: an Indicator changed meanwhile moves past the bound and is served
 * on a later page, so nothing is lost or repeated.
 */
export async function planFeedPage(store: Store, caller: Caller, query: FeedQuery): Promise<FeedPlan> {
  const span = await selectFeedSpan(store, store.db, { ...rowQuery(query), limit: pageLimit(caller, query) })
  const position = (key: [string, number] | undefined) => key && { lastModified: key[0], id: key[1] }
  return { count: span.count, first: position(span.first), last: position(span.last), more: span.more }
}

/**
 * How many Indicators a read with this query would walk through from its position, counting
 * at most `cap` when given (so "more than N left?" stays cheap on a large feed).
 *
 * @example
 *   const total = await countFeed(store, caller, { ownerId, since, until })
 *   const moreThanAPart = (await countFeed(store, caller, { ownerId, after, until, cap: part + 1 })) > part
 */
export async function countFeed(
  store: Store,
  caller: Caller,
  query: Omit<FeedQuery, 'limit'> & { cap?: number },
): Promise<number> {
  feedOwner(caller, query.ownerId)
  return countFeedRows(store.db, { ...rowQuery(query), cap: query.cap })
}

/**
 * Every Indicator id in a feed, ascending, or those above `afterId`: for protocols whose object
 * ids are derived from them and must be resolved back.
 */
export async function listFeedIndicatorIds(
  store: Store,
  caller: Caller,
  ownerId: number,
  afterId?: number,
): Promise<number[]> {
  feedOwner(caller, ownerId)
  return selectFeedIds(store.db, ownerId, afterId)
}

/**
 * Indicator ids behind STIX ids (objects/{id}, match[id]): `sourceIds` found as the source ids
 * Indicators are served under (migration 0139's index), `derived` (candidates from derived ids)
 * kept only where the Indicator is not served under a source id instead.
 */
export async function resolveFeedStixIds(
  store: Store,
  caller: Caller,
  ownerId: number,
  sourceIds: readonly string[],
  derived: readonly number[],
): Promise<number[]> {
  feedOwner(caller, ownerId)
  const [bySource, renamed] = await Promise.all([
    selectBySourceStixIds(store.db, ownerId, sourceIds),
    derived.length ? selectWithSourceStixIds(store.db, derived) : [],
  ])
  const elsewhere = new Set(renamed)
  return [...bySource.map((r) => r.id), ...derived.filter((id) => !elsewhere.has(id))]
}

/** Which of the named security labels are on at least one Indicator of the feed. */
export async function feedLabelsInUse(
  store: Store,
  caller: Caller,
  ownerId: number,
  names: readonly string[],
): Promise<string[]> {
  feedOwner(caller, ownerId)
  return selectLabelNamesInUse(store.db, ownerId, names)
}

/** The page size a read of this query uses, once the caller may read the feed and the size is valid. */
function pageLimit(caller: Caller, query: FeedQuery): number {
  feedOwner(caller, query.ownerId)
  if (!Number.isInteger(query.limit) || query.limit < 1) throw invalid('The page size must be a positive integer')
  return Math.min(query.limit, MAX_FEED_PAGE)
}

function rowQuery(q: Omit<FeedQuery, 'limit'>) {
  return {
    ownerId: q.ownerId,
    until: q.until,
    through: q.through,
    versions: q.versions,
    types: q.types,
    ids: q.ids,
    after: startAfter(q),
  }
}

/** The later of `after` and `since` (a time alone starts after every Indicator of that time). */
function startAfter(q: Omit<FeedQuery, 'limit'>): { lastModified: string; id: number | null } | undefined {
  if (q.since === undefined) return q.after
  if (q.after === undefined || q.after.lastModified < q.since) return { lastModified: q.since, id: null }
  return q.after.lastModified === q.since ? { lastModified: q.since, id: null } : q.after
}

function toFeedIndicator(r: FeedRow): FeedIndicator {
  return {
    id: r[C.id],
    ownerId: r[C.ownerId],
    type: r[C.type],
    summary: r[C.summary],
    values: [r[C.value1], r[C.value2], r[C.value3]],
    rating: r[C.rating] === null ? null : Number(r[C.rating]),
    confidence: r[C.confidence],
    description: r[C.description],
    active: !!r[C.active],
    dateAdded: r[C.dateAdded],
    lastModified: r[C.lastModified],
    externalAdded: r[C.externalAdded],
    expires: r[C.expires],
    stixId: r[C.stixId],
    tags: r[C.tags],
    securityLabels: r[C.labels],
  }
}

/** The source STIX ids some of these Indicators are served under (migration 0139), by Indicator id: for the STIX export. */
export function loadIndicatorStixIds(store: Store, ids: readonly number[]): Promise<Map<number, string>> {
  return selectIndicatorStixIds(store.db, ids)
}

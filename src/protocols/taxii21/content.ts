/**
 * What a collection holds, as TAXII serves it: the owner's feed (domain/listing/feed.ts) as
 * STIX objects — its marking definitions first, then one indicator per Indicator, then its
 * Groups and their relationships (formats/stix2/stix-graph.ts) — with the standard's filters
 * applied and a keyset position after each page.
 *
 * date_added: a marking's `created`; an Indicator's or a Group's last change (each change is a
 * new version, added then; only the newest version is kept, so every object has one version);
 * an association's creation.
 */
import { feedOwners } from '../../domain/access/owner-scope.js'
import type { Caller } from '../../domain/context.js'
import {
  type FeedIndicator,
  type FeedPage,
  type FeedPlan,
  type FeedPosition,
  type FeedQuery,
  feedLabelsInUse,
  listFeedIndicatorIds,
  planFeedPage,
  readFeed,
  resolveFeedStixIds,
} from '../../domain/listing/feed.js'
import { feedGroupLabelsInUse, readFeedGraph } from '../../domain/listing/feed-graph.js'
import { type GraphObject, SERVED_GROUP_TYPES, stixGraphObjects } from '../../formats/stix2/stix-graph.js'
import type { Membership } from '../../domain/permissions.js'
import { notFound } from '../../core/errors.js'
import type { Store } from '../../store/connect.js'
import type { ObjectFilters, Position } from './params.js'
import {
  type AppVersion,
  MARKINGS,
  OPTIONAL_MARKING_LABELS,
  type StixIds,
  type StixMarking,
  collectionMarkings,
  stixIndicatorId,
  stixModified,
  stixPattern,
} from '../../formats/stix2/stix.js'
import { IndicatorJsonWriter } from '../../formats/stix2/stix-json.js'
import type { StixIdIndex } from './stix-id-index.js'

export interface TaxiiEnv {
  store: Store
  caller: Caller
  ids: StixIds
  /** The process's STIX id → Indicator id look-up, shared by every request. */
  index: StixIdIndex
  version: AppVersion
}

export interface Collection {
  id: string
  owner: Membership
}

/** One object of a page; its JSON text is made when the page writes it (`json`). */
export interface Item {
  /** Stored-time form. */
  readonly dateAdded: string
  /** The object's STIX version: `modified`, or `created` for markings. */
  readonly version: string
  stixId(): string
  /** The STIX object as JSON text. */
  json(): string
}

class MarkingItem implements Item {
  readonly dateAdded: string
  readonly version: string
  constructor(private readonly marking: StixMarking) {
    this.dateAdded = marking.created
    this.version = marking.created
  }

  stixId() {
    return this.marking.id
  }
  json() {
    return JSON.stringify(this.marking)
  }
}

class IndicatorItem implements Item {
  readonly dateAdded: string
  readonly version: string
  constructor(
    private readonly writer: IndicatorJsonWriter,
    private readonly ids: StixIds,
    private readonly indicator: FeedIndicator,
    private readonly pattern: string,
  ) {
    this.dateAdded = indicator.lastModified
    this.version = stixModified(indicator)
  }

  stixId() {
    return stixIndicatorId(this.ids, this.indicator)
  }
  json() {
    return this.writer.write(this.indicator, this.pattern)
  }
}

class GraphItem implements Item {
  readonly dateAdded: string
  readonly version: string
  constructor(private readonly o: GraphObject) {
    this.dateAdded = o.dateAdded
    this.version = o.version
  }

  stixId() {
    return this.o.id
  }
  json() {
    return JSON.stringify(this.o.object)
  }
}

/**
 * A page of a collection: what its envelope and headers say, known before any of its objects
 * is read, and then the objects, a read batch at a time, so the page can be sent as it is read.
 */
export interface ItemPage {
  /** date_added (stored form) of the page's first and last object, when it has any. */
  firstAdded?: string
  lastAdded?: string
  more: boolean
  next?: Position
  batches: AsyncIterable<Item[]> | Iterable<Item[]>
}

/**
 * Indicators read at a time within a page. A page of 10,000 read at once kept all its records
 * alive until it was written, long enough for the garbage collector to move them to the old
 * generation, and the old generation's limit grows with what lives there: about 50 MB more
 * resident memory at limit=10000 than at limit=1000. Read and sent in parts, the records die
 * young, and the client parses the first part while the server reads the next. A part is also
 * what the event loop is held for between turns (routes.ts waits for interactive requests
 * there): 2,000 Indicators read, turned into objects and written held it for about 40 ms on
 * SQLite, which a TQL search arriving meanwhile waited out; 500 hold it for about a quarter.
 */
const READ_BATCH = 500

/** The caller's collections, one per owner it may read as a feed, sorted by id. */
export function listCollections(env: TaxiiEnv): Collection[] {
  return feedOwners(env.caller)
    .map((owner) => ({ id: env.ids.collection(owner.ownerId), owner }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
}

/**
 * By collection id, else by the id it had before ids took the version 4 form (so a client
 * configured with one keeps reading), else by owner name (the alias); an owner the caller may not
 * read is not found.
 */
export function findCollection(env: TaxiiEnv, idOrName: string): Collection {
  const all = listCollections(env)
  const id = idOrName.toLowerCase()
  const found =
    all.find((c) => c.id === id) ??
    all.find((c) => env.ids.formerCollection(c.owner.ownerId) === id) ??
    all.find((c) => c.owner.ownerName === idOrName)
  if (!found) throw notFound(`No collection '${idOrName}'`)
  return found
}

async function markingsOf(env: TaxiiEnv, c: Collection): Promise<StixMarking[]> {
  const [indicators, groups] = await Promise.all([
    feedLabelsInUse(env.store, env.caller, c.owner.ownerId, OPTIONAL_MARKING_LABELS),
    feedGroupLabelsInUse(env.store, env.caller, c.owner.ownerId, OPTIONAL_MARKING_LABELS),
  ])
  return collectionMarkings([...indicators, ...groups])
}

/** The collection's Groups and relationships that pass the filters, in date_added order, after the position when given. */
async function graphObjects(env: TaxiiEnv, c: Collection, f: ObjectFilters): Promise<GraphObject[]> {
  if (!f.specVersionMatches) return []
  const all = stixGraphObjects(
    env.ids,
    await readFeedGraph(env.store, env.caller, c.owner.ownerId, [...SERVED_GROUP_TYPES.keys()]),
  )
  const p = f.position?.phase === 'graph' ? f.position : undefined
  return all.filter(
    (o) =>
      (!f.types || f.types.has(o.type)) &&
      (!f.ids || f.ids.includes(o.id)) &&
      (!f.versions || f.versions.has(o.version)) &&
      (f.addedAfter === undefined || o.dateAdded > f.addedAfter) &&
      (!p || o.dateAdded > p.dateAdded || (o.dateAdded === p.dateAdded && o.id > p.id)),
  )
}

/** Whether any Group or relationship type could pass a match[type] filter (so the graph need not be read). */
const graphApplies = (f: ObjectFilters) =>
  f.specVersionMatches && (!f.types || [...f.types].some((t) => t !== 'indicator' && t !== 'marking-definition'))

function markingItem(m: StixMarking): Item {
  return new MarkingItem(m)
}

function markingMatches(m: StixMarking, f: ObjectFilters): boolean {
  return (
    f.specVersionMatches &&
    (!f.types || f.types.has('marking-definition')) &&
    (!f.ids || f.ids.includes(m.id)) &&
    (!f.versions || f.versions.has(m.created)) &&
    (f.addedAfter === undefined || m.created > f.addedAfter)
  )
}

/** An Indicator whose value has no pattern (nothing valid stores one) is left out. */
function indicatorItems(env: TaxiiEnv, c: Collection, indicators: FeedIndicator[]): Item[] {
  const items: Item[] = []
  const writer = new IndicatorJsonWriter(env.ids, c.owner.ownerName, env.version)
  for (const indicator of indicators) {
    const pattern = stixPattern(indicator.type, indicator.values)
    if (pattern === undefined) continue
    items.push(new IndicatorItem(writer, env.ids, indicator, pattern))
  }
  return items
}

/**
 * Indicator ids behind STIX ids: the source ids imported Indicators are served under (by their
 * index), and ids shaped like our derived ones (stix-id-index.ts), less those whose Indicator is
 * served under a source id instead. Anything else names nothing.
 */
async function resolveIndicatorIds(env: TaxiiEnv, c: Collection, stixIds: readonly string[]): Promise<number[]> {
  const asked = stixIds.filter((id) => id.startsWith('indicator--'))
  if (asked.length === 0) return []
  const ours = asked.filter((id) => DERIVED_ID.test(id))
  const ownerId = c.owner.ownerId
  const derived = ours.length
    ? await env.index.resolve(ownerId, ours, (afterId) => listFeedIndicatorIds(env.store, env.caller, ownerId, afterId))
    : []
  // A source's id may be of any UUID version, ours too (the same UUIDv5 from another installation): all are looked up.
  return resolveFeedStixIds(env.store, env.caller, ownerId, asked, derived)
}

const DERIVED_ID = /^indicator--[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

/**
 * One page of the collection's objects (or manifest records) in date_added order. The page's
 * Indicators are planned first (domain/listing/feed.ts planFeedPage), so its bounds, `more`
 * and `next` are known before it is read; it is then read up to the plan's last Indicator.
 */
export async function openItemPage(env: TaxiiEnv, c: Collection, f: ObjectFilters): Promise<ItemPage> {
  const indicatorIds = f.ids ? await resolveIndicatorIds(env, c, f.ids) : undefined
  const indicatorsApply =
    f.position?.phase !== 'graph' &&
    f.specVersionMatches &&
    (!f.types || f.types.has('indicator')) &&
    (!indicatorIds || indicatorIds.length > 0)
  const feedQuery: Omit<FeedQuery, 'limit'> = {
    ownerId: c.owner.ownerId,
    since: f.addedAfter,
    ids: indicatorIds,
    versions: f.versions && [...f.versions],
    after: f.position?.phase === 'indicator' ? { lastModified: f.position.lastModified, id: f.position.id } : undefined,
  }
  let markings: Item[] = []
  let room = f.limit

  if (f.position === undefined || f.position.phase === 'marking') {
    const start = f.position ? f.position.index + 1 : 0
    const candidates = (await markingsOf(env, c)).filter((m) => MARKINGS.indexOf(m) >= start && markingMatches(m, f))
    const taken = candidates.slice(0, f.limit)
    markings = taken.map(markingItem)
    room -= taken.length
    if (room === 0) {
      const more =
        candidates.length > f.limit ||
        (indicatorsApply && (await planFeedPage(env.store, env.caller, { ...feedQuery, limit: 1 })).count > 0) ||
        (graphApplies(f) && (await graphObjects(env, c, f)).length > 0)
      return {
        firstAdded: markings[0].dateAdded,
        lastAdded: markings.at(-1)!.dateAdded,
        more,
        next: more ? { phase: 'marking', index: MARKINGS.indexOf(taken.at(-1)!) } : undefined,
        batches: [markings],
      }
    }
  }
  // The first part is asked for before the plan, so PostgreSQL reads both at once; it is cut to the plan below.
  const firstPart = indicatorsApply ? readPart(env, { ...feedQuery, limit: Math.min(READ_BATCH, room) }) : undefined
  const plan: FeedPlan = indicatorsApply
    ? await planFeedPage(env.store, env.caller, { ...feedQuery, limit: room })
    : { count: 0, more: false }
  // Past the last Indicator, the page goes on with the Groups and relationships (read whole, then cut).
  let graph: Item[] = []
  let graphMore = false
  if (!plan.more && graphApplies(f)) {
    const rest = await graphObjects(env, c, f)
    const roomLeft = room - plan.count
    graph = rest.slice(0, Math.max(0, roomLeft)).map((o) => new GraphItem(o))
    graphMore = rest.length > graph.length
  }
  const lastGraph = graph.at(-1)
  const more = plan.more || graphMore
  return {
    firstAdded: markings[0]?.dateAdded ?? plan.first?.lastModified ?? graph[0]?.dateAdded,
    lastAdded: lastGraph?.dateAdded ?? plan.last?.lastModified ?? markings.at(-1)?.dateAdded,
    more,
    next: !more
      ? undefined
      : plan.more && plan.last
        ? { phase: 'indicator', ...plan.last }
        : lastGraph
          ? { phase: 'graph', dateAdded: lastGraph.dateAdded, id: lastGraph.stixId() }
          : plan.last
            ? { phase: 'indicator', ...plan.last }
            : markings.length
              ? { phase: 'marking', index: MARKINGS.length - 1 }
              : f.position,
    batches: itemBatches(
      env,
      c,
      markings,
      plan.last && firstPart && { query: { ...feedQuery, through: plan.last }, firstPart },
      graph,
    ),
  }
}

function readPart(env: TaxiiEnv, query: FeedQuery): Promise<FeedPage> {
  const part = readFeed(env.store, env.caller, query)
  // Should the page stop before this part is taken (the client left), it is never awaited; its failure must not go unhandled.
  part.catch(() => {})
  return part
}

const beyond = (p: FeedPosition, bound: FeedPosition) =>
  p.lastModified > bound.lastModified || (p.lastModified === bound.lastModified && p.id > bound.id)

/**
 * The page's objects, read READ_BATCH Indicators at a time up to the plan's last (`through`).
 * Only the first part was read without that bound; should Indicators have been added or changed
 * between it and the plan, what lies beyond the bound is cut, to be served on a later page.
 */
async function* itemBatches(
  env: TaxiiEnv,
  c: Collection,
  markings: Item[],
  indicators: { query: Omit<FeedQuery, 'limit'> & { through: FeedPosition }; firstPart: Promise<FeedPage> } | undefined,
  graph: Item[],
): AsyncGenerator<Item[]> {
  if (markings.length) yield markings
  if (indicators) yield* indicatorBatches(env, c, indicators)
  if (graph.length) yield graph
}

async function* indicatorBatches(
  env: TaxiiEnv,
  c: Collection,
  indicators: { query: Omit<FeedQuery, 'limit'> & { through: FeedPosition }; firstPart: Promise<FeedPage> },
): AsyncGenerator<Item[]> {
  const { query, firstPart } = indicators
  let pending: Promise<FeedPage> | undefined = firstPart
  while (pending) {
    const part: FeedPage = await pending
    const cut = part.indicators.findIndex((i) => beyond(i, query.through))
    const within = cut < 0 ? part.indicators : part.indicators.slice(0, cut)
    // The next read starts before this part is written, so on PostgreSQL the database works while this process writes.
    pending =
      cut < 0 && part.more && part.last && beyond(query.through, part.last)
        ? readPart(env, { ...query, after: part.last, limit: READ_BATCH })
        : undefined
    yield indicatorItems(env, c, within)
  }
}

/** Every version of one object that passes the filters; not found when the collection has no such object. */
export async function readObject(env: TaxiiEnv, c: Collection, stixId: string, f: ObjectFilters): Promise<Item[]> {
  const marking = (await markingsOf(env, c)).find((m) => m.id === stixId)
  if (marking) return markingMatches(marking, { ...f, types: undefined, ids: undefined }) ? [markingItem(marking)] : []
  if (!stixId.startsWith('indicator--')) {
    const whole = { ...f, versions: undefined, addedAfter: undefined, specVersionMatches: true, ids: [stixId] }
    const [found] = await graphObjects(env, c, whole)
    if (!found) throw notFound(`No object '${stixId}' in collection ${c.id}`)
    return f.specVersionMatches &&
      (!f.versions || f.versions.has(found.version)) &&
      (f.addedAfter === undefined || found.dateAdded > f.addedAfter)
      ? [new GraphItem(found)]
      : []
  }
  const [id] = await resolveIndicatorIds(env, c, [stixId])
  const page =
    id === undefined
      ? undefined
      : await readFeed(env.store, env.caller, { ownerId: c.owner.ownerId, ids: [id], limit: 1 })
  const indicators = page?.indicators ?? []
  const all = indicatorItems(env, c, indicators)
  if (all.length === 0) throw notFound(`No object '${stixId}' in collection ${c.id}`)
  return all.filter(
    (item) =>
      f.specVersionMatches &&
      (!f.versions || f.versions.has(item.version)) &&
      (f.addedAfter === undefined || item.dateAdded > f.addedAfter),
  )
}

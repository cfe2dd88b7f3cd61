/**
 * What a collection holds, as TAXII serves it: the owner's feed (domain/listing/feed.ts) as
 * STIX objects — its marking definitions first, then one indicator per Indicator — with the
 * standard's filters applied and a keyset position after each page.
 *
 * date_added: a marking's `created`; an Indicator's last change (each change is a new
 * version, added then; only the newest version is kept, so every object has one version).
 */
import { feedOwners } from '../../domain/access/owner-scope.js'
import type { Caller } from '../../domain/context.js'
import { type FeedIndicator, type FeedPage, feedLabelsInUse, listFeedIndicatorIds, readFeed } from '../../domain/listing/feed.js'
import type { Membership } from '../../domain/permissions.js'
import { notFound } from '../../domain/errors.js'
import type { Store } from '../../store/connect.js'
import type { ObjectFilters, Position } from './params.js'
import { type AppVersion, MARKINGS, OPTIONAL_MARKING_LABELS, type StixIds, type StixMarking, collectionMarkings, stixModified, stixPattern } from './stix.js'
import { IndicatorJsonWriter } from './stix-json.js'

export interface TaxiiEnv {
  store: Store
  caller: Caller
  ids: StixIds
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

  stixId() { return this.marking.id }
  json() { return JSON.stringify(this.marking) }
}

class IndicatorItem implements Item {
  readonly dateAdded: string
  readonly version: string
  constructor(private readonly writer: IndicatorJsonWriter, private readonly ids: StixIds, private readonly indicator: FeedIndicator,
    private readonly pattern: string) {
    this.dateAdded = indicator.lastModified
    this.version = stixModified(indicator)
  }

  stixId() { return this.ids.indicator(this.indicator.ownerId, this.indicator.id) }
  json() { return this.writer.write(this.indicator, this.pattern) }
}

/** A page once its objects have gone to the writer, one at a time as they were read. */
export interface ItemPage {
  count: number
  /** date_added (stored form) of the page's first and last object, when it has any. */
  firstAdded?: string
  lastAdded?: string
  more: boolean
  next?: Position
}

/**
 * Indicators read at a time within a page. A page of 10,000 read at once kept all its records
 * alive until it was written, long enough for the garbage collector to move them to the old
 * generation, and the old generation's limit grows with what lives there: about 50 MB more
 * resident memory at limit=10000 than at limit=1000. Read and written 2,000 at a time, the
 * records die young; the page waits as bytes instead.
 */
const READ_BATCH = 2000

/** The caller's collections, one per owner it may read as a feed, sorted by id. */
export function listCollections(env: TaxiiEnv): Collection[] {
  return feedOwners(env.caller).map((owner) => ({ id: env.ids.collection(owner.ownerId), owner }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
}

/** By collection id, else by owner name (the alias); an owner the caller may not read is not found. */
export function findCollection(env: TaxiiEnv, idOrName: string): Collection {
  const all = listCollections(env)
  const found = all.find((c) => c.id === idOrName.toLowerCase()) ?? all.find((c) => c.owner.ownerName === idOrName)
  if (!found) throw notFound(`No collection '${idOrName}'`)
  return found
}

async function markingsOf(env: TaxiiEnv, c: Collection): Promise<StixMarking[]> {
  return collectionMarkings(await feedLabelsInUse(env.store, env.caller, c.owner.ownerId, OPTIONAL_MARKING_LABELS))
}

function markingItem(m: StixMarking): Item {
  return new MarkingItem(m)
}

function markingMatches(m: StixMarking, f: ObjectFilters): boolean {
  return f.specVersionMatches && (!f.types || f.types.has('marking-definition')) && (!f.ids || f.ids.includes(m.id))
    && (!f.versions || f.versions.has(m.created)) && (f.addedAfter === undefined || m.created > f.addedAfter)
}

/** An Indicator whose value has no pattern (nothing valid stores one) is left out. */
function indicatorItems(env: TaxiiEnv, c: Collection, indicators: FeedIndicator[], f: ObjectFilters): Item[] {
  const items: Item[] = []
  const writer = new IndicatorJsonWriter(env.ids, c.owner.ownerName, env.version)
  for (const indicator of indicators) {
    if (f.versions && !f.versions.has(stixModified(indicator))) continue
    const pattern = stixPattern(indicator.type, indicator.values)
    if (pattern === undefined) continue
    items.push(new IndicatorItem(writer, env.ids, indicator, pattern))
  }
  return items
}

/**
 * Indicator ids behind STIX ids. The ids are one-way (UUIDv5), so this hashes the owner's
 * Indicator ids until all are found: linear in the collection's size (docs/taxii21.md).
 */
async function resolveIndicatorIds(env: TaxiiEnv, c: Collection, stixIds: readonly string[]): Promise<number[]> {
  const wanted = new Set(stixIds.filter((id) => /^indicator--[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id)))
  if (wanted.size === 0) return []
  const found: number[] = []
  for (const id of await listFeedIndicatorIds(env.store, env.caller, c.owner.ownerId)) {
    if (wanted.has(env.ids.indicator(c.owner.ownerId, id))) {
      found.push(id)
      if (found.length === wanted.size) break
    }
  }
  return found
}

/**
 * One page of the collection's objects (or manifest records) in date_added order, each handed
 * to `write` as soon as it is read.
 */
export async function readItems(env: TaxiiEnv, c: Collection, f: ObjectFilters, write: (item: Item) => void): Promise<ItemPage> {
  const page: ItemPage = { count: 0, more: false }
  const emit = (items: Item[]) => {
    for (const item of items) write(item)
    if (items.length === 0) return
    page.firstAdded ??= items[0].dateAdded
    page.lastAdded = items[items.length - 1].dateAdded
    page.count += items.length
  }
  const indicatorIds = f.ids ? await resolveIndicatorIds(env, c, f.ids) : undefined
  const indicatorsApply = f.specVersionMatches && (!f.types || f.types.has('indicator')) && (!indicatorIds || indicatorIds.length > 0)
  const feedQuery = { ownerId: c.owner.ownerId, since: f.addedAfter, ids: indicatorIds }
  let room = f.limit

  if (f.position?.phase !== 'indicator') {
    const start = f.position ? f.position.index + 1 : 0
    const candidates = (await markingsOf(env, c)).filter((m) => MARKINGS.indexOf(m) >= start && markingMatches(m, f))
    const taken = candidates.slice(0, f.limit)
    emit(taken.map(markingItem))
    room -= taken.length
    if (room === 0) {
      page.more = candidates.length > f.limit
        || (indicatorsApply && (await readFeed(env.store, env.caller, { ...feedQuery, limit: 1 })).indicators.length > 0)
      if (page.more) page.next = { phase: 'marking', index: MARKINGS.indexOf(taken.at(-1)!) }
      return page
    }
  }
  if (!indicatorsApply) return page
  let after = f.position?.phase === 'indicator' ? { lastModified: f.position.lastModified, id: f.position.id } : undefined
  const read = (from: typeof after, limit: number) => {
    const batch = readFeed(env.store, env.caller, { ...feedQuery, after: from, limit })
    // Should writing the batch before it throw, this one is never awaited; its failure must not go unhandled.
    batch.catch(() => {})
    return batch
  }
  let pending: ReturnType<typeof read> | undefined = read(after, Math.min(READ_BATCH, room))
  while (pending) {
    const batch: FeedPage = await pending
    room -= batch.indicators.length
    page.more = batch.more
    if (batch.last) after = batch.last
    // The next read starts before this batch is written, so on PostgreSQL the database works while this process writes.
    pending = batch.more && room > 0 ? read(after, Math.min(READ_BATCH, room)) : undefined
    emit(indicatorItems(env, c, batch.indicators, f))
  }
  if (page.more && after) page.next = { phase: 'indicator', ...after }
  return page
}

/** Every version of one object that passes the filters; not found when the collection has no such object. */
export async function readObject(env: TaxiiEnv, c: Collection, stixId: string, f: ObjectFilters): Promise<Item[]> {
  const marking = (await markingsOf(env, c)).find((m) => m.id === stixId)
  if (marking) return markingMatches(marking, { ...f, types: undefined, ids: undefined }) ? [markingItem(marking)] : []
  const [id] = await resolveIndicatorIds(env, c, [stixId])
  const page = id === undefined ? undefined : await readFeed(env.store, env.caller, { ownerId: c.owner.ownerId, ids: [id], limit: 1 })
  const indicators = page?.indicators ?? []
  const all = indicatorItems(env, c, indicators, { ...f, versions: undefined })
  if (all.length === 0) throw notFound(`No object '${stixId}' in collection ${c.id}`)
  return all.filter((item) => f.specVersionMatches && (!f.versions || f.versions.has(item.version))
    && (f.addedAfter === undefined || item.dateAdded > f.addedAfter))
}

/**
 * The feed queries (domain/listing/feed.ts): one owner's Indicators in (last_modified, id)
 * order from a keyset position, served by the indicator_owner_modified index, each row with
 * its tag and security label names.
 */
import { type CompiledQuery, type Kysely, sql } from 'kysely'
import type { ColumnsOf, KindDeclaration } from '../../model/field.js'
import { INDICATOR } from '../../model/indicator.js'
import type { Database } from '../database.js'
import type { Store } from '../connect.js'
import { runAsArrays } from '../engine/prepared-read.js'

export interface FeedRowQuery {
  ownerId: number
  /** Keyset position: rows after (lastModified, id); id null means after every row of that time. */
  after?: { lastModified: string; id: number | null }
  /** Inclusive upper bound on last_modified. */
  until?: string
  /** Inclusive keyset bound: rows up to and including (lastModified, id). */
  through?: { lastModified: string; id: number }
  /** Only rows whose version, the later of last_modified and date_added, is one of these. */
  versions?: readonly string[]
  types?: readonly string[]
  /** Only these Indicator ids. */
  ids?: readonly number[]
  limit: number
}

/**
 * One feed row, as an array in this column order (FEED_ROW names the positions): a page of
 * 10,000 rows read as arrays costs the drivers about a third of what keyed objects do.
 * `tags` and `labels` are the names on the Indicator, sorted.
 */
export type FeedRow = [
  id: number,
  owner_id: number,
  type: string,
  summary: string,
  value1: string | null,
  value2: string | null,
  value3: string | null,
  rating: number | null,
  confidence: number | null,
  description: string | null,
  active: number,
  external_added: string | null,
  expires: string | null,
  date_added: string,
  last_modified: string,
  stix_id: string | null,
  tags: string[],
  labels: string[],
]

/** Where each column is in a FeedRow (feed-columns.test.ts holds it against FEED_COLUMNS). */
export const FEED_ROW = {
  id: 0,
  ownerId: 1,
  type: 2,
  summary: 3,
  value1: 4,
  value2: 5,
  value3: 6,
  rating: 7,
  confidence: 8,
  description: 9,
  active: 10,
  externalAdded: 11,
  expires: 12,
  dateAdded: 13,
  lastModified: 14,
  stixId: 15,
  tags: 16,
  labels: 17,
} as const

const KEY_COLUMNS = ['id', 'owner_id', 'type', 'summary', 'value1', 'value2', 'value3'] as const

/**
 * What the feed reads of an Indicator: its key and values, then every other column that has a
 * place in STIX (model/indicator.ts), in declaration order — what the STIX 2.1 and 1.1.1 writers
 * use — and last the source STIX id it is served under (an internal column, migration 0139): a
 * column of the row read, so serving imported Indicators under their source's ids costs no look-up.
 */
export const FEED_COLUMNS: readonly (ColumnsOf<typeof INDICATOR> | 'stix_id')[] = [
  ...KEY_COLUMNS,
  ...(INDICATOR as KindDeclaration).fields.flatMap((f) =>
    f.column && (f.stix21 || f.stix1) && !(KEY_COLUMNS as readonly string[]).includes(f.column)
      ? [f.column as ColumnsOf<typeof INDICATOR>]
      : [],
  ),
  'stix_id',
]

function base(db: Kysely<Database>, q: FeedRowQuery) {
  let query = db.selectFrom('indicator').select(FEED_COLUMNS).where('owner_id', '=', q.ownerId)
  if (q.until !== undefined) query = query.where('last_modified', '<=', q.until)
  const through = q.through
  if (through) {
    query = query
      .where('last_modified', '<=', through.lastModified)
      .where((eb) => eb.or([eb('last_modified', '<', through.lastModified), eb('id', '<=', through.id)]))
  }
  if (q.versions) {
    query = q.versions.length
      ? query.where(
          sql<string>`case when last_modified < date_added then date_added else last_modified end`,
          'in',
          q.versions,
        )
      : query.where(sql<boolean>`1 = 0`)
  }
  if (q.types) query = q.types.length ? query.where('type', 'in', q.types) : query.where(sql<boolean>`1 = 0`)
  if (q.ids) query = q.ids.length ? query.where('id', 'in', q.ids) : query.where(sql<boolean>`1 = 0`)
  return query
}

/** A feed query narrowed to one seek (seeksFrom), or a page of one. */
type Seek = ReturnType<typeof base>

type NameLink = readonly ['item_tag', 'tag', 'tag_id'] | readonly ['item_security_label', 'security_label', 'label_id']
const TAGS: NameLink = ['item_tag', 'tag', 'tag_id']
const LABELS: NameLink = ['item_security_label', 'security_label', 'label_id']

/**
 * SQLite: the names on a page's rows, from one link table, as (item id, name) rows: the page's ids are one JSON
 * array leading the join (SQLite never reorders a CROSS JOIN), each id seeking the link table's primary key
 * (item_kind, item_id, …) and its name by id. The names were a subquery per row aggregating a JSON array: the feed
 * read 4.8 µs of CPU a row that way and 4.1 this way (bench/taxii21-profile.ts, 1,000,000 Indicators), the server
 * 9.2–10.1 µs an object served and 8.5–9.3.
 */
function namesOfItems(db: Kysely<Database>, [link, names, key]: NameLink, ids: string): CompiledQuery {
  return sql`select l.item_id, n.name from json_each(${ids}) page
    cross join ${sql.table(link)} l on l.item_kind = 'indicator' and l.item_id = page.value
    cross join ${sql.table(names)} n on n.id = l.${sql.ref(key)}`.compile(db)
}

/** Item id → its names, sorted; most items have none or one. */
function byItem(rows: [number, string][]): Map<number, string[]> {
  const names = new Map<number, string[]>()
  for (const [item, name] of rows) {
    const list = names.get(item)
    if (list) list.push(name)
    else names.set(item, [name])
  }
  for (const list of names.values()) if (list.length > 1) list.sort()
  return names
}

/**
 * PostgreSQL: the links of a page's rows as one JSON list of [item id, name id] pairs, and the
 * names they use as one JSON object (name id → name), for tags and labels in one statement: four
 * values to parse, where a row per item costs the driver more, and the names of a page are few
 * (one statement instead of one per link table: a few percent of the server's CPU per object).
 * Not a subquery per row as on SQLite: PostgreSQL starts a subplan per row at about ten times
 * the cost of this query's index probe, and the subplans' estimated cost switches JIT
 * compilation on (30 ms a page). The ids are one array parameter, so a page of any size is one
 * statement, joined as a set: `item_id = any(ids)` made PostgreSQL 15 descend the primary key
 * once per id, and joining the names made it scan the name table once per link (2.4–3.6 ms for
 * 2,000 ids where that took 7–10). Their range is stated too: right after a bulk import
 * PostgreSQL's statistics still see an almost empty link table and plan "every link of the
 * kind, then filter" (0.5 s a page at 100,000 links); with the range the primary key scan reads
 * only the page's ids.
 */
function linksOfItems(db: Kysely<Database>, ids: number[]): CompiledQuery {
  let low = ids[0]
  let high = ids[0]
  for (const id of ids) {
    if (id < low) low = id
    if (id > high) high = id
  }
  const links = ([
    link,
    ,
    key,
  ]: NameLink) => sql`select l.item_id, l.${sql.ref(key)} as name_id from ${sql.table(link)} l
      join unnest(${ids}::bigint[]) as page(id) on page.id = l.item_id
      where l.item_kind = 'indicator' and l.item_id between ${low} and ${high}`
  // Each value named: read keyed (inside a transaction), four columns called `coalesce` would be one.
  const values = (
    cte: string,
    [, names]: NameLink,
  ) => sql`coalesce((select json_agg(json_build_array(item_id, name_id)) from ${sql.table(cte)}), '[]')::text
      as ${sql.ref(cte)},
      coalesce((select json_object_agg(n.id, n.name) from ${sql.table(names)} n where n.id in (select name_id from ${sql.table(cte)})), '{}')::text
      as ${sql.ref(`${cte}_names`)}`
  return sql`with tag_links as (${links(TAGS)}), label_links as (${links(LABELS)})
    select ${values('tag_links', TAGS)}, ${values('label_links', LABELS)}`.compile(db)
}

/** Item id → its names, sorted, from one link table's two values of linksOfItems. */
function namesByItem([links, names]: [string, string]): Map<number, string[]> {
  const nameOf = JSON.parse(names) as Record<number, string>
  return byItem((JSON.parse(links) as [number, number][]).map(([item, name]) => [item, nameOf[name]]))
}

async function postgresPage(store: Store, db: Kysely<Database>, page: Seek): Promise<FeedRow[]> {
  const rows = await runAsArrays<FeedRow>(store, db, page.compile())
  if (rows.length === 0) return rows
  const ids = rows.map((r) => r[0])
  const [[tagLinks, tagNames, labelLinks, labelNames]] = await runAsArrays<[string, string, string, string]>(
    store,
    db,
    linksOfItems(db, ids),
  )
  const tagsOf = namesByItem([tagLinks, tagNames])
  const labelsOf = namesByItem([labelLinks, labelNames])
  for (const row of rows) row.push(tagsOf.get(row[0]) ?? [], labelsOf.get(row[0]) ?? [])
  return rows
}

async function sqlitePage(store: Store, db: Kysely<Database>, page: Seek): Promise<FeedRow[]> {
  const rows = await runAsArrays<FeedRow>(store, db, page.compile())
  if (rows.length === 0) return rows
  const ids = JSON.stringify(rows.map((r) => r[0]))
  const tagsOf = byItem(await runAsArrays<[number, string]>(store, db, namesOfItems(db, TAGS, ids)))
  const labelsOf = byItem(await runAsArrays<[number, string]>(store, db, namesOfItems(db, LABELS, ids)))
  for (const row of rows) row.push(tagsOf.get(row[0]) ?? [], labelsOf.get(row[0]) ?? [])
  return rows
}

function pageWithNames(store: Store, db: Kysely<Database>, page: Seek): Promise<FeedRow[]> {
  return store.dialect === 'postgres' ? postgresPage(store, db, page) : sqlitePage(store, db, page)
}

/**
 * Two seeks instead of one row-value comparison: the rest of the position's timestamp by id,
 * then later timestamps, each already in (last_modified, id) order. Each is an index range on
 * both databases, so a timestamp shared by a million rows costs no more per page than one
 * shared by none.
 */
function seeksFrom(db: Kysely<Database>, q: Omit<FeedRowQuery, 'limit'>): Seek[] {
  const seeks: Seek[] = []
  const after = q.after
  const all = { ...q, limit: 0 }
  if (after && after.id !== null && (q.until === undefined || after.lastModified <= q.until)) {
    seeks.push(base(db, all).where('last_modified', '=', after.lastModified).where('id', '>', after.id).orderBy('id'))
  }
  const later = after ? base(db, all).where('last_modified', '>', after.lastModified) : base(db, all)
  seeks.push(later.orderBy('last_modified').orderBy('id'))
  return seeks
}

/** The rows from the position, at most `limit`, in order; `read` runs one seek's page. */
async function inFeedOrder<Row>(
  db: Kysely<Database>,
  q: FeedRowQuery,
  read: (page: Seek) => Promise<Row[]>,
): Promise<Row[]> {
  let rows: Row[] = []
  for (const seek of seeksFrom(db, q)) {
    if (rows.length === q.limit) break
    const page = await read(seek.limit(q.limit - rows.length))
    if (rows.length === 0) rows = page
    else for (const row of page) rows.push(row)
  }
  return rows
}

/** The rows from a position, in (last_modified, id) order. `db` is the handle to read with (a transaction's, or the store's own). */
export function selectFeedRows(store: Store, db: Kysely<Database>, q: FeedRowQuery): Promise<FeedRow[]> {
  return inFeedOrder(db, q, (page) => pageWithNames(store, db, page))
}

type FeedKey = [lastModified: string, id: number]

/** Where the rows selectFeedRows would return begin and end: how many (at most `limit`), the first and last keys, whether more follow. */
export interface FeedSpan {
  count: number
  first?: FeedKey
  last?: FeedKey
  more: boolean
}

/**
 * The span of the rows selectFeedRows would return, from the indicator_owner_modified index
 * alone when only the owner and the position narrow. Each seek is asked for the keys at the
 * page's end (OFFSET limit - 1, two of them) and its first, and counted only when it ends
 * before the page does: the database steps over the keys in between without sending them, so
 * a plan of a page of 10,000 moves a few rows, not 10,001 (SQLite: 0.3 ms instead of 7–10).
 */
export async function selectFeedSpan(store: Store, db: Kysely<Database>, q: FeedRowQuery): Promise<FeedSpan> {
  const keysAt = (seek: Seek, offset: number, take: number) =>
    runAsArrays<FeedKey>(
      store,
      db,
      seek.clearSelect().select(['last_modified', 'id']).limit(take).offset(offset).compile(),
    )
  const key = (row: FeedKey | undefined): FeedKey | undefined => row && [row[0], Number(row[1])]
  let room = q.limit
  let first: FeedKey | undefined
  let last: FeedKey | undefined
  for (const seek of seeksFrom(db, q)) {
    if (room === 0) return { count: q.limit, first, last, more: (await keysAt(seek, 0, 1)).length > 0 }
    const [end, beyond] = await keysAt(seek, room - 1, 2)
    const n = end ? room : await countRows(db, seek, room)
    if (n === 0) continue
    first ??= key(room === 1 && end ? end : (await keysAt(seek, 0, 1))[0])
    last = key(end ?? (await keysAt(seek, n - 1, 1))[0])
    room -= n
    if (beyond) return { count: q.limit, first, last, more: true }
  }
  return { count: q.limit - room, first, last, more: false }
}

/** How many rows a seek holds, counting at most `cap` when given. */
async function countRows(db: Kysely<Database>, seek: Seek, cap: number | undefined): Promise<number> {
  const inner = seek
    .clearSelect()
    .clearOrderBy()
    .select(sql<number>`1`.as('one'))
  const row = await db
    .selectFrom((cap === undefined ? inner : inner.limit(cap)).as('rows'))
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/**
 * How many rows follow the position (the same two seeks as selectFeedRows), stopping at `cap`
 * when one is given so that "are there more than N" costs at most N index entries.
 */
export async function countFeedRows(
  db: Kysely<Database>,
  q: Omit<FeedRowQuery, 'limit'> & { cap?: number },
): Promise<number> {
  let total = 0
  for (const seek of seeksFrom(db, q)) {
    if (q.cap !== undefined && total >= q.cap) break
    total += await countRows(db, seek, q.cap === undefined ? undefined : q.cap - total)
  }
  return total
}

/**
 * Which of the named security labels are on at least one of the owner's Indicators (or Groups). Each label is
 * tested by a scalar subquery that stops at its first link of the owner: `label_id = ? AND item_kind = ?` on
 * `(label_id, item_kind, item_id)` in item order, then the item by id. The CROSS JOIN keeps that order on
 * SQLite (with stale statistics it read the owner's every Indicator and probed its links), and the ORDER BY makes
 * the index the cheap path on PostgreSQL, which under a bare LIMIT 1 scanned the link table hoping to meet a match
 * early. As an EXISTS, PostgreSQL joined every label link of the kind with every item of the owner, and SQLite
 * sought the links by kind alone.
 */
export async function selectLabelNamesInUse(
  db: Kysely<Database>,
  ownerId: number,
  names: readonly string[],
  kind: 'indicator' | 'group' = 'indicator',
): Promise<string[]> {
  if (names.length === 0) return []
  // Both tables have the id and owner_id the subquery reads; the alias lets one statement shape serve both.
  const items = (kind === 'indicator' ? 'indicator as item' : 'intel_group as item') as 'indicator as item'
  const rows = await db
    .selectFrom('security_label')
    .select('name')
    .where('name', 'in', names)
    .where(
      (eb) =>
        eb
          .selectFrom('item_security_label')
          .crossJoin(items)
          .select('item_security_label.item_id')
          .whereRef('item.id', '=', 'item_security_label.item_id')
          .whereRef('item_security_label.label_id', '=', 'security_label.id')
          .where('item_security_label.item_kind', '=', kind)
          .where('item.owner_id', '=', ownerId)
          .orderBy('item_security_label.item_id')
          .limit(1),
      'is not',
      null,
    )
    .distinct()
    .orderBy('name')
    .execute()
  return rows.map((r) => r.name)
}

/** Every Indicator id of an owner, ascending, or those above `afterId` (an index-only scan). */
export async function selectFeedIds(db: Kysely<Database>, ownerId: number, afterId?: number): Promise<number[]> {
  let query = db.selectFrom('indicator').select('id').where('owner_id', '=', ownerId)
  if (afterId !== undefined) query = query.where('id', '>', afterId)
  const rows = await query.orderBy('id').execute()
  return rows.map((r) => Number(r.id))
}

/** The source STIX ids of those of these Indicators served under one (migration 0139), by Indicator id. */
export async function selectIndicatorStixIds(
  db: Kysely<Database>,
  ids: readonly number[],
): Promise<Map<number, string>> {
  const out = new Map<number, string>()
  for (let i = 0; i < ids.length; i += 1000) {
    const rows = await db
      .selectFrom('indicator')
      .select(['id', 'stix_id'])
      .where('id', 'in', ids.slice(i, i + 1000))
      .where('stix_id', 'is not', null)
      .execute()
    for (const r of rows) out.set(r.id, r.stix_id!)
  }
  return out
}

/** Indicators of the owner served under these source STIX ids (migration 0139's index). */
export async function selectBySourceStixIds(db: Kysely<Database>, ownerId: number, stixIds: readonly string[]) {
  if (stixIds.length === 0) return []
  return db
    .selectFrom('indicator')
    .select(['id', 'stix_id'])
    .where('owner_id', '=', ownerId)
    .where('stix_id', 'is not', null)
    .where('stix_id', 'in', stixIds)
    .execute()
}

/** Of these Indicator ids, those served under a source id (so not under their derived one). */
export async function selectWithSourceStixIds(db: Kysely<Database>, ids: readonly number[]): Promise<number[]> {
  return [...(await selectIndicatorStixIds(db, ids)).keys()]
}

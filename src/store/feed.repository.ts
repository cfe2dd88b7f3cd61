/**
 * The feed queries (domain/listing/feed.ts): one owner's Indicators in (last_modified, id)
 * order from a keyset position, served by the indicator_owner_modified index, and the tags
 * and security labels of a page with one query each.
 */
import { type Expression, type Kysely, type Selectable, type SqlBool, sql } from 'kysely'
import type { Database, IndicatorTable } from './database.js'
import type { Dialect } from './connect.js'


export interface FeedRowQuery {
  ownerId: number
  /** Keyset position: rows after (lastModified, id); id null means after every row of that time. */
  after?: { lastModified: string; id: number | null }
  /** Inclusive upper bound on last_modified. */
  until?: string
  types?: readonly string[]
  /** Only these Indicator ids. */
  ids?: readonly number[]
  limit: number
}

const FEED_COLUMNS = ['id', 'owner_id', 'type', 'summary', 'value1', 'value2', 'value3', 'rating', 'confidence', 'description',
  'active', 'date_added', 'last_modified', 'external_date_expires'] as const

/** An Indicator row as the feed reads it: the columns above. */
export type FeedRow = Pick<Selectable<IndicatorTable>, (typeof FEED_COLUMNS)[number]>

function base(db: Kysely<Database>, q: FeedRowQuery) {
  let query = db.selectFrom('indicator').select(FEED_COLUMNS).where('owner_id', '=', q.ownerId)
  if (q.until !== undefined) query = query.where('last_modified', '<=', q.until)
  if (q.types) query = q.types.length ? query.where('type', 'in', q.types) : query.where(sql<boolean>`1 = 0`)
  if (q.ids) query = q.ids.length ? query.where('id', 'in', q.ids) : query.where(sql<boolean>`1 = 0`)
  return query
}

/**
 * Two seeks instead of one row-value comparison: the rest of the position's timestamp by id,
 * then later timestamps. Each is an index range on both databases, so a timestamp shared by
 * a million rows costs no more per page than one shared by none.
 */
export async function selectFeedRows(db: Kysely<Database>, q: FeedRowQuery): Promise<FeedRow[]> {
  const rows: FeedRow[] = []
  const after = q.after
  if (after && after.id !== null && (q.until === undefined || after.lastModified <= q.until)) {
    rows.push(...await base(db, q).where('last_modified', '=', after.lastModified).where('id', '>', after.id)
      .orderBy('id').limit(q.limit).execute())
  }
  if (rows.length < q.limit) {
    let later = base(db, q)
    if (after) later = later.where('last_modified', '>', after.lastModified)
    rows.push(...await later.orderBy('last_modified').orderBy('id').limit(q.limit - rows.length).execute())
  }
  return rows
}

/**
 * How many rows follow the position (the same two seeks as selectFeedRows), stopping at `cap`
 * when one is given so that "are there more than N" costs at most N index entries.
 */
export async function countFeedRows(db: Kysely<Database>, q: Omit<FeedRowQuery, 'limit'> & { cap?: number }): Promise<number> {
  const count = async (query: ReturnType<typeof base>, cap: number | undefined) => {
    const inner = query.clearSelect().select(sql<number>`1`.as('one'))
    const row = await db.selectFrom((cap === undefined ? inner : inner.limit(cap)).as('rows'))
      .select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow()
    return Number(row.n)
  }
  const q1 = { ...q, limit: 0 }
  let total = 0
  const after = q.after
  if (after && after.id !== null && (q.until === undefined || after.lastModified <= q.until)) {
    total += await count(base(db, q1).where('last_modified', '=', after.lastModified).where('id', '>', after.id), q.cap)
  }
  if (q.cap === undefined || total < q.cap) {
    let later = base(db, q1)
    if (after) later = later.where('last_modified', '>', after.lastModified)
    total += await count(later, q.cap === undefined ? undefined : q.cap - total)
  }
  return total
}

/**
 * `item_id` among the ids, bound as one parameter so a page of any size is one query. The
 * id range is stated too: right after a bulk import PostgreSQL's statistics still see an
 * almost empty link table and plan "every link of the kind, then filter" (0.5 s a page at
 * 100,000 links); with the range the primary key scan reads only the page's ids whatever the
 * statistics say.
 */
function idIn(dialect: Dialect, ids: readonly number[]): Expression<SqlBool> {
  let low = ids[0]
  let high = ids[0]
  for (const id of ids) {
    if (id < low) low = id
    if (id > high) high = id
  }
  const member = dialect === 'postgres'
    ? sql<SqlBool>`item_id = any(${sql.val([...ids])}::bigint[])`
    : sql<SqlBool>`item_id in (select value from json_each(${JSON.stringify(ids)}))`
  return sql<SqlBool>`item_id between ${low} and ${high} and ${member}`
}

export async function selectFeedTags(db: Kysely<Database>, dialect: Dialect, ids: readonly number[]): Promise<{ item_id: number; name: string }[]> {
  if (ids.length === 0) return []
  return db.selectFrom('item_tag').innerJoin('tag', 'tag.id', 'item_tag.tag_id').select(['item_tag.item_id', 'tag.name'])
    .where('item_tag.item_kind', '=', 'indicator').where(idIn(dialect, ids)).orderBy('tag.name').execute()
}

export async function selectFeedLabels(db: Kysely<Database>, dialect: Dialect, ids: readonly number[]): Promise<{ item_id: number; name: string }[]> {
  if (ids.length === 0) return []
  return db.selectFrom('item_security_label').innerJoin('security_label', 'security_label.id', 'item_security_label.label_id')
    .select(['item_security_label.item_id', 'security_label.name'])
    .where('item_security_label.item_kind', '=', 'indicator').where(idIn(dialect, ids)).orderBy('security_label.name').execute()
}

/** Which of the named security labels are on at least one of the owner's Indicators. */
export async function selectLabelNamesInUse(db: Kysely<Database>, ownerId: number, names: readonly string[]): Promise<string[]> {
  if (names.length === 0) return []
  const rows = await db.selectFrom('security_label').select('name').where('name', 'in', names)
    .where((eb) => eb.exists(eb.selectFrom('item_security_label').innerJoin('indicator', 'indicator.id', 'item_security_label.item_id')
      .select('item_security_label.item_id')
      .whereRef('item_security_label.label_id', '=', 'security_label.id').where('item_security_label.item_kind', '=', 'indicator')
      .where('indicator.owner_id', '=', ownerId)))
    .distinct().orderBy('name').execute()
  return rows.map((r) => r.name)
}

/** Every Indicator id of an owner, ascending (an index-only scan). */
export async function selectFeedIds(db: Kysely<Database>, ownerId: number): Promise<number[]> {
  const rows = await db.selectFrom('indicator').select('id').where('owner_id', '=', ownerId).orderBy('id').execute()
  return rows.map((r) => Number(r.id))
}

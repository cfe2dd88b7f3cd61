/**
 * The feed queries (domain/listing/feed.ts): one owner's Indicators in (last_modified, id)
 * order from a keyset position, served by the indicator_owner_modified index, each row with
 * its tag and security label names.
 */
import { type CompiledQuery, type Kysely, sql } from 'kysely'
import type SqliteDatabase from 'better-sqlite3'
import type { Database } from './database.js'
import type { Dialect, Store } from './connect.js'


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

/**
 * One feed row, as an array in this column order (FEED_ROW names the positions): a page of
 * 10,000 rows read as arrays costs the drivers about a third of what keyed objects do.
 * `tags` and `labels` are JSON arrays of names, sorted.
 */
export type FeedRow = [
  id: number, owner_id: number, type: string, summary: string, value1: string | null, value2: string | null, value3: string | null,
  rating: number | null, confidence: number | null, description: string | null, active: number, date_added: string, last_modified: string,
  external_date_expires: string | null, tags: string, labels: string,
]

/** Where each column is in a FeedRow. */
export const FEED_ROW = {
  id: 0, ownerId: 1, type: 2, summary: 3, value1: 4, value2: 5, value3: 6, rating: 7, confidence: 8, description: 9, active: 10,
  dateAdded: 11, lastModified: 12, expires: 13, tags: 14, labels: 15,
} as const

const FEED_COLUMNS = ['id', 'owner_id', 'type', 'summary', 'value1', 'value2', 'value3', 'rating', 'confidence', 'description',
  'active', 'date_added', 'last_modified', 'external_date_expires'] as const

function base(db: Kysely<Database>, q: FeedRowQuery) {
  let query = db.selectFrom('indicator').select(FEED_COLUMNS).where('owner_id', '=', q.ownerId)
  if (q.until !== undefined) query = query.where('last_modified', '<=', q.until)
  if (q.types) query = q.types.length ? query.where('type', 'in', q.types) : query.where(sql<boolean>`1 = 0`)
  if (q.ids) query = q.ids.length ? query.where('id', 'in', q.ids) : query.where(sql<boolean>`1 = 0`)
  return query
}

/**
 * The names on one page row as a sorted JSON array, looked up by the link table's primary key
 * (item_kind, item_id, …): two index seeks a row, whatever the planner's statistics say.
 */
function namesOf(dialect: Dialect, link: 'item_tag' | 'item_security_label', names: 'tag' | 'security_label', key: 'tag_id' | 'label_id') {
  const from = sql`${sql.table(link)} l join ${sql.table(names)} n on n.id = l.${sql.ref(key)} where l.item_kind = 'indicator' and l.item_id = page.id`
  return dialect === 'postgres'
    ? sql<string>`(select coalesce(json_agg(n.name order by n.name), '[]')::text from ${from})`
    : sql<string>`(select json_group_array(n.name order by n.name) from ${from})`
}

/** A page of rows with their names; the names are looked up for the page's rows only, after the limit. */
function withNames(db: Kysely<Database>, dialect: Dialect, page: ReturnType<typeof base>): CompiledQuery {
  return db.selectFrom(page.as('page')).select(FEED_COLUMNS.map((c) => sql.ref(`page.${c}`).as(c)))
    .select([namesOf(dialect, 'item_tag', 'tag', 'tag_id').as('tags'), namesOf(dialect, 'item_security_label', 'security_label', 'label_id').as('labels')])
    .orderBy('page.last_modified').orderBy('page.id').compile()
}

const statements = new WeakMap<SqliteDatabase.Database, Map<string, SqliteDatabase.Statement>>()

/**
 * Rows as arrays, straight from the driver (Kysely hands out keyed objects only). Inside a
 * transaction the query runs on the transaction's handle, keyed, and is turned into arrays:
 * the driver's handle would be another connection on PostgreSQL and would wait on SQLite.
 */
async function runAsArrays(store: Store, db: Kysely<Database>, query: CompiledQuery): Promise<FeedRow[]> {
  if (db.isTransaction || (!store.sqlite && !store.pool)) {
    return (await db.executeQuery(query)).rows.map((row) => Object.values(row as object) as FeedRow)
  }
  if (store.sqlite) {
    let cache = statements.get(store.sqlite)
    if (!cache) statements.set(store.sqlite, (cache = new Map()))
    let statement = cache.get(query.sql)
    if (!statement || statement.busy) {
      statement = store.sqlite.prepare(query.sql).raw(true)
      // The texts differ only by the filters present and the length of an id list: few, but not bounded.
      if (cache.size >= 64) cache.clear()
      cache.set(query.sql, statement)
    }
    return statement.all(...query.parameters) as FeedRow[]
  }
  return (await store.pool!.query<FeedRow>({ text: query.sql, values: [...query.parameters], rowMode: 'array' })).rows
}

/**
 * Two seeks instead of one row-value comparison: the rest of the position's timestamp by id,
 * then later timestamps. Each is an index range on both databases, so a timestamp shared by
 * a million rows costs no more per page than one shared by none. `db` is the handle to read
 * with (a transaction's, or the store's own).
 */
export async function selectFeedRows(store: Store, db: Kysely<Database>, q: FeedRowQuery): Promise<FeedRow[]> {
  const rows: FeedRow[] = []
  const after = q.after
  if (after && after.id !== null && (q.until === undefined || after.lastModified <= q.until)) {
    const same = base(db, q).where('last_modified', '=', after.lastModified).where('id', '>', after.id).orderBy('id').limit(q.limit)
    rows.push(...await runAsArrays(store, db, withNames(db, store.dialect, same)))
  }
  if (rows.length < q.limit) {
    let later = base(db, q)
    if (after) later = later.where('last_modified', '>', after.lastModified)
    const page = await runAsArrays(store, db, withNames(db, store.dialect, later.orderBy('last_modified').orderBy('id').limit(q.limit - rows.length)))
    if (rows.length === 0) return page
    for (const row of page) rows.push(row)
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

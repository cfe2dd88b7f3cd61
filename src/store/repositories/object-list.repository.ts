/**
 * The one query behind every v3 list and bulk delete: the ids of a table's rows that pass
 * the compiled TQL filter and the owner scope, in the requested order, one page at a time.
 * Table and column names come from the object-type definitions, never from request text.
 */
import { type Expression, type ExpressionBuilder, type Kysely, type SqlBool, sql } from 'kysely'
import type { Dialect } from '../connect.js'
import type { Database } from '../database.js'
import { dialectOf, unindexedInteger } from '../engine/list-conditions.js'

export interface SortTerm {
  expression: Expression<unknown>
  direction: 'asc' | 'desc'
  nulls?: 'first' | 'last'
}

export interface IdQuery {
  /** Referenced by its own name, as compiled TQL expects. */
  table: string
  /** Rows whose owner is one of these; `includeUnowned` also admits rows with no owner (system rows). */
  ownerIds: readonly number[] | null
  includeUnowned?: boolean
  /** Further conditions, already compiled (TQL, object-type restrictions). */
  where: Expression<SqlBool>[]
  /** A condition in `where` names few rows through an index (CompiledTql.seekable). */
  seekable?: boolean
  /**
   * A tag, found by id, that every match carries (CompiledTql.leadingTag), with the rest of the filter (`where`
   * less the tag, compiled already): on PostgreSQL a page walks the tag's links and checks the rest on each row.
   */
  leadingTag?: { tagId: number; kind: string; where: Expression<SqlBool> }
  orderBy: SortTerm[]
}

type Owners =
  | { kind: 'all' }
  | { kind: 'owner'; id: number | null }
  | { kind: 'in' | 'residual'; ids: readonly number[]; includeUnowned: boolean }

function ownerCondition(
  eb: ExpressionBuilder<any, any>,
  dialect: Dialect,
  table: string,
  owners: Owners,
): Expression<SqlBool> | undefined {
  const column = `${table}.owner_id`
  switch (owners.kind) {
    case 'all':
      return undefined
    case 'owner':
      return owners.id === null ? eb(column, 'is', null) : eb(column, '=', owners.id)
    case 'in':
    case 'residual': {
      // residual: an expression no index matches, so the owners filter what the seek found and never choose the rows.
      const tested = owners.kind === 'in' ? sql.ref(column) : unindexedInteger(dialect, column)
      const owned = owners.ids.length ? eb(tested, 'in', owners.ids) : sql<SqlBool>`1 = 0`
      return owners.includeUnowned ? eb.or([owned, eb(column, 'is', null)]) : owned
    }
  }
}

function filtered(db: Kysely<Database>, dialect: Dialect, q: IdQuery, owners: Owners) {
  return (db as unknown as Kysely<any>).selectFrom(q.table).where((eb) => {
    const owner = ownerCondition(eb, dialect, q.table, owners)
    return eb.and(owner ? [...q.where, owner] : q.where)
  })
}

/**
 * How the owner filter reads. Ordered by id alone, an unselective filter reads each owner's rows through
 * (owner_id, id) and merges them (SQLite MERGE (UNION ALL), PostgreSQL Merge Append), stopping after a
 * page; a seekable filter (a leading tag's walk too) starts from its own index and checks the owner on the rows
 * it finds. Sorted
 * by other keys (and counted), the rows are read whole anyway and the owner filter is an ordinary IN.
 */
function ownerParts(q: IdQuery, byIdOnly: boolean): Owners[] {
  if (q.ownerIds === null) return [{ kind: 'all' }]
  if (q.seekable || q.leadingTag) return [{ kind: 'residual', ids: q.ownerIds, includeUnowned: !!q.includeUnowned }]
  if (!byIdOnly || q.ownerIds.length === 0) return [{ kind: 'in', ids: q.ownerIds, includeUnowned: !!q.includeUnowned }]
  const ids: (number | null)[] = [...new Set(q.ownerIds)]
  if (q.includeUnowned) ids.push(null)
  return ids.map((id) => ({ kind: 'owner', id }))
}

/** One page of ids; `limit` null means every match (bulk delete). */
/** `afterId` (keyset paging, only with no other order than id): rows after that id instead of skipping `offset` rows. */
export async function selectIds(
  db: Kysely<Database>,
  q: IdQuery,
  page: IdPageRequest,
  inForce?: ReadonlySet<string>,
): Promise<number[]> {
  return readIdPage(
    db,
    q,
    page,
    async (query) => ((await query.execute()) as { id: number }[]).map((r) => Number(r.id)),
    inForce,
  )
}

/**
 * The settings a page's statement wants in force on PostgreSQL (see readIdPage), for a caller that opens the
 * transaction itself and can set them together with its own in one statement.
 */
export function idPageSettings(db: Kysely<Database>, q: IdQuery, page: IdPageRequest): Record<string, string> {
  return readsInIdOrder(db, q, page) ? { enable_sort: 'off' } : {}
}

/**
 * Runs `use` on the page's statement the way selectIds runs it (tests read plans through it). A page in id
 * order under a filter that only filters, or under a seek that reads its matches in id order (one tag by id),
 * is read, on PostgreSQL, with sorting priced out for that one statement: without statistics its planner
 * guesses that a filter leaves a few rows and sorts them for cheap (and with them, that a small tag's links
 * are best hashed and sorted), and with sorts priced out the ordered index paths are the ones it takes,
 * whatever it guesses.
 * `inForce`: settings the caller's transaction already carries (idPageSettings), so none is set here.
 */
export async function readIdPage<T>(
  db: Kysely<Database>,
  q: IdQuery,
  page: IdPageRequest,
  use: (query: ReturnType<typeof idPageQuery>, handle: Kysely<Database>) => Promise<T>,
  inForce?: ReadonlySet<string>,
): Promise<T> {
  if (!readsInIdOrder(db, q, page) || inForce?.has('enable_sort')) return use(idPageQuery(db, q, page), db)
  const inOrder = async (trx: Kysely<Database>) => {
    await sql`set local enable_sort = off`.execute(trx)
    try {
      return await use(idPageQuery(trx, q, page), trx)
    } finally {
      await sql`set local enable_sort to default`.execute(trx)
    }
  }
  return db.isTransaction ? inOrder(db) : db.transaction().setAccessMode('read only').execute(inOrder)
}

export interface IdPageRequest {
  offset: number
  limit: number | null
  afterId?: number
}

/**
 * Sorts are priced out only under a filter: with none but the owners, each owner's rows come from (owner_id, id)
 * already in order, which no estimate can make look dearer than reading and sorting all of them.
 */
function readsInIdOrder(db: Kysely<Database>, q: IdQuery, page: IdPageRequest): boolean {
  return (
    dialectOf(db) === 'postgres' &&
    (!q.seekable || !!q.leadingTag) &&
    q.orderBy.length === 0 &&
    page.limit !== null &&
    q.where.length > 0
  )
}

/**
 * The statement selectIds runs (tests read its plan). Owners read one by one are merged by id: on SQLite
 * as a compound SELECT (MERGE (UNION ALL) reads each arm in index order, lazily); on PostgreSQL each arm
 * is its own ordered, limited subquery, which the planner joins with a Merge Append.
 */
export function idPageQuery(db: Kysely<Database>, q: IdQuery, page: IdPageRequest) {
  const byIdOnly = q.orderBy.length === 0
  const keyset = page.afterId !== undefined && byIdOnly
  const dialect = dialectOf(db)
  const offset = keyset ? 0 : page.offset
  const owners = ownerParts(q, byIdOnly)
  if (q.leadingTag && byIdOnly && dialect === 'postgres' && page.limit !== null)
    return tagLedPage(db, q, q.leadingTag, owners[0]!, { ...page, limit: page.limit }, offset)
  const arm = (part: Owners) => {
    const selected = filtered(db, dialect, q, part).select(`${q.table}.id as id`)
    return keyset ? selected.where(`${q.table}.id`, '>', page.afterId!) : selected
  }
  if (owners.length > 1) {
    const any = db as unknown as Kysely<any>
    const arms = owners.map((part, k) => {
      if (dialect === 'sqlite' || page.limit === null) return arm(part)
      return any
        .selectFrom(
          arm(part)
            .orderBy('id')
            .limit(offset + page.limit)
            .as(`owner${k}`),
        )
        .select(`owner${k}.id as id`)
    })
    const merged = arms
      .slice(1)
      .reduce((all, next) => all.unionAll(next), arms[0]!)
      .orderBy('id')
    return page.limit !== null ? merged.limit(page.limit).offset(offset) : merged
  }
  let query = arm(owners[0]!)
  for (const term of q.orderBy) {
    query = query.orderBy(term.expression, (ob) => {
      const ordered = term.direction === 'desc' ? ob.desc() : ob.asc()
      return term.nulls === 'first' ? ordered.nullsFirst() : term.nulls === 'last' ? ordered.nullsLast() : ordered
    })
  }
  query = query.orderBy(`${q.table}.id`)
  return page.limit !== null ? query.limit(page.limit).offset(offset) : query
}

/**
 * A page of one tag's items on PostgreSQL: the tag's links in item order (item_tag_tag, from the keyset cursor on),
 * each row fetched by key and filtered, until the page is full. The row is joined as `id = item_id + 0` and the page
 * ordered by the link's item_id, so the only order the planner can have without sorting (priced out, readIdPage) is
 * the links' own: with `id = item_id`, statistics that made the tag look common let it walk every row of the owners
 * in id order instead, which for a tag of an owner not listed read them all to find none.
 */
function tagLedPage(
  db: Kysely<Database>,
  q: IdQuery,
  tag: NonNullable<IdQuery['leadingTag']>,
  owners: Owners,
  page: IdPageRequest & { limit: number },
  offset: number,
) {
  let query = (db as unknown as Kysely<any>)
    .selectFrom('item_tag as lead')
    .innerJoin(q.table, (join) => join.on(`${q.table}.id`, '=', sql`lead.item_id + 0`))
    .where((eb) => {
      const owner = ownerCondition(eb, 'postgres', q.table, owners)
      return eb.and(owner ? [tag.where, owner] : [tag.where])
    })
    .where('lead.tag_id', '=', tag.tagId)
    .where('lead.item_kind', '=', tag.kind)
    .select('lead.item_id as id')
  if (page.afterId !== undefined) query = query.where('lead.item_id', '>', page.afterId)
  return query.orderBy('lead.item_id').limit(page.limit).offset(offset)
}

/** How many owners exist (an owner filter naming all of them filters nothing). */
export async function countOwners(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('owner')
    .select(sql<number>`count(*)`.as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

export async function countMatches(db: Kysely<Database>, q: IdQuery): Promise<number> {
  const owners: Owners =
    q.ownerIds === null ? { kind: 'all' } : { kind: 'in', ids: q.ownerIds, includeUnowned: !!q.includeUnowned }
  const row = (await filtered(db, dialectOf(db), q, owners)
    .select(sql<number>`count(*)`.as('n'))
    .executeTakeFirstOrThrow()) as { n: number }
  return Number(row.n)
}

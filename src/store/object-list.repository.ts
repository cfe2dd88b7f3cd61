/**
 * The one query behind every v3 list and bulk delete: the ids of a table's rows that pass
 * the compiled TQL filter and the owner scope, in the requested order, one page at a time.
 * Table and column names come from the object-type definitions, never from request text.
 */
import { type Expression, type Kysely, type SqlBool, sql } from 'kysely'
import type { Database } from './database.js'

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
  orderBy: SortTerm[]
}

function baseQuery(db: Kysely<Database>, q: IdQuery) {
  const a = q.table
  return (db as unknown as Kysely<any>).selectFrom(q.table).where((eb) => {
    const conditions: Expression<SqlBool>[] = [...q.where]
    if (q.ownerIds !== null) {
      const owned = q.ownerIds.length ? eb(`${a}.owner_id`, 'in', q.ownerIds) : sql<boolean>`1 = 0`
      conditions.push(q.includeUnowned ? eb.or([owned, eb(`${a}.owner_id`, 'is', null)]) : owned)
    }
    return eb.and(conditions)
  })
}

/** One page of ids; `limit` null means every match (bulk delete). */
/** `afterId` (keyset paging, only with no other order than id): rows after that id instead of skipping `offset` rows. */
export async function selectIds(db: Kysely<Database>, q: IdQuery, page: { offset: number; limit: number | null; afterId?: number }): Promise<number[]> {
  let query = baseQuery(db, q).select(`${q.table}.id as id`)
  if (page.afterId !== undefined && q.orderBy.length === 0) query = query.where(`${q.table}.id`, '>', page.afterId)
  for (const term of q.orderBy) {
    query = query.orderBy(term.expression, (ob) => {
      const ordered = term.direction === 'desc' ? ob.desc() : ob.asc()
      return term.nulls === 'first' ? ordered.nullsFirst() : term.nulls === 'last' ? ordered.nullsLast() : ordered
    })
  }
  query = query.orderBy(`${q.table}.id`)
  const keyset = page.afterId !== undefined && q.orderBy.length === 0
  if (page.limit !== null) query = query.limit(page.limit).offset(keyset ? 0 : page.offset)
  const rows = await query.execute() as { id: number }[]
  return rows.map((r) => Number(r.id))
}

/** How many owners exist (an owner filter naming all of them filters nothing). */
export async function countOwners(db: Kysely<Database>): Promise<number> {
  const row = await db.selectFrom('owner').select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow()
  return Number(row.n)
}

export async function countMatches(db: Kysely<Database>, q: IdQuery): Promise<number> {
  const row = await baseQuery(db, q).select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow() as { n: number }
  return Number(row.n)
}

/**
 * Outbound lists (migration 0144, domain/lists/): their definitions, the pages of values a list
 * serves — active Indicators in id order after a keyset position, as arrays straight from the
 * driver where it may be skipped — and what a list's ETag is made of, read without reading the
 * Indicators themselves.
 */
import { type CompiledQuery, type Expression, type Kysely, type Selectable, type SqlBool, sql } from 'kysely'
import { conflict } from '../../core/errors.js'
import type { Store } from '../connect.js'
import type { Database, OutboundListTable } from '../database.js'
import { dialectOf, unindexedInteger, unindexedText } from '../engine/list-conditions.js'
import { rawReadPath, runAsArrays } from '../engine/prepared-read.js'
import { translateDatabaseError } from '../engine/unavailable.js'
import { isUniqueViolation } from '../engine/write-conflicts.js'

export type OutboundListRow = Selectable<OutboundListTable>

export interface OutboundListWrite {
  name: string
  tql: string
  types: string | null
  owner_ids: string | null
  /** The saved search the list follows (its TQL is then the search's, kept so by the search's changes). */
  saved_search_id: number | null
}

export function findOutboundList(db: Kysely<Database>, name: string): Promise<OutboundListRow | undefined> {
  return db.selectFrom('outbound_list').selectAll().where('name', '=', name).executeTakeFirst()
}

export function listOutboundLists(db: Kysely<Database>): Promise<OutboundListRow[]> {
  return db.selectFrom('outbound_list').selectAll().orderBy('name').execute()
}

export async function insertOutboundList(
  db: Kysely<Database>,
  list: OutboundListWrite & { created_by: number | null },
  now: string,
): Promise<void> {
  try {
    await db
      .insertInto('outbound_list')
      .values({ ...list, date_added: now, last_modified: now })
      .execute()
  } catch (error) {
    // Two administrators saving one name at once: the second meets the unique index.
    if (isUniqueViolation(error)) throw conflict(`A list named '${list.name}' already exists`)
    throw error
  }
}

export async function updateOutboundList(
  db: Kysely<Database>,
  name: string,
  list: Omit<OutboundListWrite, 'name'>,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable('outbound_list')
    .set({ ...list, last_modified: now })
    .where('name', '=', name)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

export async function deleteOutboundList(db: Kysely<Database>, name: string): Promise<boolean> {
  const result = await db.deleteFrom('outbound_list').where('name', '=', name).executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

/** Owner ids to names, for showing a list's owners. */
export async function ownerNamesById(db: Kysely<Database>, ids: readonly number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map()
  const rows = await db.selectFrom('owner').select(['id', 'name']).where('id', 'in', ids).execute()
  return new Map(rows.map((r) => [Number(r.id), r.name]))
}

export async function ownerIdsByName(db: Kysely<Database>, names: readonly string[]): Promise<Map<string, number>> {
  if (names.length === 0) return new Map()
  const rows = await db.selectFrom('owner').select(['id', 'name']).where('name', 'in', names).execute()
  return new Map(rows.map((r) => [r.name, Number(r.id)]))
}

/** One value row of a list, as an array in this order (LIST_ROW names the places). */
export type ListValueRow = [
  id: number,
  owner_id: number,
  type: string,
  summary: string,
  value1: string | null,
  value2: string | null,
  value3: string | null,
  rating: number | null,
  confidence: number | null,
  last_modified: string,
]

export const LIST_ROW = {
  id: 0,
  ownerId: 1,
  type: 2,
  summary: 3,
  value1: 4,
  value2: 5,
  value3: 6,
  rating: 7,
  confidence: 8,
  lastModified: 9,
} as const

const LIST_COLUMNS = [
  'indicator.id',
  'indicator.owner_id',
  'indicator.type',
  'indicator.summary',
  'indicator.value1',
  'indicator.value2',
  'indicator.value3',
  'indicator.rating',
  'indicator.confidence',
  'indicator.last_modified',
] as const

export interface ListValuePage {
  /** Owners whose Indicators are read; never empty (the domain answers an empty list itself). */
  ownerIds: readonly number[] | null
  types: readonly string[] | null
  /** The compiled TQL, over `indicator` by its own name. */
  where: Expression<SqlBool>[]
  /** A TQL condition names few rows through an index (CompiledTql.seekable): the planner may start there and sort. */
  seekable?: boolean
  afterId: number
  limit: number
}

/**
 * A page of active Indicators in id order after `afterId`. `db`: the handle to read with (a TQL time
 * limit's transaction on PostgreSQL, else the store's own, which lets the driver be used directly).
 */
export async function selectListValuePage(
  store: Store,
  db: Kysely<Database>,
  q: ListValuePage,
): Promise<ListValueRow[]> {
  // Owner, type and the active flag only filter: as expressions no index matches, they leave the
  // planner reading by id from the position and stopping after a page, where an index on any of
  // them would have it gather and sort every match again for each page.
  const dialect = dialectOf(db)
  let query = db
    .selectFrom('indicator')
    .select(LIST_COLUMNS)
    .where(unindexedInteger(dialect, 'indicator.active'), '=', 1)
    .where('indicator.id', '>', q.afterId)
  if (q.ownerIds) query = query.where(unindexedInteger(dialect, 'indicator.owner_id'), 'in', q.ownerIds)
  if (q.types) query = query.where(unindexedText(dialect, 'indicator.type'), 'in', q.types)
  for (const where of q.where) query = query.where(where)
  const compiled = query.orderBy('indicator.id').limit(q.limit).compile()
  if (dialect === 'postgres' && !q.seekable && db === store.db && rawReadPath(store) === 'postgres')
    return inIdOrderOnPostgres<ListValueRow>(store, compiled)
  return runAsArrays<ListValueRow>(store, db, compiled)
}

/**
 * PostgreSQL estimates a condition on an expression at a fraction of a percent of the rows, so it plans
 * "every match, then a top-N sort" for each page: the whole table read again per page (seen: 180 ms for
 * a page of 20,000 rows). With sorting priced out for the page's own read-only transaction, the primary
 * key's order is the only plan left, and a page stops after its rows. A caller's transaction (a TQL time
 * limit's) sets the same itself (withTqlTimeout's settings). outbound-list-plans.test.ts holds the plans.
 */
async function inIdOrderOnPostgres<Row extends unknown[]>(store: Store, query: CompiledQuery): Promise<Row[]> {
  const client = await store.pool!.connect()
  try {
    await client.query('begin read only')
    await client.query('select set_config($1, $2, true)', ['enable_sort', 'off'])
    const result = await client.query<Row>({ text: query.sql, values: [...query.parameters], rowMode: 'array' })
    await client.query('commit')
    client.release()
    return result.rows
  } catch (error) {
    // A connection in an unknown state is closed rather than lent again.
    await client.query('rollback').catch(() => {})
    client.release(true)
    throw translateDatabaseError(error)
  }
}

/** What may change when a list's content does, per owner: its name, its latest lastModified, its active Indicators by type. */
export interface ListStampPart {
  ownerId: number
  ownerName: string
  lastModified: string | null
  activeByType: [type: string, count: number][]
}

/**
 * Each owner's latest lastModified is one descent of indicator_owner_modified (a scalar subquery per
 * owner, which both planners answer from the end of the index), and its active Indicators by type
 * come from the tally migration 0125's triggers keep: no Indicator row is read.
 */
export async function selectListStamp(db: Kysely<Database>, ownerIds: readonly number[]): Promise<ListStampPart[]> {
  if (ownerIds.length === 0) return []
  const owners = await db
    .selectFrom('owner as o')
    .select((eb) => [
      'o.id',
      'o.name',
      eb
        .selectFrom('indicator as i')
        .select((inner) => inner.fn.max('i.last_modified').as('m'))
        .whereRef('i.owner_id', '=', 'o.id')
        .as('last_modified'),
    ])
    .where('o.id', 'in', ownerIds)
    .orderBy('o.id')
    .execute()
  const tally = await db
    .selectFrom('indicator_tally')
    .select(['owner_id', 'type', sql<number | string>`sum(n)`.as('n')])
    .where('owner_id', 'in', ownerIds)
    .where('active', '=', 1)
    .groupBy(['owner_id', 'type'])
    .orderBy('owner_id')
    .orderBy('type')
    .execute()
  return owners.map((o) => ({
    ownerId: Number(o.id),
    ownerName: o.name,
    lastModified: (o.last_modified as string | null) ?? null,
    activeByType: tally
      .filter((t) => Number(t.owner_id) === Number(o.id) && Number(t.n) !== 0)
      .map((t) => [t.type, Number(t.n)] as [string, number]),
  }))
}

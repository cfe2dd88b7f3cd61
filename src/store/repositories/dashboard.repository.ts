/**
 * The dashboard's reads (domain/dashboard/): aggregates from the tallies the database keeps (indicator_tally,
 * migrations 0125/0136; indicator_day_tally, 0146), never a count over the Indicator rows, and short reads that
 * stop after a few rows: the newest Indicators of each owner down `indicator_owner_added`, the newest Groups and
 * the highest-rated Indicators down the primary key, and a saved search counted up to a bound.
 */
import { type Expression, type Kysely, type SqlBool, sql } from 'kysely'
import type { Database } from '../database.js'
import { dialectOf, unindexedInteger } from '../engine/list-conditions.js'
import { FOLD_AFTER_ROWS, foldTally, selectDayTotals } from './indicator-tally.repository.js'

export interface TallyBucket {
  ownerId: number
  type: string
  active: number
  /** -1: unrated. */
  rating: number
  n: number
}

/** The Indicator tally of the owners, one row per (owner, type, active, rating) that holds any. */
export async function selectTallyBuckets(db: Kysely<Database>, ownerIds: readonly number[]): Promise<TallyBucket[]> {
  if (ownerIds.length === 0) return []
  const rows = await db
    .selectFrom('indicator_tally')
    .select([
      'owner_id',
      'type',
      'active',
      'rating',
      sql<number | string>`sum(n)`.as('n'),
      sql<number>`count(*)`.as('deltas'),
    ])
    .where('owner_id', 'in', ownerIds)
    .groupBy(['owner_id', 'type', 'active', 'rating'])
    .execute()
  const deltas = rows.reduce((sum, r) => sum + Number(r.deltas), 0)
  if (dialectOf(db) === 'postgres' && deltas > FOLD_AFTER_ROWS * ownerIds.length) await foldTally(db, ownerIds)
  return rows
    .filter((r) => Number(r.n) !== 0)
    .map((r) => ({
      ownerId: Number(r.owner_id),
      type: r.type,
      active: Number(r.active),
      rating: Number(r.rating),
      n: Number(r.n),
    }))
}

/** Indicators added per UTC day (`YYYY-MM-DD`) on or after `fromDay`, over the owners, active or not. */
export async function selectDayCounts(
  db: Kysely<Database>,
  ownerIds: readonly number[],
  fromDay: string,
): Promise<Map<string, number>> {
  if (ownerIds.length === 0) return new Map()
  const totals = await selectDayTotals(db, { ownerIds, activeOnly: false }, fromDay)
  return new Map([...totals].filter(([, n]) => n !== 0))
}

export interface DashboardIndicatorRow {
  id: number
  owner_id: number
  type: string
  summary: string
  rating: number | null
  active: number
  date_added: string
}

const INDICATOR_COLUMNS = ['id', 'owner_id', 'type', 'summary', 'rating', 'active', 'date_added'] as const

/** One owner's newest Indicators: the end of `indicator_owner_added (owner_id, date_added, id)`. */
export function selectNewestIndicators(
  db: Kysely<Database>,
  ownerId: number,
  limit: number,
): Promise<DashboardIndicatorRow[]> {
  return db
    .selectFrom('indicator')
    .select(INDICATOR_COLUMNS)
    .where('owner_id', '=', ownerId)
    .orderBy('date_added', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute()
}

/**
 * The newest Indicators rated exactly `rating` among the owners, down the primary key. The tally says how many
 * there are, and `limit` is never more: the read stops at the last one rather than reading on to the table's start.
 * Owner and rating are expressions no index matches, so neither planner trades the id order for a sort.
 */
export function selectIndicatorsRated(
  db: Kysely<Database>,
  ownerIds: readonly number[],
  rating: number,
  limit: number,
  /** A time limit's check wrapped round the condition (TqlScope.guard: SQLite stops at the deadline). */
  guard: (where: Expression<SqlBool>) => Expression<SqlBool> = (where) => where,
): Promise<DashboardIndicatorRow[]> {
  const dialect = dialectOf(db)
  const rated = dialect === 'sqlite' ? sql`+${sql.ref('indicator.rating')}` : sql`(${sql.ref('indicator.rating')} + 0)`
  return db
    .selectFrom('indicator')
    .select(INDICATOR_COLUMNS)
    .where(unindexedInteger(dialect, 'indicator.owner_id'), 'in', ownerIds)
    .where((eb) => guard(eb(rated, '=', rating)))
    .orderBy('id', 'desc')
    .limit(limit)
    .execute()
}

export interface DashboardGroupRow {
  id: number
  owner_id: number
  type: string
  name: string
  date_added: string
}

/** The newest Groups of the owners, down the primary key. */
export function selectNewestGroups(
  db: Kysely<Database>,
  ownerIds: readonly number[],
  limit: number,
): Promise<DashboardGroupRow[]> {
  if (ownerIds.length === 0) return Promise.resolve([])
  return db
    .selectFrom('intel_group')
    .select(['id', 'owner_id', 'type', 'name', 'date_added'])
    .where(unindexedInteger(dialectOf(db), 'intel_group.owner_id'), 'in', ownerIds)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute()
}

/**
 * How many rows of `table` (referenced by its own name, as compiled TQL expects) the owners hold that pass
 * `where`, counted up to `bound`: the read stops at bound + 1 matches, so the answer is exact below the bound and
 * "more than" above it.
 */
export async function countUpTo(
  db: Kysely<Database>,
  q: { table: 'indicator' | 'intel_group'; ownerIds: readonly number[]; where: Expression<SqlBool> },
  bound: number,
): Promise<number> {
  if (q.ownerIds.length === 0) return 0
  const inner = (db as unknown as Kysely<any>)
    .selectFrom(q.table)
    .select(sql.lit(1).as('one'))
    .where(`${q.table}.owner_id`, 'in', q.ownerIds)
    .where(q.where)
    .limit(bound + 1)
  const row = await (db as unknown as Kysely<any>)
    .selectFrom(inner.as('matches'))
    .select(sql<number | string>`count(*)`.as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/**
 * Reads the tallies the database's triggers keep (the Indicator tally of migrations 0125/0136, the confidence tally
 * of 0271, the ThreatAssess score tally of 0273, the day tally of 0146/0147): how many Indicators owners hold, without
 * counting their rows.
 */
import { type Expression, type Kysely, sql } from 'kysely'
import { dialectOf, ownerFilter, unindexedInteger, unindexedText } from '../engine/list-conditions.js'
import type { Database } from '../database.js'

/** Deltas an owner may gather on PostgreSQL before a read folds them into one row per key. */
export const FOLD_AFTER_ROWS = 64

export interface TallyQuery {
  ownerIds: readonly number[]
  /** One type's Indicators; every type when absent. */
  type?: string
  /** Only active Indicators. */
  activeOnly: boolean
  /** Only Indicators with this active flag (1 or 0): a list filtered by `active`. */
  activeIs?: number
  /**
   * Only Indicators whose rating, confidence or ThreatAssess score compares so (one without it never does, as in
   * SQL, unless `noneAs` says otherwise): each column has a tally of its own, and no tally answers two at once.
   */
  compare?: TallyComparisons
}

export interface TallyComparisons {
  column: TalliedColumn
  conditions: readonly TallyCondition[]
  /** The value an Indicator without one compares as: the ThreatAssess rating and confidence are 0 where none is set. */
  noneAs?: number
}

export type TalliedColumn = 'rating' | 'confidence' | 'score'
export type TallyComparison = '=' | '<' | '>'
export type TallyCondition = { op: TallyComparison; value: number }

/** The tally keyed by each column (migrations 0125/0136, 0271 and 0273), with the rest of its key. */
const TALLY_OF = {
  rating: { table: 'indicator_tally', key: ['owner_id', 'type', 'active', 'rating'] },
  confidence: { table: 'indicator_confidence_tally', key: ['owner_id', 'type', 'active', 'confidence'] },
  score: { table: 'indicator_score_tally', key: ['owner_id', 'type', 'active', 'score'] },
} as const

/** How many Indicators the owners hold (of the type, active only when asked, comparing so when asked). */
export async function countIndicatorsByTally(db: Kysely<Database>, q: TallyQuery): Promise<number> {
  if (q.ownerIds.length === 0) return 0
  const tally = TALLY_OF[q.compare?.column ?? 'rating']
  const postgres = dialectOf(db) === 'postgres'
  let query = db
    .selectFrom(tally.table)
    .select([sql<number>`coalesce(sum(n), 0)`.as('n'), ...pileUp(postgres, tally.key)])
    .where('owner_id', 'in', q.ownerIds)
  if (q.type !== undefined) query = query.where('type', '=', q.type)
  if (q.activeOnly) query = query.where('active', '=', 1)
  if (q.activeIs !== undefined) query = query.where('active', '=', q.activeIs)
  if (q.compare?.conditions.length) {
    const { column, conditions, noneAs } = q.compare
    // The tallies keep -1 for "none", which no comparison of a stored value may match unless none counts as a value.
    let value: Expression<unknown> = sql.ref(column)
    if (noneAs === undefined) query = query.where(value, '>=', 0)
    else value = sql`case when ${sql.ref(column)} < 0 then ${noneAs} else ${sql.ref(column)} end`
    for (const c of conditions) query = query.where(value, c.op, c.value)
  }
  const row = await query.executeTakeFirstOrThrow()
  if (postgres && piledUp(row, q.ownerIds.length)) await fold(db, tally.table, tally.key, q.ownerIds)
  return Number(row.n)
}

/** PostgreSQL: the deltas a tally read sees and the keys they sum (SQLite keeps one row a key: nothing to fold). */
function pileUp(postgres: boolean, key: readonly string[]) {
  const keys = postgres ? sql<number>`count(distinct (${sql.join(key.map((c) => sql.ref(c)))}))` : sql<number>`0`
  return [sql<number>`count(*)`.as('deltas'), keys.as('keys')] as const
}

/**
 * Whether the deltas outnumber the keys they sum by more than FOLD_AFTER_ROWS an owner. A fold leaves one row a
 * key, so an owner with more keys than that (a confidence per feed and type) is not folded again at every read.
 */
const piledUp = (row: { deltas: number | string; keys: number | string }, owners: number) =>
  Number(row.deltas) - Number(row.keys) > FOLD_AFTER_ROWS * owners

/**
 * PostgreSQL, after a batch job: folds the owner's rating, confidence and score deltas if they piled up. Each statement of
 * a load appends a delta for every key it touched, up to 505 of the confidence tally for 1,250 classic Indicators
 * (five types, a hundred and one confidences); no read folds them meanwhile, so a 1,000,000-Indicator load left
 * 357,000 of one owner's, for the first read to fold and the disk to hold. Folded after each job, they stay within
 * a job's worth.
 */
export async function foldPiledUpTallies(db: Kysely<Database>, ownerId: number): Promise<void> {
  if (dialectOf(db) !== 'postgres') return
  for (const tally of Object.values(TALLY_OF)) {
    const row = await db
      .selectFrom(tally.table)
      .select(pileUp(true, tally.key))
      .where('owner_id', '=', ownerId)
      .executeTakeFirstOrThrow()
    if (piledUp(row, 1)) await fold(db, tally.table, tally.key, [ownerId])
  }
}

/**
 * Replaces the owners' deltas with their sums, in one statement. A delta committed meanwhile is not in
 * the statement's snapshot, so it is neither deleted nor summed; a second fold running at once skips
 * the rows the first deleted. Either way the sum over each owner's rows stays what it was.
 */
export function foldTally(db: Kysely<Database>, ownerIds: readonly number[]): Promise<void> {
  return fold(db, TALLY_OF.rating.table, TALLY_OF.rating.key, ownerIds)
}

/**
 * Deltas a fold may leave dead before it vacuums the table. PostgreSQL may run with autovacuum off, and then nothing
 * else reclaims them: the first read after a 10,000,000-Indicator load folded 179,000 deltas of one owner, and every
 * later sum read their dead versions through the key index (the v2 first page 13.9 ms p50 where it took 3).
 */
export const VACUUM_AFTER_FOLDED = 10_000

/**
 * Deltas this process's folds removed from each table since its folds last vacuumed it: folds after every batch job
 * remove a few thousand each, which add up to a load's worth of dead rows. By table alone: a store more in the process
 * (tests) at worst vacuums a little early.
 */
const foldedSinceVacuum = new Map<string, number>()

async function fold(
  db: Kysely<Database>,
  table: 'indicator_tally' | 'indicator_confidence_tally' | 'indicator_score_tally' | 'indicator_day_tally',
  key: readonly string[],
  ownerIds: readonly number[],
): Promise<void> {
  const columns = sql.join(key.map((c) => sql.ref(c)))
  // Both statements of the WITH run whole, whatever the last select reads of them.
  const { rows } = await sql<{ folded: number | string }>`with folded as (
      delete from ${sql.table(table)} where owner_id in (${sql.join(ownerIds)}) returning ${columns}, n),
    kept as (insert into ${sql.table(table)} (${columns}, n)
      select ${columns}, sum(n) from folded group by ${columns} having sum(n) <> 0 returning 1)
    select count(*) as folded from folded`.execute(db)
  const folded = (foldedSinceVacuum.get(table) ?? 0) + Number(rows[0]?.folded ?? 0)
  foldedSinceVacuum.set(table, folded)
  // VACUUM cannot run inside a transaction: a fold inside one leaves the dead rows to the next fold outside.
  if (folded >= VACUUM_AFTER_FOLDED && !db.isTransaction) {
    foldedSinceVacuum.set(table, 0)
    await sql`vacuum ${sql.table(table)}`.execute(db)
  }
}

/** The Indicators a day tally read counts: the owners', of one type or all, active only or not. */
export interface DayScope {
  ownerIds: readonly number[]
  type?: string
  activeOnly: boolean
}

export interface AddedWindowQuery extends DayScope {
  /** Stored-form times, both exclusive: `date_added > after` and `date_added < before`, as the v2 filter compares. */
  after?: string
  before?: string
}

/**
 * How many of the owners' Indicators were added inside the window: the day tally's whole days between the
 * window's boundary days, and on each boundary day the rows on the near side of the bound, counted through
 * `indicator_owner_added` (the day's total from the tally less the other side, when that side is the shorter
 * part of the day). Never more rows than one day holds on either end, where counting the window read every
 * Indicator it matched: a million after a bulk load.
 */
export async function countIndicatorsAddedByTally(db: Kysely<Database>, q: AddedWindowQuery): Promise<number> {
  if (q.ownerIds.length === 0) return 0
  const { after, before } = q
  if (after !== undefined && before !== undefined && before <= after) return 0
  const first = after?.slice(0, 10)
  const last = before?.slice(0, 10)
  if (first !== undefined && first === last) return countAddedRows(db, q, { above: after, below: before })
  const [days, head, tail] = await Promise.all([
    selectDayTotals(db, q, first, last),
    after === undefined ? undefined : nearSide(db, q, after, 'after'),
    before === undefined ? undefined : nearSide(db, q, before, 'before'),
  ])
  let n = 0
  for (const [day, total] of days)
    if ((first === undefined || day > first) && (last === undefined || day < last)) n += total
  if (head) n += head.nearSide ? head.rows : (days.get(first!) ?? 0) - head.rows
  if (tail) n += tail.nearSide ? tail.rows : (days.get(last!) ?? 0) - tail.rows
  return n
}

/**
 * The day tally's totals of the days from `first` through `last` (either open), by day (a day whose Indicators
 * were all deleted may be there with 0). On PostgreSQL the owners' deltas are folded once they pile up.
 */
export async function selectDayTotals(
  db: Kysely<Database>,
  q: DayScope,
  first?: string,
  last?: string,
): Promise<Map<string, number>> {
  let query = db
    .selectFrom('indicator_day_tally')
    .select(['day', sql<number | string>`sum(n)`.as('n'), sql<number>`count(*)`.as('deltas')])
    .where('owner_id', 'in', q.ownerIds)
  if (first !== undefined) query = query.where('day', '>=', first)
  if (last !== undefined) query = query.where('day', '<=', last)
  if (q.type !== undefined) query = query.where('type', '=', q.type)
  if (q.activeOnly) query = query.where('active', '=', 1)
  const rows = await query.groupBy('day').execute()
  const deltas = rows.reduce((sum, r) => sum + Number(r.deltas), 0)
  if (dialectOf(db) === 'postgres' && deltas > dayFoldThreshold(rows.length, q.ownerIds.length))
    await foldDayTally(db, q.ownerIds)
  return new Map(rows.map((r) => [r.day, Number(r.n)]))
}

/**
 * PostgreSQL: deltas of the day tally read before its owners' are folded. A day has at most twenty keys an owner
 * (ten types, active or not), fewer than FOLD_AFTER_ROWS, so what a fold leaves never calls for another.
 */
export const dayFoldThreshold = (days: number, owners: number) => FOLD_AFTER_ROWS * Math.max(days, 1) * owners

/** PostgreSQL: the owners' day deltas replaced by their sums, in one statement (as foldTally). */
function foldDayTally(db: Kysely<Database>, ownerIds: readonly number[]): Promise<void> {
  return fold(db, 'indicator_day_tally', ['owner_id', 'day', 'type', 'active'], ownerIds)
}

const HALF_DAY_MS = 12 * 3_600_000

/**
 * The rows of the bound's day inside the window (`nearSide`), or outside it: whichever side of the bound is the
 * shorter part of the day. A date without a time (midnight) leaves nothing on the early side to count.
 */
async function nearSide(
  db: Kysely<Database>,
  q: AddedWindowQuery,
  bound: string,
  side: 'after' | 'before',
): Promise<{ nearSide: boolean; rows: number }> {
  const day = bound.slice(0, 10)
  const next = nextDay(day)
  const early = Date.parse(bound) - Date.parse(`${day}T00:00:00Z`) < HALF_DAY_MS
  // Early in the day: the part before the bound is counted (inside the window for `before`, outside for `after`).
  if (early) {
    const rows = await countAddedRows(db, q, {
      from: day,
      below: side === 'before' ? bound : undefined,
      through: side === 'after' ? bound : undefined,
    })
    return { nearSide: side === 'before', rows }
  }
  const rows = await countAddedRows(db, q, {
    above: side === 'after' ? bound : undefined,
    from: side === 'before' ? bound : undefined,
    below: next,
  })
  return { nearSide: side === 'after', rows }
}

/** The UTC day after `day` (YYYY-MM-DD); undefined past the year 9999, after which no stored time lies. */
function nextDay(day: string): string | undefined {
  const next = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10)
  return /^\d{4}-/.test(next) ? next : undefined
}

/**
 * The owners' Indicators whose date_added lies within the bounds (`from` and `through` inclusive, `above` and
 * `below` exclusive), read as a range of `indicator_owner_added`: type and active flag only check the rows found,
 * else a planner could read an owner's every row of the type through another index.
 */
async function countAddedRows(
  db: Kysely<Database>,
  q: AddedWindowQuery,
  bounds: { from?: string; through?: string; above?: string; below?: string },
): Promise<number> {
  const dialect = dialectOf(db)
  let query = db
    .selectFrom('indicator')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where((eb) => ownerFilter(db, eb, 'owner_id', q.ownerIds, false))
  if (bounds.from !== undefined) query = query.where('date_added', '>=', bounds.from)
  if (bounds.above !== undefined) query = query.where('date_added', '>', bounds.above)
  if (bounds.through !== undefined) query = query.where('date_added', '<=', bounds.through)
  if (bounds.below !== undefined) query = query.where('date_added', '<', bounds.below)
  if (q.type !== undefined) query = query.where(unindexedText(dialect, 'type'), '=', q.type)
  if (q.activeOnly) query = query.where(unindexedInteger(dialect, 'active'), '=', 1)
  return Number((await query.executeTakeFirstOrThrow()).n)
}

/**
 * Reads the Indicator tally that migration 0125's triggers keep: how many Indicators owners hold,
 * without counting their rows.
 */
import { type Kysely, sql } from 'kysely'
import { dialectOf } from '../engine/list-conditions.js'
import type { Database } from '../database.js'

/** Deltas an owner may gather on PostgreSQL before a read folds them into one row per key. */
export const FOLD_AFTER_ROWS = 64

export interface TallyQuery {
  ownerIds: readonly number[]
  /** One type's Indicators; every type when absent. */
  type?: string
  /** Only active Indicators. */
  activeOnly: boolean
  /** Only Indicators whose rating compares so (an unrated one never does, as in SQL). */
  rating?: readonly { op: RatingComparison; value: number }[]
}

export type RatingComparison = '=' | '<' | '>' | '>=' | '<>'

/** How many Indicators the owners hold (of the type, active only when asked). */
export async function countIndicatorsByTally(db: Kysely<Database>, q: TallyQuery): Promise<number> {
  if (q.ownerIds.length === 0) return 0
  let query = db
    .selectFrom('indicator_tally')
    .select([sql<number>`coalesce(sum(n), 0)`.as('n'), sql<number>`count(*)`.as('deltas')])
    .where('owner_id', 'in', q.ownerIds)
  if (q.type !== undefined) query = query.where('type', '=', q.type)
  if (q.activeOnly) query = query.where('active', '=', 1)
  if (q.rating?.length) {
    query = query.where('rating', '>=', 0)
    for (const c of q.rating) query = query.where('rating', c.op, c.value)
  }
  const row = await query.executeTakeFirstOrThrow()
  if (dialectOf(db) === 'postgres' && Number(row.deltas) > FOLD_AFTER_ROWS) await foldTally(db, q.ownerIds)
  return Number(row.n)
}

/**
 * Replaces the owners' deltas with their sums, in one statement. A delta committed meanwhile is not in
 * the statement's snapshot, so it is neither deleted nor summed; a second fold running at once skips
 * the rows the first deleted. Either way the sum over each owner's rows stays what it was.
 */
export async function foldTally(db: Kysely<Database>, ownerIds: readonly number[]): Promise<void> {
  await sql`with folded as (delete from indicator_tally where owner_id in (${sql.join(ownerIds)}) returning owner_id, type, active, rating, n)
    insert into indicator_tally (owner_id, type, active, rating, n)
    select owner_id, type, active, rating, sum(n) from folded group by owner_id, type, active, rating having sum(n) <> 0`.execute(
    db,
  )
}

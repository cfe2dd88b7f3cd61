/**
 * How many Indicators each owner holds per type, active flag and confidence, kept by the database itself: a v2
 * list filtered by confidence (`filters=confidence>50`, the other filter feed clients ask besides rating) answers
 * its exact `resultCount` from a sum over the tally's rows instead of counting the owner's matching rows (112 ms at
 * 1,000,000 Indicators, 1,050 ms at 10,000,000: issue 28, point 4). The confidence is -1 where none is set, so a
 * comparison, as in SQL, never matches it.
 *
 * A tally of its own rather than a column of the rating tally (0136): confidence takes 101 values, and keyed by both
 * an owner would have up to 101 times the keys and each batch statement up to 101 times the deltas. Apart, an owner
 * has at most 2,020 keys here (ten types, active or not), usually a few dozen: feeds set a handful of confidences.
 * The same shape as the other tallies: on SQLite one row per key upserted by row triggers; on PostgreSQL each
 * statement appends its deltas from the transition tables and readers sum, folding an owner's deltas when they pile
 * up (store/repositories/indicator-tally.repository.ts).
 */
import type { Kysely } from 'kysely'
import { type ColumnTally, createColumnTally, dropColumnTally } from './indicator-tally-triggers.js'

const TALLY: ColumnTally = { table: 'indicator_confidence_tally', column: 'confidence', source: 'confidence' }

export const up = (db: Kysely<any>): Promise<void> => createColumnTally(db, TALLY)

export const down = (db: Kysely<any>): Promise<void> => dropColumnTally(db, TALLY)

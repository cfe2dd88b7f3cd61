/**
 * Mirror mode's SQL (domain/feeds/mirror.ts): the values a list brought, by feed, with the last
 * run that brought them (migration 0143), and the look-ups that find the owner's active Indicators
 * of the values that left it. Callers pass chunks of at most a thousand values.
 */
import { type Kysely, sql } from 'kysely'
import type { Database } from '../database.js'

export interface FeedValueKey {
  type: string
  summary: string
}

export async function findFeedOwnerId(db: Kysely<Database>, feedId: number): Promise<number | undefined> {
  const row = await db.selectFrom('feed').select('owner_id').where('id', '=', feedId).executeTakeFirst()
  return row?.owner_id
}

/** Marks the values as brought by the run: a new row, or a later run id on the one held. Keys must be distinct. */
export async function upsertFeedValues(
  db: Kysely<Database>,
  feedId: number,
  runId: number,
  values: readonly FeedValueKey[],
): Promise<void> {
  if (!values.length) return
  await db
    .insertInto('feed_value')
    .values(values.map((v) => ({ feed_id: feedId, type: v.type, summary: v.summary, last_run_id: runId })))
    .onConflict((oc) =>
      oc.columns(['feed_id', 'type', 'summary']).doUpdateSet({ last_run_id: (eb) => eb.ref('excluded.last_run_id') }),
    )
    .execute()
}

/**
 * The feed's values no run since `runId` brought, in key order after `after`: one walk along the
 * primary key however many values the list holds.
 */
export function listFeedValuesBefore(
  db: Kysely<Database>,
  feedId: number,
  runId: number,
  after: FeedValueKey | undefined,
  limit: number,
): Promise<FeedValueKey[]> {
  let query = db
    .selectFrom('feed_value')
    .select(['type', 'summary'])
    .where('feed_id', '=', feedId)
    .where('last_run_id', '<', runId)
  if (after)
    query = query.where(sql<boolean>`(${sql.ref('type')}, ${sql.ref('summary')}) > (${after.type}, ${after.summary})`)
  return query.orderBy('type').orderBy('summary').limit(limit).execute()
}

/** Of these values, those another feed of the same owner holds (its list still brings them). */
export async function findValuesOfOtherFeeds(
  db: Kysely<Database>,
  feedId: number,
  ownerId: number,
  type: string,
  summaries: readonly string[],
): Promise<string[]> {
  if (!summaries.length) return []
  const rows = await db
    .selectFrom('feed_value')
    .innerJoin('feed', 'feed.id', 'feed_value.feed_id')
    .select('feed_value.summary')
    .distinct()
    .where('feed.owner_id', '=', ownerId)
    .where('feed_value.feed_id', '<>', feedId)
    .where('feed_value.type', '=', type)
    .where('feed_value.summary', 'in', [...summaries])
    .execute()
  return rows.map((r) => r.summary)
}

/** Of these File hashes, those the run (or a later one) brought: a File holding one stays. */
export async function findCurrentFileHashes(
  db: Kysely<Database>,
  feedId: number,
  runId: number,
  hashes: readonly string[],
): Promise<string[]> {
  if (!hashes.length) return []
  const rows = await db
    .selectFrom('feed_value')
    .select('summary')
    .where('feed_id', '=', feedId)
    .where('type', '=', 'File')
    .where('last_run_id', '>=', runId)
    .where('summary', 'in', [...hashes])
    .execute()
  return rows.map((r) => r.summary)
}

export async function deleteFeedValues(
  db: Kysely<Database>,
  feedId: number,
  type: string,
  summaries: readonly string[],
): Promise<void> {
  if (summaries.length)
    await db
      .deleteFrom('feed_value')
      .where('feed_id', '=', feedId)
      .where('type', '=', type)
      .where('summary', 'in', [...summaries])
      .execute()
}

/** The owner's active, unlocked Indicators of one type (not File) by summary, along (owner_id, type, summary). */
export async function findActiveIndicatorIds(
  db: Kysely<Database>,
  ownerId: number,
  type: string,
  summaries: readonly string[],
): Promise<number[]> {
  if (!summaries.length) return []
  const rows = await db
    .selectFrom('indicator')
    .select('id')
    .where('owner_id', '=', ownerId)
    .where('type', '=', type)
    .where('summary', 'in', [...summaries])
    .where('active', '=', 1)
    .where('active_locked', '=', 0)
    .execute()
  return rows.map((r) => r.id)
}

/**
 * The owner's active, unlocked Files holding any of the hashes, with all their hashes. `'File'` is
 * written as a literal: SQLite reads a partial index (the `(owner_id, valueN)` hash indexes hold
 * Files only) only for a constant it can match when it prepares the statement.
 */
export async function findActiveFilesByHashes(
  db: Kysely<Database>,
  ownerId: number,
  hashes: readonly string[],
): Promise<{ id: number; value1: string | null; value2: string | null; value3: string | null }[]> {
  if (!hashes.length) return []
  const byId = new Map<number, { id: number; value1: string | null; value2: string | null; value3: string | null }>()
  for (const column of ['value1', 'value2', 'value3'] as const) {
    const rows = await db
      .selectFrom('indicator')
      .select(['id', 'value1', 'value2', 'value3'])
      .where('owner_id', '=', ownerId)
      .where('type', '=', sql.lit('File'))
      .where(column, 'in', [...hashes])
      .where('active', '=', 1)
      .where('active_locked', '=', 0)
      .execute()
    for (const row of rows) byId.set(row.id, row)
  }
  return [...byId.values()]
}

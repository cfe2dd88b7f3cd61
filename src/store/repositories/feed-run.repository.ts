/**
 * Running feeds (domain/feeds/run-feed.ts): which feeds are due, the lease on a feed's row by which one
 * node at a time runs it (lease.repository.ts; a feed has no status, like a scheduled task: it is free
 * whenever nobody's lease holds it), the cursor written under that lease, and the record of each run,
 * of which the newest FEED_RUNS_KEPT per feed are kept.
 */
import { type Expression, type Kysely, type Selectable, type SqlBool, sql } from 'kysely'
import type { Database, FeedRunTable, FeedTable } from '../database.js'
import { leaseOf } from './lease.repository.js'

export type FeedRunRow = Selectable<FeedRunTable>

/** Runs kept per feed: the oldest go as new ones are added. */
export const FEED_RUNS_KEPT = 100

const feedLease = leaseOf({ table: 'feed', key: 'id' })

/** Enabled feeds whose time has come and whose lease nobody holds, soonest due first. */
export async function listDueFeedIds(db: Kysely<Database>, now: string, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom('feed')
    .select('id')
    .where('enabled', '=', 1)
    .where('next_run_at', '<=', now)
    .where((eb) => eb.or([eb('lease_expires', 'is', null), eb('lease_expires', '<', now)]))
    .orderBy('next_run_at')
    .orderBy('id')
    .limit(limit)
    .execute()
  return rows.map((r) => r.id)
}

/**
 * Takes a feed's lease for `workerId` until `leaseUntil` when nobody holds it; `due` also requires it
 * enabled and due at `now` (a scheduled run; a manual one runs whenever it is free). True for exactly
 * one of any number of racing workers.
 */
export function claimFeed(
  db: Kysely<Database>,
  feedId: number,
  claim: { workerId: string; now: string; leaseUntil: string; due: boolean },
): Promise<boolean> {
  const due = sql<SqlBool>`(${sql.ref('enabled')} = 1 and ${sql.ref('next_run_at')} <= ${claim.now})`
  return feedLease.claim(db, feedId, claim, {}, claim.due ? (due as Expression<SqlBool>) : undefined)
}

/** Extends the lease while its holder works; false when another worker took the feed. */
export function renewFeedLease(db: Kysely<Database>, feedId: number, workerId: string, leaseUntil: string) {
  return feedLease.renew(db, feedId, workerId, { lease_expires: leaseUntil })
}

/** Stores the cursor a stored page holds to, under the lease (the fence); false when the lease was lost. */
export function storeFeedCursor(
  db: Kysely<Database>,
  feedId: number,
  workerId: string,
  cursor: string,
  leaseUntil: string,
) {
  return feedLease.renew(db, feedId, workerId, { cursor, lease_expires: leaseUntil })
}

/** Lets go of the feed with its schedule after the run; false when `workerId` no longer held it. */
export function finishFeed(
  db: Kysely<Database>,
  feedId: number,
  workerId: string,
  outcome: { nextRunAt: string; failures: number; lastSuccessAt?: string },
) {
  return feedLease.finish(db, feedId, workerId, {
    next_run_at: outcome.nextRunAt,
    failures: outcome.failures,
    ...(outcome.lastSuccessAt ? { last_success_at: outcome.lastSuccessAt } : {}),
  })
}

/** Lets go of the feed as it was, free to claim at once (a run that could not start). */
export function releaseFeed(db: Kysely<Database>, feedId: number, workerId: string, now: string) {
  return feedLease.release(db, feedId, workerId, now)
}

/** A feed's row for its run, with its owner's name; undefined when there is none. */
export function findFeedForRun(db: Kysely<Database>, feedId: number) {
  return db
    .selectFrom('feed')
    .innerJoin('owner', 'owner.id', 'feed.owner_id')
    .selectAll('feed')
    .select('owner.name as owner_name')
    .where('feed.id', '=', feedId)
    .executeTakeFirst() as Promise<(Selectable<FeedTable> & { owner_name: string }) | undefined>
}

export async function findFeedIdByName(db: Kysely<Database>, name: string): Promise<number | undefined> {
  return (await db.selectFrom('feed').select('id').where('name', '=', name).executeTakeFirst())?.id
}

/** Makes a feed due now, so the next node to look runs it. */
export async function makeFeedDue(db: Kysely<Database>, feedId: number, now: string) {
  await db.updateTable('feed').set({ next_run_at: now }).where('id', '=', feedId).execute()
}

/** Records a run as it starts, and lets the oldest runs of the feed beyond FEED_RUNS_KEPT go. */
export async function insertFeedRun(
  db: Kysely<Database>,
  run: { feedId: number; trigger: string; worker: string; startedAt: string },
): Promise<number> {
  const { id } = await db
    .insertInto('feed_run')
    .values({
      feed_id: run.feedId,
      status: 'Running',
      trigger: run.trigger,
      worker: run.worker,
      started_at: run.startedAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  const oldestKept = await db
    .selectFrom('feed_run')
    .select('id')
    .where('feed_id', '=', run.feedId)
    .orderBy('id', 'desc')
    .offset(FEED_RUNS_KEPT - 1)
    .limit(1)
    .executeTakeFirst()
  if (oldestKept)
    await db.deleteFrom('feed_run').where('feed_id', '=', run.feedId).where('id', '<', oldestKept.id).execute()
  return id
}

export type FeedRunValues = Partial<
  Pick<
    FeedRunRow,
    | 'status'
    | 'finished_at'
    | 'pages'
    | 'fetched'
    | 'created'
    | 'updated'
    | 'unchanged'
    | 'refused'
    | 'refusals'
    | 'error'
  >
>

export async function updateFeedRun(db: Kysely<Database>, runId: number, values: FeedRunValues) {
  await db.updateTable('feed_run').set(values).where('id', '=', runId).execute()
}

export function findFeedRun(db: Kysely<Database>, runId: number) {
  return db.selectFrom('feed_run').selectAll().where('id', '=', runId).executeTakeFirst()
}

/** A feed's runs, newest first. */
export function listFeedRuns(db: Kysely<Database>, feedId: number, page: { limit: number; offset: number }) {
  return db
    .selectFrom('feed_run')
    .selectAll()
    .where('feed_id', '=', feedId)
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute()
}

export async function countFeedRuns(db: Kysely<Database>, feedId: number): Promise<number> {
  const row = await db
    .selectFrom('feed_run')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('feed_id', '=', feedId)
    .executeTakeFirst()
  return Number(row?.n ?? 0)
}

/**
 * Runs recorded as Running whose node no longer holds their feed (it died, or its lease ran out and
 * the feed went to another node) become Interrupted; with `feedId`, only that feed's. Their number.
 */
export async function markInterruptedRuns(db: Kysely<Database>, now: string, feedId?: number): Promise<number> {
  let query = db
    .updateTable('feed_run')
    .set({ status: 'Interrupted', finished_at: now })
    .where('status', '=', 'Running')
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('feed')
          .select('feed.id')
          .whereRef('feed.id', '=', 'feed_run.feed_id')
          .where((eb) =>
            eb.or([
              eb('feed.lease_owner', 'is', null),
              eb('feed.lease_owner', '!=', eb.ref('feed_run.worker')),
              eb('feed.lease_expires', '<', now),
            ]),
          ),
      ),
    )
  if (feedId !== undefined) query = query.where('feed_id', '=', feedId)
  return Number((await query.executeTakeFirst()).numUpdatedRows)
}

/** Ends the runs of a feed still recorded as Running: called by the holder of its lease, no other run of it is live. */
export async function interruptRunsOf(db: Kysely<Database>, feedId: number, now: string) {
  await db
    .updateTable('feed_run')
    .set({ status: 'Interrupted', finished_at: now })
    .where('feed_id', '=', feedId)
    .where('status', '=', 'Running')
    .execute()
}

/** Every feed's figures for the metrics: its schedule's state and its newest finished run. */
export async function feedMetricRows(db: Kysely<Database>) {
  const feeds = await db
    .selectFrom('feed')
    .select(['id', 'name', 'failures', 'last_success_at'])
    .orderBy('id')
    .execute()
  const lastRuns = await db
    .selectFrom('feed_run')
    .select(['feed_id', 'created', 'updated', 'unchanged', 'refused'])
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('feed_run')
        .select((e) => e.fn.max('id').as('id'))
        .where('status', '!=', 'Running')
        .groupBy('feed_id'),
    )
    .execute()
  return { feeds, lastRuns }
}

/**
 * The Indicator lifecycle's SQL (domain/lifecycle): owners' policies, the stale Indicators of an
 * owner read along `indicator_owner_modified` (owner, last_modified, id) so a run reads only rows
 * untouched since the shortest cutoff, and the scheduled tasks' leases (one compare-and-set UPDATE
 * claims a task, as batch jobs are claimed).
 */
import { type Kysely, sql } from 'kysely'
import type { Database } from '../database.js'
import { leaseOf } from './lease.repository.js'

export async function listLifecyclePolicies(db: Kysely<Database>, ownerId?: number) {
  let query = db.selectFrom('indicator_lifecycle_policy').select(['owner_id', 'type', 'days'])
  if (ownerId !== undefined) query = query.where('owner_id', '=', ownerId)
  return query.orderBy('owner_id').orderBy('type').execute()
}

export async function upsertLifecyclePolicy(db: Kysely<Database>, ownerId: number, type: string, days: number) {
  await db
    .insertInto('indicator_lifecycle_policy')
    .values({ owner_id: ownerId, type, days })
    .onConflict((oc) => oc.columns(['owner_id', 'type']).doUpdateSet({ days }))
    .execute()
}

export async function deleteLifecyclePolicy(db: Kysely<Database>, ownerId: number, type: string) {
  await db.deleteFrom('indicator_lifecycle_policy').where('owner_id', '=', ownerId).where('type', '=', type).execute()
}

export async function listOwnerIdsWithIndicators(db: Kysely<Database>): Promise<number[]> {
  const rows = await db.selectFrom('indicator_tally').select('owner_id').distinct().orderBy('owner_id').execute()
  return rows.map((r) => r.owner_id)
}

export interface LifecycleCandidate {
  id: number
  type: string
  last_modified: string
  last_sighted: string | null
  last_observed: string | null
}

/**
 * One page of an owner's active, unlocked Indicators last modified before `before`, in
 * (last_modified, id) order after `after`.
 */
export async function findLifecycleCandidates(
  db: Kysely<Database>,
  ownerId: number,
  before: string,
  after: { lastModified: string; id: number } | undefined,
  limit: number,
): Promise<LifecycleCandidate[]> {
  let query = db
    .selectFrom('indicator')
    .select(['id', 'type', 'last_modified', 'last_sighted', 'last_observed'])
    .where('owner_id', '=', ownerId)
    .where('last_modified', '<', before)
    .where('active', '=', 1)
    .where('active_locked', '=', 0)
  if (after)
    query = query.where(
      sql<boolean>`(${sql.ref('last_modified')}, ${sql.ref('id')}) > (${after.lastModified}, ${after.id})`,
    )
  return query.orderBy('last_modified').orderBy('id').limit(limit).execute()
}

/** Turns Indicators inactive, unless one was locked or turned inactive meanwhile; returns how many. */
export async function deactivateIndicators(db: Kysely<Database>, ids: readonly number[], now: string) {
  if (!ids.length) return 0
  const result = await db
    .updateTable('indicator')
    .set({ active: 0, last_modified: now, stale_since: now })
    .where('id', 'in', ids)
    .where('active', '=', 1)
    .where('active_locked', '=', 0)
    .executeTakeFirst()
  return Number(result.numUpdatedRows)
}

/** Stamps Indicators as seen again (an import met them unchanged). */
export async function markIndicatorsSighted(db: Kysely<Database>, ids: readonly number[], now: string) {
  if (ids.length) await db.updateTable('indicator').set({ last_sighted: now }).where('id', 'in', ids).execute()
}

/** Scheduled tasks are never done: a task is free whenever nobody's lease holds it (lease.repository.ts). */
const scheduledTaskLease = leaseOf({ table: 'scheduled_task', key: 'name' })

/**
 * Claims a scheduled task for `workerId` until `leaseUntil` when nobody holds it and it last started
 * before `dueBefore`; true when this worker won it.
 */
export async function claimScheduledTask(
  db: Kysely<Database>,
  name: string,
  workerId: string,
  now: string,
  leaseUntil: string,
  dueBefore: string,
): Promise<boolean> {
  await db
    .insertInto('scheduled_task')
    .values({ name })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute()
  const due = sql<boolean>`(${sql.ref('last_started')} is null or ${sql.ref('last_started')} < ${dueBefore})`
  return scheduledTaskLease.claim(db, name, { workerId, now, leaseUntil }, { last_started: now }, due)
}

/** Extends the lease while its holder works; false when another worker took the task. */
export function renewScheduledTask(db: Kysely<Database>, name: string, workerId: string, leaseUntil: string) {
  return scheduledTaskLease.renew(db, name, workerId, { lease_expires: leaseUntil })
}

export async function finishScheduledTask(
  db: Kysely<Database>,
  name: string,
  workerId: string,
  now: string,
  outcome: string,
) {
  await scheduledTaskLease.finish(db, name, workerId, { last_finished: now, last_outcome: outcome })
}

export async function findScheduledTask(db: Kysely<Database>, name: string) {
  return db.selectFrom('scheduled_task').selectAll().where('name', '=', name).executeTakeFirst()
}

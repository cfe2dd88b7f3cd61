/**
 * Per-Indicator detail the v3 fields= expansions read for many Indicators at once: who
 * observed or reported them (trackedUsers), the caller's own false-positive reports, DNS
 * resolutions, File actions and occurrences.
 */
import { type Kysely, sql } from 'kysely'
import type { Database } from '../database.js'
import { inChunks } from './metadata.repository.js'

export interface TrackedUserRow {
  indicator_id: number
  user_name: string
  observations: number
  last_observed: string | null
  false_positives: number
  last_false_positive: string | null
}

/** Observation and false-positive totals per Indicator and user. */
export async function listTrackedUsers(db: Kysely<Database>, ids: readonly number[]): Promise<TrackedUserRow[]> {
  const observed = await inChunks(ids, (chunk) =>
    db
      .selectFrom('indicator_observation as o')
      .innerJoin('user_account as u', 'u.id', 'o.user_id')
      .select([
        'o.indicator_id',
        'u.user_name',
        sql<number>`sum(o.count)`.as('n'),
        sql<string>`max(o.date_observed)`.as('last'),
      ])
      .where('o.indicator_id', 'in', chunk)
      .groupBy(['o.indicator_id', 'u.user_name'])
      .execute(),
  )
  const reported = await inChunks(ids, (chunk) =>
    db
      .selectFrom('indicator_false_positive as f')
      .innerJoin('user_account as u', 'u.id', 'f.user_id')
      .select([
        'f.indicator_id',
        'u.user_name',
        sql<number>`count(*)`.as('n'),
        sql<string>`max(f.reported_at)`.as('last'),
      ])
      .where('f.indicator_id', 'in', chunk)
      .groupBy(['f.indicator_id', 'u.user_name'])
      .execute(),
  )
  const rows = new Map<string, TrackedUserRow>()
  const entry = (indicatorId: number, userName: string) => {
    const key = `${indicatorId}\u0000${userName}`
    let row = rows.get(key)
    if (!row) {
      row = {
        indicator_id: indicatorId,
        user_name: userName,
        observations: 0,
        last_observed: null,
        false_positives: 0,
        last_false_positive: null,
      }
      rows.set(key, row)
    }
    return row
  }
  for (const o of observed)
    Object.assign(entry(o.indicator_id, o.user_name), { observations: Number(o.n), last_observed: o.last })
  for (const f of reported)
    Object.assign(entry(f.indicator_id, f.user_name), { false_positives: Number(f.n), last_false_positive: f.last })
  return [...rows.values()].sort((a, b) => a.indicator_id - b.indicator_id || a.user_name.localeCompare(b.user_name))
}

/** Which of the Indicators the user has ever reported as a false positive. */
export async function listReportedByUser(
  db: Kysely<Database>,
  ids: readonly number[],
  userId: number,
): Promise<Set<number>> {
  const rows = await inChunks(ids, (chunk) =>
    db
      .selectFrom('indicator_false_positive')
      .select('indicator_id')
      .distinct()
      .where('indicator_id', 'in', chunk)
      .where('user_id', '=', userId)
      .execute(),
  )
  return new Set(rows.map((r) => r.indicator_id))
}

/** DNS resolutions of Hosts, with the resolved Address summaries. */
export function listDnsResolutions(db: Kysely<Database>, hostIds: readonly number[]) {
  return inChunks(hostIds, (chunk) =>
    db
      .selectFrom('dns_resolution as d')
      .innerJoin('indicator as a', 'a.id', 'd.address_id')
      .select(['d.host_id', 'd.address_id', 'a.summary as ip', 'd.resolution_date'])
      .where('d.host_id', 'in', chunk)
      .orderBy('d.resolution_date', 'desc')
      .orderBy('d.address_id')
      .execute(),
  )
}

/** File actions of Files, with the target Indicators' type and summary. */
export function listFileActionsOf(db: Kysely<Database>, fileIds: readonly number[]) {
  return inChunks(fileIds, (chunk) =>
    db
      .selectFrom('file_action as f')
      .innerJoin('indicator as t', 't.id', 'f.target_indicator_id')
      .select([
        'f.indicator_id',
        'f.action',
        'f.target_indicator_id',
        't.type',
        't.summary',
        't.owner_id',
        'f.date_added',
      ])
      .where('f.indicator_id', 'in', chunk)
      .orderBy('f.id')
      .execute(),
  )
}

export function listFileOccurrencesOf(db: Kysely<Database>, fileIds: readonly number[]) {
  return inChunks(fileIds, (chunk) =>
    db.selectFrom('file_occurrence').selectAll().where('indicator_id', 'in', chunk).orderBy('id').execute(),
  )
}

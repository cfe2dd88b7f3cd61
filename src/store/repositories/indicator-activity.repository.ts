/**
 * What happens to Indicators besides their own fields: observations, false positives, File
 * occurrences, File actions and the record of deleted Indicators.
 */
import { type Kysely, sql } from 'kysely'
import type { Database, Row } from '../database.js'
import { refreshThreatAssessment } from './indicator.repository.js'

/** An Indicator the lifecycle made stale and nobody locked (domain/lifecycle). */
const revived = sql`stale_since IS NOT NULL AND active_locked = 0`

/** Records an observation; a stale Indicator (revived) is active again from `now`. */
export async function insertObservation(
  db: Kysely<Database>,
  indicatorId: number,
  userId: number,
  count: number,
  dateObserved: string,
  now: string,
) {
  await db
    .insertInto('indicator_observation')
    .values({ indicator_id: indicatorId, user_id: userId, count, date_observed: dateObserved })
    .execute()
  await db
    .updateTable('indicator')
    .where('id', '=', indicatorId)
    .set((eb) => ({
      observation_count: eb('observation_count', '+', count),
      last_observed: sql<string>`CASE WHEN last_observed IS NULL OR last_observed < ${dateObserved} THEN ${dateObserved} ELSE last_observed END`,
      active: sql<number>`CASE WHEN ${revived} THEN 1 ELSE active END`,
      last_modified: sql<string>`CASE WHEN ${revived} THEN ${now} ELSE last_modified END`,
      stale_since: sql<string | null>`CASE WHEN ${revived} THEN NULL ELSE stale_since END`,
    }))
    .execute()
  await refreshThreatAssessment(db, [indicatorId])
}

/** Observations per day, newest first. */
export function listObservationsByDay(db: Kysely<Database>, indicatorId: number) {
  const day = sql<string>`substr(date_observed, 1, 10)`
  return db
    .selectFrom('indicator_observation')
    .select([
      day.as('day'),
      sql<number>`sum(${sql.ref('count')})`.as('count'),
      sql<string>`max(date_observed)`.as('last'),
    ])
    .where('indicator_id', '=', indicatorId)
    .groupBy(day)
    .orderBy(day, 'desc')
    .execute()
}

/** Totals over every observer and over the observers in one Organization. */
export async function observationTotals(db: Kysely<Database>, indicatorId: number, organizationId: number) {
  const all = await db
    .selectFrom('indicator_observation')
    .select([sql<number | null>`sum(${sql.ref('count')})`.as('n'), sql<string | null>`max(date_observed)`.as('last')])
    .where('indicator_id', '=', indicatorId)
    .executeTakeFirst()
  const mine = await db
    .selectFrom('indicator_observation')
    .innerJoin('user_account', 'user_account.id', 'indicator_observation.user_id')
    .select([
      sql<number | null>`sum(indicator_observation.count)`.as('n'),
      sql<string | null>`max(indicator_observation.date_observed)`.as('last'),
    ])
    .where('indicator_observation.indicator_id', '=', indicatorId)
    .where('user_account.organization_id', '=', organizationId)
    .executeTakeFirst()
  return {
    count: Number(all?.n ?? 0),
    last: all?.last ?? null,
    yourCount: Number(mine?.n ?? 0),
    yourLast: mine?.last ?? null,
  }
}

/** The most-observed Indicators of the owners since a time, with each observer's share. */
export async function listMostObserved(
  db: Kysely<Database>,
  ownerIds: readonly number[],
  since: string,
  limit: number,
) {
  if (ownerIds.length === 0) return []
  const top = await db
    .selectFrom('indicator_observation as o')
    .innerJoin('indicator as i', 'i.id', 'o.indicator_id')
    .select([
      'i.id',
      'i.summary',
      'i.type',
      sql<number>`sum(o.count)`.as('total'),
      sql<string>`max(o.date_observed)`.as('last'),
    ])
    .where('i.owner_id', 'in', ownerIds)
    .where('o.date_observed', '>=', since)
    .groupBy(['i.id', 'i.summary', 'i.type'])
    .orderBy(sql`sum(o.count)`, 'desc')
    .orderBy('i.id')
    .limit(limit)
    .execute()
  if (top.length === 0) return []
  const perUser = await db
    .selectFrom('indicator_observation as o')
    .innerJoin('user_account as u', 'u.id', 'o.user_id')
    .select([
      'o.indicator_id',
      'u.user_name',
      sql<number>`sum(o.count)`.as('total'),
      sql<string>`max(o.date_observed)`.as('last'),
    ])
    .where(
      'o.indicator_id',
      'in',
      top.map((t) => t.id),
    )
    .where('o.date_observed', '>=', since)
    .groupBy(['o.indicator_id', 'u.user_name'])
    .orderBy('u.user_name')
    .execute()
  return top.map((t) => ({
    ...t,
    total: Number(t.total),
    users: perUser.filter((u) => u.indicator_id === t.id).map((u) => ({ ...u, total: Number(u.total) })),
  }))
}

/** Records one false positive per user, Indicator and day; returns false when that day's report already exists. */
export async function insertFalsePositive(
  db: Kysely<Database>,
  indicatorId: number,
  userId: number,
  day: string,
  now: string,
): Promise<boolean> {
  const result = await db
    .insertInto('indicator_false_positive')
    .values({ indicator_id: indicatorId, user_id: userId, day, reported_at: now })
    .onConflict((oc) => oc.columns(['indicator_id', 'user_id', 'day']).doNothing())
    .executeTakeFirst()
  const inserted = Number(result.numInsertedOrUpdatedRows ?? 0) > 0
  if (inserted) {
    await db
      .updateTable('indicator')
      .where('id', '=', indicatorId)
      .set((eb) => ({ false_positive_count: eb('false_positive_count', '+', 1), last_false_positive: now }))
      .execute()
    await refreshThreatAssessment(db, [indicatorId])
  }
  return inserted
}

export type FileOccurrenceRow = Row<'file_occurrence'>

export function listFileOccurrenceRows(db: Kysely<Database>, indicatorId: number): Promise<FileOccurrenceRow[]> {
  return db.selectFrom('file_occurrence').selectAll().where('indicator_id', '=', indicatorId).orderBy('id').execute()
}

export function findFileOccurrenceRow(
  db: Kysely<Database>,
  indicatorId: number,
  id: number,
): Promise<FileOccurrenceRow | undefined> {
  return db
    .selectFrom('file_occurrence')
    .selectAll()
    .where('indicator_id', '=', indicatorId)
    .where('id', '=', id)
    .executeTakeFirst()
}

export async function insertFileOccurrence(
  db: Kysely<Database>,
  values: Omit<FileOccurrenceRow, 'id'>,
): Promise<number> {
  return (await db.insertInto('file_occurrence').values(values).returning('id').executeTakeFirstOrThrow()).id
}

export async function updateFileOccurrence(
  db: Kysely<Database>,
  id: number,
  changes: Partial<Omit<FileOccurrenceRow, 'id' | 'indicator_id'>>,
) {
  if (Object.keys(changes).length) await db.updateTable('file_occurrence').set(changes).where('id', '=', id).execute()
}

export async function deleteFileOccurrence(db: Kysely<Database>, id: number) {
  await db.deleteFrom('file_occurrence').where('id', '=', id).execute()
}

export function findFileActionType(db: Kysely<Database>, action: string) {
  return db
    .selectFrom('association_type')
    .selectAll()
    .where('file_action', '=', 1)
    .where('api_branch', '=', action)
    .executeTakeFirst()
}

export async function insertFileAction(
  db: Kysely<Database>,
  fileId: number,
  action: string,
  targetId: number,
  now: string,
): Promise<boolean> {
  const existing = await db
    .selectFrom('file_action')
    .select('id')
    .where('indicator_id', '=', fileId)
    .where('action', '=', action)
    .where('target_indicator_id', '=', targetId)
    .executeTakeFirst()
  if (existing) return false
  await db
    .insertInto('file_action')
    .values({ indicator_id: fileId, action, target_indicator_id: targetId, date_added: now })
    .execute()
  return true
}

export async function deleteFileAction(
  db: Kysely<Database>,
  fileId: number,
  action: string,
  targetId: number,
): Promise<boolean> {
  const result = await db
    .deleteFrom('file_action')
    .where('indicator_id', '=', fileId)
    .where('action', '=', action)
    .where('target_indicator_id', '=', targetId)
    .executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

export async function insertDeletedIndicator(db: Kysely<Database>, values: Omit<Row<'deleted_indicator'>, 'id'>) {
  await db.insertInto('deleted_indicator').values(values).execute()
}

export async function pruneDeletedIndicators(db: Kysely<Database>, before: string) {
  await db.deleteFrom('deleted_indicator').where('date_deleted', '<', before).execute()
}

export async function listDeletedIndicatorRows(
  db: Kysely<Database>,
  spec: { ownerIds: readonly number[]; type?: string; since: string; offset: number; limit: number },
) {
  if (spec.ownerIds.length === 0) return { rows: [], total: 0 }
  const base = () => {
    let q = db
      .selectFrom('deleted_indicator')
      .innerJoin('owner', 'owner.id', 'deleted_indicator.owner_id')
      .where('deleted_indicator.owner_id', 'in', spec.ownerIds)
      .where('deleted_indicator.date_deleted', '>=', spec.since)
    if (spec.type) q = q.where('deleted_indicator.type', '=', spec.type)
    return q
  }
  const [rows, count] = await Promise.all([
    base()
      .selectAll('deleted_indicator')
      .select('owner.name as owner_name')
      .orderBy('deleted_indicator.id')
      .limit(spec.limit)
      .offset(spec.offset)
      .execute(),
    base()
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst(),
  ])
  return { rows, total: Number(count?.n ?? 0) }
}

/** An observation imported from a source's sighting (source_ref), as held. */
export interface SourcedObservationRow {
  id: number
  indicator_id: number
  source_ref: string
  source_modified: string | null
  count: number
}

/** The observations of these Indicators imported from these sightings. */
export async function findSourcedObservations(
  db: Kysely<Database>,
  indicatorIds: readonly number[],
  sourceRefs: readonly string[],
): Promise<SourcedObservationRow[]> {
  if (!indicatorIds.length || !sourceRefs.length) return []
  const rows = await db
    .selectFrom('indicator_observation')
    .select(['id', 'indicator_id', 'source_ref', 'source_modified', 'count'])
    .where('indicator_id', 'in', [...new Set(indicatorIds)])
    .where('source_ref', 'in', [...new Set(sourceRefs)])
    .execute()
  return rows as SourcedObservationRow[]
}

export interface SourcedObservation {
  indicatorId: number
  userId: number
  count: number
  dateObserved: string
  sourceRef: string
  sourceModified: string | null
  /** The row this sighting made before (a newer version replaces its count), absent for a new one. */
  held?: SourcedObservationRow
}

/**
 * Records sightings as observations: a new one adds its count to the Indicator's; a newer version
 * of one held replaces the count it recorded (the Indicator's changes by the difference). Then
 * the ThreatAssess scores of the Indicators are refreshed once.
 */
export async function recordSourcedObservations(db: Kysely<Database>, observations: readonly SourcedObservation[]) {
  for (const o of observations) {
    if (o.held) {
      await db
        .updateTable('indicator_observation')
        .set({ count: o.count, date_observed: o.dateObserved, source_modified: o.sourceModified, user_id: o.userId })
        .where('id', '=', o.held.id)
        .execute()
    } else {
      await db
        .insertInto('indicator_observation')
        .values({
          indicator_id: o.indicatorId,
          user_id: o.userId,
          count: o.count,
          date_observed: o.dateObserved,
          source_ref: o.sourceRef,
          source_modified: o.sourceModified,
        })
        .execute()
    }
    const delta = o.count - (o.held?.count ?? 0)
    await db
      .updateTable('indicator')
      .where('id', '=', o.indicatorId)
      .set((eb) => ({
        observation_count: eb('observation_count', '+', delta),
        last_observed: sql<string>`CASE WHEN last_observed IS NULL OR last_observed < ${o.dateObserved} THEN ${o.dateObserved} ELSE last_observed END`,
      }))
      .execute()
  }
  await refreshThreatAssessment(db, [...new Set(observations.map((o) => o.indicatorId))])
}

/** The attributes of these Groups of one type whose value starts so (the sightings an import kept). */
export function findSightingAttributes(
  db: Kysely<Database>,
  groupIds: readonly number[],
  typeId: number,
  prefix: string,
) {
  return db
    .selectFrom('attribute')
    .select(['id', 'item_id', 'value'])
    .where('item_kind', '=', 'group')
    .where('item_id', 'in', groupIds)
    .where('type_id', '=', typeId)
    .where(sql<string>`substr(value, 1, ${prefix.length})`, '=', prefix)
    .execute()
}

export async function updateAttributeValue(db: Kysely<Database>, id: number, value: string, now: string) {
  await db.updateTable('attribute').set({ value, last_modified: now }).where('id', '=', id).execute()
}

/** Widens each Group's first_seen / last_seen to take in the window; a Group whose dates change is modified now. */
export async function widenGroupSeen(
  db: Kysely<Database>,
  windows: ReadonlyMap<number, { first: string; last: string }>,
  now: string,
) {
  if (windows.size === 0) return
  const rows = await db
    .selectFrom('intel_group')
    .select(['id', 'first_seen', 'last_seen'])
    .where('id', 'in', [...windows.keys()])
    .execute()
  for (const row of rows) {
    const w = windows.get(row.id)!
    const first = row.first_seen && row.first_seen <= w.first ? row.first_seen : w.first
    const last = row.last_seen && row.last_seen >= w.last ? row.last_seen : w.last
    if (first === row.first_seen && last === row.last_seen) continue
    await db
      .updateTable('intel_group')
      .set({ first_seen: first, last_seen: last, last_modified: now })
      .where('id', '=', row.id)
      .execute()
  }
}

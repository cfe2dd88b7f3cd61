/**
 * Observations and false positives reported on Indicators, the most-observed list, the
 * owners holding the same Indicator, and the record of deleted Indicators.
 */
import {
  insertFalsePositive,
  insertObservation,
  listDeletedIndicatorRows,
  listMostObserved,
  listObservationsByDay,
  observationTotals,
  pruneDeletedIndicators,
} from '../../store/repositories/indicator-activity.repository.js'
import { findIndicatorRow } from '../../store/repositories/indicator.repository.js'
import { listDnsResolutions as listDnsResolutionRows } from '../../store/repositories/indicator-tracking.repository.js'
import { type RequestContext, requirePermission } from '../context.js'
import { readableOwners } from '../access/owner-scope.js'
import { forbidden, invalid } from '../../core/errors.js'
import { findIndicatorsBySummary, getIndicatorById, indicatorItem } from './indicators.js'
import { DAY_MS, parseApiTime } from '../../core/time.js'
import type { IndicatorRecord } from './record.js'
import { requireIndicatorType } from './record.js'
import { withTransactionDb } from '../transaction.js'

const MAX_OBSERVATIONS = 2_147_483_647

/** Observe permission in the Indicator's owner, and the account's "include in observations" option. */
async function requireObserver(ctx: RequestContext, record: IndicatorRecord) {
  const item = indicatorItem(ctx, record)
  await requirePermission(ctx, 'observe', item.membership)
  if (!ctx.caller.account.observationsEnabled) {
    throw forbidden('Your account is not set to be included in observations and false positives')
  }
  return item
}

/**
 * Reports `count` observations of the Indicator by the caller, at `dateObserved` (default now).
 * @example await addObservations(ctx, record, { count: 2 })
 */
export async function addObservations(
  ctx: RequestContext,
  record: IndicatorRecord,
  input: { count?: unknown; dateObserved?: unknown },
): Promise<void> {
  await requireObserver(ctx, record)
  const count = input.count === undefined || input.count === null ? 1 : Number(input.count)
  if (!Number.isInteger(count) || count < 1 || count > MAX_OBSERVATIONS)
    throw invalid(`count must be a whole number of at least 1, not '${String(input.count)}'`)
  let when = ctx.now
  if (input.dateObserved !== undefined && input.dateObserved !== null && input.dateObserved !== '') {
    const parsed = parseApiTime(input.dateObserved)
    if (!parsed) throw invalid(`dateObserved must be an ISO 8601 date or time, not '${String(input.dateObserved)}'`)
    when = parsed
  }
  await withTransactionDb(ctx, (db) => insertObservation(db, record.id, ctx.caller.account.id, count, when, ctx.now))
}

/** Observations per day (count, and the time of the day's last one), newest first. */
export async function listObservations(ctx: RequestContext, record: IndicatorRecord) {
  indicatorItem(ctx, record)
  const rows = await listObservationsByDay(ctx.store.db, record.id)
  return rows.map((r) => ({ count: Number(r.count), dateObserved: r.last }))
}

/** All observations, and those made by members of the caller's Organization ("your"). */
export async function getObservationCount(ctx: RequestContext, record: IndicatorRecord) {
  indicatorItem(ctx, record)
  const totals = await observationTotals(ctx.store.db, record.id, ctx.caller.account.organizationId)
  return {
    count: totals.count,
    lastObserved: totals.last,
    yourCount: totals.yourCount,
    yourLastObserved: totals.yourLast,
  }
}

/**
 * Reports the Indicator as a false positive; one report per user, Indicator and day (a
 * repeat on the same day changes nothing and still succeeds).
 */
export async function reportFalsePositive(
  ctx: RequestContext,
  record: IndicatorRecord,
): Promise<{ count: number; lastReported: string | null }> {
  await requireObserver(ctx, record)
  await withTransactionDb(ctx, (db) =>
    insertFalsePositive(db, record.id, ctx.caller.account.id, ctx.now.slice(0, 10), ctx.now),
  )
  const row = await findIndicatorRow(ctx.store.db, record.id)
  return { count: Number(row?.false_positive_count ?? 0), lastReported: row?.last_false_positive ?? null }
}

/**
 * The most-observed Indicators of ctx.owner since `dateObserved` (default: the start of
 * yesterday, UTC), at most the `observedIndicatorLimit` setting.
 */
export async function listMostObservedIndicators(ctx: RequestContext, options: { dateObserved?: string }) {
  let since: string
  if (options.dateObserved) {
    const parsed = parseApiTime(options.dateObserved)
    if (!parsed) throw invalid(`dateObserved must be a date (YYYY-MM-DD), not '${options.dateObserved}'`)
    since = parsed
  } else {
    since = `${new Date(Date.parse(ctx.now) - DAY_MS).toISOString().slice(0, 10)}T00:00:00.000Z`
  }
  const limit = Number(await ctx.services.settings.get('observedIndicatorLimit'))
  const rows = await listMostObserved(ctx.store.db, [ctx.owner.id], since, limit)
  return rows.map((r) => ({
    id: r.id,
    type: r.type,
    summary: r.summary,
    observationCount: r.total,
    lastObserved: r.last,
    userObservedList: r.users.map((u) => ({ userName: u.user_name, userLastObservedDate: u.last, count: u.total })),
  }))
}

/** The owners (among those the caller can read) that hold the same Indicator. */
export async function listIndicatorOwners(ctx: RequestContext, record: IndicatorRecord) {
  indicatorItem(ctx, record)
  const readable = readableOwners(ctx.caller)
  const copies = await findIndicatorsBySummary(ctx, record.type, record.summary, 'readable')
  const holding = new Set(copies.map((c) => c.ownerId))
  return readable
    .filter((m) => holding.has(m.ownerId))
    .map((m) => ({ id: m.ownerId, name: m.ownerName, type: m.ownerType }))
}

/**
 * The DNS resolutions recorded for a Host, newest first, grouped by resolution time: the Addresses it
 * resolved to that the caller can read. Bulwark runs no resolver; resolutions come from imports.
 */
export async function listHostDnsResolutions(ctx: RequestContext, record: IndicatorRecord) {
  indicatorItem(ctx, record)
  if (record.type !== 'Host') throw invalid(`DNS resolutions are kept for Hosts, not for ${record.type} Indicators`)
  const rows = await listDnsResolutionRows(ctx.store.db, [record.id])
  const addresses = new Map<number, IndicatorRecord | null>()
  for (const row of rows) {
    if (addresses.has(row.address_id)) continue
    addresses.set(row.address_id, await getIndicatorById(ctx, row.address_id).catch(() => null))
  }
  const byDate = new Map<string, IndicatorRecord[]>()
  for (const row of rows) {
    const address = addresses.get(row.address_id)
    if (!address) continue
    byDate.set(row.resolution_date, [...(byDate.get(row.resolution_date) ?? []), address])
  }
  return [...byDate].map(([resolutionDate, resolved]) => ({ resolutionDate, addresses: resolved }))
}

/**
 * Indicators deleted from ctx.owner within the retention window (setting
 * `indicatorDeleteRetentionDays`), optionally of one type and since a time.
 */
export async function listDeletedIndicators(
  ctx: RequestContext,
  query: { type?: string; deletedSince?: string; resultStart: number; resultLimit: number },
) {
  const def = query.type ? requireIndicatorType(query.type) : undefined
  const retentionDays = Number(await ctx.services.settings.get('indicatorDeleteRetentionDays'))
  const horizon = new Date(Date.parse(ctx.now) - retentionDays * DAY_MS).toISOString()
  let since = horizon
  if (query.deletedSince) {
    const parsed = parseApiTime(query.deletedSince)
    if (!parsed) throw invalid(`deletedSince must be an ISO 8601 date or time, not '${query.deletedSince}'`)
    if (parsed > since) since = parsed
  }
  await pruneDeletedIndicators(ctx.store.db, horizon)
  const { rows, total } = await listDeletedIndicatorRows(ctx.store.db, {
    ownerIds: [ctx.owner.id],
    type: def?.name,
    since,
    offset: query.resultStart,
    limit: query.resultLimit,
  })
  return {
    total,
    items: rows.map((r) => ({
      ownerName: r.owner_name,
      type: r.type,
      summary: r.summary,
      dateAdded: r.date_added,
      dateDeleted: r.date_deleted,
    })),
  }
}

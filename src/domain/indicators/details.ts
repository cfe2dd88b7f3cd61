/**
 * What the v3 view of Indicators can add on request (fields=): who tracked them, the DNS
 * resolutions of Hosts, a File's actions and occurrences, false positives reported by the
 * caller, and partners by custom association types. Each reads a whole page of Indicators at
 * once; partners in owners the caller may not read are left out.
 */
import { listPartners } from '../../store/repositories/association.repository.js'
import {
  listDnsResolutions,
  listFileActionsOf,
  listFileOccurrencesOf,
  listReportedByUser,
  listTrackedUsers,
} from '../../store/repositories/indicator-tracking.repository.js'
import { membershipFor } from '../access/owner-scope.js'
import type { RequestContext } from '../context.js'

function byKey<T>(rows: readonly T[], key: (row: T) => number): Map<number, T[]> {
  const map = new Map<number, T[]>()
  for (const row of rows) {
    const id = key(row)
    const list = map.get(id)
    if (list) list.push(row)
    else map.set(id, [row])
  }
  return map
}

export async function trackedUsersOf(ctx: RequestContext, ids: readonly number[]) {
  return byKey(await listTrackedUsers(ctx.store.db, ids), (r) => Number(r.indicator_id))
}

/** The Indicators among `ids` on which the caller itself reported a false positive. */
export function falsePositivesReportedByCaller(ctx: RequestContext, ids: readonly number[]): Promise<Set<number>> {
  return listReportedByUser(ctx.store.db, ids, ctx.caller.account.id)
}

export async function dnsResolutionsOf(ctx: RequestContext, hostIds: readonly number[]) {
  return byKey(await listDnsResolutions(ctx.store.db, hostIds), (r) => Number(r.host_id))
}

/** File actions whose target Indicator the caller may read. */
export async function fileActionsOf(ctx: RequestContext, fileIds: readonly number[]) {
  const rows = (await listFileActionsOf(ctx.store.db, fileIds)).filter((r) => membershipFor(ctx, r.owner_id))
  return byKey(rows, (r) => Number(r.indicator_id))
}

export async function fileOccurrencesOf(ctx: RequestContext, fileIds: readonly number[]) {
  return byKey(await listFileOccurrencesOf(ctx.store.db, fileIds), (r) => Number(r.indicator_id))
}

/** Indicator partners by a custom (typed) association, as ids per Indicator. */
export async function customAssociationPartnersOf(
  ctx: RequestContext,
  ids: readonly number[],
): Promise<Map<number, number[]>> {
  const typed = (await listPartners(ctx.store.db, 'indicator', ids, 'indicator')).filter(
    (r) => r.association_type_id !== 0,
  )
  return new Map(
    [...byKey(typed, (r) => Number(r.from_id))].map(([id, list]) => [id, list.map((r) => Number(r.to_id))]),
  )
}

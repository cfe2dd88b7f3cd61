/**
 * Owners as the caller sees them: the ones it can read, its Organization's members,
 * whoami and the per-owner metrics.
 */
import { listOwnerMembers } from '../../store/account.repository.js'
import { countOwnerContent } from '../../store/owner-metrics.repository.js'
import type { RequestContext } from '../context.js'
import { readableOwners } from './owner-scope.js'
import { notFound } from '../errors.js'

export interface OwnerView {
  id: number
  name: string
  type: string
}

export function listAccessibleOwners(ctx: RequestContext): OwnerView[] {
  return readableOwners(ctx.caller).map((m) => ({ id: m.ownerId, name: m.ownerName, type: m.ownerType }))
}

export function getAccessibleOwner(ctx: RequestContext, id: number): OwnerView {
  const owner = listAccessibleOwners(ctx).find((o) => o.id === id)
  if (!owner) throw notFound(`Owner ${id} not found`)
  return owner
}

/** The caller's own Organization. */
export function getMyOrganization(ctx: RequestContext): OwnerView {
  const org = listAccessibleOwners(ctx).find((o) => o.id === ctx.caller.account.organizationId)
  if (!org) throw notFound('Your Organization is not accessible')
  return org
}

export async function listMyOrganizationMembers(ctx: RequestContext) {
  const members = await listOwnerMembers(ctx.store.db, ctx.caller.account.organizationId)
  return members.filter((m) => m.kind === 'human' || m.kind === 'api').map((m) => ({
    userName: m.user_name, firstName: m.first_name ?? undefined, lastName: m.last_name ?? undefined, pseudonym: m.pseudonym ?? undefined,
    role: m.role,
  }))
}

export function whoami(ctx: RequestContext) {
  const a = ctx.caller.account
  return {
    userName: a.userName, firstName: a.firstName ?? undefined, lastName: a.lastName ?? undefined, pseudonym: a.pseudonym ?? undefined,
    role: a.systemRole, ownerRole: ctx.caller.memberships.find((m) => m.ownerId === a.organizationId)?.role,
    organization: getMyOrganization(ctx).name,
  }
}

const INDICATOR_TOTALS: Record<string, string> = { Host: 'totalHost', Address: 'totalAddress', EmailAddress: 'totalEmailAddress', File: 'totalFile', URL: 'totalUrl' }
const GROUP_TOTALS: Record<string, string> = { Threat: 'totalThreat', Incident: 'totalIncident', Email: 'totalEmail', Campaign: 'totalCampaign', Adversary: 'totalAdversary', Signature: 'totalSignature', Document: 'totalDocument' }

/**
 * Today's metrics row for each owner (the platform keeps one row a day; Bulwark computes
 * the current day's on request, so the figures are always live). Where the platform's fields name
 * features of its own, Bulwark counts its nearest equivalent (docs/decisions.md, "Owner metrics"):
 * a Track is a Host with DNS or WHOIS tracking on, a Result a DNS resolution recorded for the owner's
 * Hosts, an enriched Indicator an Address with location or ASN data.
 */
export async function ownerMetrics(ctx: RequestContext, ownerIds: number[]) {
  if (ownerIds.length === 0) return []
  const today = `${ctx.now.slice(0, 10)}T00:00:00Z`
  const { indicators, groups, tasks, tags, attributes, observations, falsePositives, groupIndicators, resolutions } =
    await countOwnerContent(ctx.store.db, ownerIds, ctx.now.slice(0, 10))
  return ownerIds.map((ownerId) => {
    const row: Record<string, number | string> = { ownerId, metricDate: today }
    let total = 0, ratingSum = 0, ratingN = 0, confSum = 0, confN = 0, obs = 0, fps = 0, tracked = 0, enriched = 0
    for (const key of Object.values(INDICATOR_TOTALS)) row[key] = 0
    for (const key of Object.values(INDICATOR_TOTALS)) row[key.replace('total', 'totalObservation')] = 0
    for (const r of indicators.filter((r) => r.owner_id === ownerId)) {
      const n = Number(r.n)
      total += n
      tracked += Number(r.tracked ?? 0)
      enriched += Number(r.enriched ?? 0)
      if (INDICATOR_TOTALS[r.type]) {
        row[INDICATOR_TOTALS[r.type]] = n
        row[INDICATOR_TOTALS[r.type].replace('total', 'totalObservation')] = Number(r.observations ?? 0)
      }
      if (r.rating !== null) { ratingSum += Number(r.rating) * n; ratingN += n }
      if (r.confidence !== null) { confSum += Number(r.confidence) * n; confN += n }
      obs += Number(r.observations ?? 0)
      fps += Number(r.false_positives ?? 0)
    }
    row.totalIndicator = total
    let groupTotal = 0
    for (const key of Object.values(GROUP_TOTALS)) row[key] = 0
    for (const r of groups.filter((r) => r.owner_id === ownerId)) {
      groupTotal += Number(r.n)
      if (GROUP_TOTALS[r.type]) row[GROUP_TOTALS[r.type]] = Number(r.n)
    }
    row.totalGroup = groupTotal
    row.totalTask = Number(tasks.find((r) => r.owner_id === ownerId)?.n ?? 0)
    row.totalTag = Number(tags.find((r) => r.owner_id === ownerId)?.n ?? 0)
    row.totalTrack = tracked
    row.totalResult = Number(resolutions.find((r) => r.owner_id === ownerId)?.n ?? 0)
    row.totalIndicatorAttribute = Number(attributes.find((r) => r.owner_id === ownerId && r.item_kind === 'indicator')?.n ?? 0)
    row.totalGroupAttribute = Number(attributes.find((r) => r.owner_id === ownerId && r.item_kind === 'group')?.n ?? 0)
    row.averageIndicatorRating = ratingN ? Math.round((ratingSum / ratingN) * 100) / 100 : 0
    row.averageIndicatorConfidence = confN ? Math.round((confSum / confN) * 100) / 100 : 0
    row.totalEnrichedIndicator = enriched
    row.totalGroupIndicator = Number(groupIndicators.find((r) => r.owner_id === ownerId)?.n ?? 0)
    row.totalObservationDaily = Number(observations.find((r) => r.owner_id === ownerId)?.n ?? 0)
    row.totalObservationIndicator = obs
    row.totalFalsePositiveDaily = Number(falsePositives.find((r) => r.owner_id === ownerId)?.n ?? 0)
    row.totalFalsePositive = fps
    return row
  })
}

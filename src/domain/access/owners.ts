/**
 * Owners as the caller sees them: the ones it can read, its Organization's members,
 * whoami and the per-owner metrics, as records; each protocol gives them its own shape.
 */
import { listOwnerMembers } from '../../store/repositories/account.repository.js'
import { countOwnerContent } from '../../store/repositories/owner-metrics.repository.js'
import type { RequestContext } from '../context.js'
import { readableOwners } from './owner-scope.js'
import { notFound } from '../../core/errors.js'

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

/** A member of the caller's Organization, or the caller itself (whoami). */
export interface Member {
  userName: string
  firstName: string | null
  lastName: string | null
  pseudonym: string | null
  /** The member's role in the Organization (the system role, for whoami). */
  role: string
}

export async function listMyOrganizationMembers(ctx: RequestContext): Promise<Member[]> {
  const members = await listOwnerMembers(ctx.store.db, ctx.caller.account.organizationId)
  return members
    .filter((m) => m.kind === 'human' || m.kind === 'api')
    .map((m) => ({
      userName: m.user_name,
      firstName: m.first_name,
      lastName: m.last_name,
      pseudonym: m.pseudonym,
      role: m.role,
    }))
}

export interface Whoami extends Member {
  /** The caller's role in its Organization. */
  ownerRole: string | undefined
  organization: string
}

export function whoami(ctx: RequestContext): Whoami {
  const a = ctx.caller.account
  return {
    userName: a.userName,
    firstName: a.firstName,
    lastName: a.lastName,
    pseudonym: a.pseudonym,
    role: a.systemRole,
    ownerRole: ctx.caller.memberships.find((m) => m.ownerId === a.organizationId)?.role,
    organization: getMyOrganization(ctx).name,
  }
}

/**
 * An owner's figures for the current day (the platform keeps one row a day; Bulwark computes
 * the current day's on request, so the figures are always live). Where the platform names
 * features of its own, Bulwark counts its nearest equivalent (docs/decisions.md, "Owner metrics").
 */
export interface OwnerMetrics {
  ownerId: number
  /** The day, as a time at midnight UTC. */
  day: string
  indicators: number
  /** Indicators and their observations (all days), by Indicator type. */
  indicatorsByType: Record<string, { count: number; observations: number }>
  groups: number
  groupsByType: Record<string, number>
  tasks: number
  tags: number
  /** Hosts with DNS or WHOIS tracking on. */
  tracked: number
  /** DNS resolutions recorded for the owner's Hosts. */
  resolutions: number
  indicatorAttributes: number
  groupAttributes: number
  averageRating: number
  averageConfidence: number
  /** Addresses with location or ASN data. */
  enriched: number
  /** Indicators associated with at least one Group. */
  indicatorsInGroups: number
  observationsToday: number
  observations: number
  falsePositivesToday: number
  falsePositives: number
}

const average = (sum: number, n: number) => (n ? Math.round((sum / n) * 100) / 100 : 0)

export async function ownerMetrics(ctx: RequestContext, ownerIds: number[]): Promise<OwnerMetrics[]> {
  if (ownerIds.length === 0) return []
  const day = `${ctx.now.slice(0, 10)}T00:00:00Z`
  const { indicators, groups, tasks, tags, attributes, observations, falsePositives, groupIndicators, resolutions } =
    await countOwnerContent(ctx.store.db, ownerIds, ctx.now.slice(0, 10))
  const countOf = (rows: { owner_id: number; n: number }[], ownerId: number) =>
    Number(rows.find((r) => r.owner_id === ownerId)?.n ?? 0)
  return ownerIds.map((ownerId) => {
    const indicatorsByType: OwnerMetrics['indicatorsByType'] = {}
    let total = 0,
      ratingSum = 0,
      ratingN = 0,
      confSum = 0,
      confN = 0,
      obs = 0,
      fps = 0,
      tracked = 0,
      enriched = 0
    for (const r of indicators.filter((r) => r.owner_id === ownerId)) {
      const n = Number(r.n)
      total += n
      tracked += Number(r.tracked ?? 0)
      enriched += Number(r.enriched ?? 0)
      indicatorsByType[r.type] = { count: n, observations: Number(r.observations ?? 0) }
      if (r.rating !== null) {
        ratingSum += Number(r.rating) * n
        ratingN += n
      }
      if (r.confidence !== null) {
        confSum += Number(r.confidence) * n
        confN += n
      }
      obs += Number(r.observations ?? 0)
      fps += Number(r.false_positives ?? 0)
    }
    const groupsByType: Record<string, number> = {}
    for (const r of groups.filter((r) => r.owner_id === ownerId)) groupsByType[r.type] = Number(r.n)
    const attributesOf = (kind: string) =>
      Number(attributes.find((r) => r.owner_id === ownerId && r.item_kind === kind)?.n ?? 0)
    return {
      ownerId,
      day,
      indicators: total,
      indicatorsByType,
      groups: Object.values(groupsByType).reduce((a, b) => a + b, 0),
      groupsByType,
      tasks: countOf(tasks, ownerId),
      tags: countOf(tags, ownerId),
      tracked,
      resolutions: countOf(resolutions, ownerId),
      indicatorAttributes: attributesOf('indicator'),
      groupAttributes: attributesOf('group'),
      averageRating: average(ratingSum, ratingN),
      averageConfidence: average(confSum, confN),
      enriched,
      indicatorsInGroups: countOf(groupIndicators, ownerId),
      observationsToday: countOf(observations, ownerId),
      observations: obs,
      falsePositivesToday: countOf(falsePositives, ownerId),
      falsePositives: fps,
    }
  })
}

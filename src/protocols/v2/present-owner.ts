/** v2 shapes of owners, members, whoami and owner metrics. */
import type { Member, OwnerMetrics, OwnerView, Whoami } from '../../domain/access/owners.js'

export function presentOwnerV2(owner: OwnerView) {
  return { id: owner.id, name: owner.name, type: owner.type }
}

/** Names the account does not have are left out. */
export function presentMemberV2(m: Member) {
  return {
    userName: m.userName,
    firstName: m.firstName ?? undefined,
    lastName: m.lastName ?? undefined,
    pseudonym: m.pseudonym ?? undefined,
    role: m.role,
  }
}

export function presentWhoamiV2(w: Whoami) {
  return { ...presentMemberV2(w), ownerRole: w.ownerRole, organization: w.organization }
}

// The platform's metric fields for the types it counts one by one, in its order.
const INDICATOR_FIELDS: [type: string, field: string][] = [
  ['Host', 'Host'],
  ['Address', 'Address'],
  ['EmailAddress', 'EmailAddress'],
  ['File', 'File'],
  ['URL', 'Url'],
]
const GROUP_FIELDS = ['Threat', 'Incident', 'Email', 'Campaign', 'Adversary', 'Signature', 'Document']

export function presentOwnerMetricV2(m: OwnerMetrics): Record<string, number | string> {
  const row: Record<string, number | string> = { ownerId: m.ownerId, metricDate: m.day }
  for (const [type, field] of INDICATOR_FIELDS) row[`total${field}`] = m.indicatorsByType[type]?.count ?? 0
  for (const [type, field] of INDICATOR_FIELDS)
    row[`totalObservation${field}`] = m.indicatorsByType[type]?.observations ?? 0
  row.totalIndicator = m.indicators
  for (const type of GROUP_FIELDS) row[`total${type}`] = m.groupsByType[type] ?? 0
  Object.assign(row, {
    totalGroup: m.groups,
    totalTask: m.tasks,
    totalTag: m.tags,
    totalTrack: m.tracked,
    totalResult: m.resolutions,
    totalIndicatorAttribute: m.indicatorAttributes,
    totalGroupAttribute: m.groupAttributes,
    averageIndicatorRating: m.averageRating,
    averageIndicatorConfidence: m.averageConfidence,
    totalEnrichedIndicator: m.enriched,
    totalGroupIndicator: m.indicatorsInGroups,
    totalObservationDaily: m.observationsToday,
    totalObservationIndicator: m.observations,
    totalFalsePositiveDaily: m.falsePositivesToday,
    totalFalsePositive: m.falsePositives,
  })
  return row
}

/**
 * The domain's view of one Indicator, independent of any API version. Times stay in the
 * stored form (ISO with milliseconds); presenters format them.
 */
import { type IndicatorTypeDef, findIndicatorType } from '../../model/indicator-types.js'
import type { IndicatorRow } from '../../store/indicator.repository.js'
import { invalid } from '../errors.js'

export interface IndicatorRecord {
  id: number
  ownerId: number
  ownerName: string
  ownerType: string
  /** Type name as the model spells it (`Address`, `Registry Key` …). */
  type: string
  summary: string
  /** Value fields in the type's order (value1..value3); null where unset. */
  values: (string | null)[]
  rating: number | null
  confidence: number | null
  description: string | null
  source: string | null
  privateFlag: boolean
  active: boolean
  activeLocked: boolean
  dnsActive: boolean
  whoisActive: boolean
  size: number | null
  threatAssessScore: number | null
  threatAssessRating: number | null
  threatAssessConfidence: number | null
  threatAssessScoreObserved: number | null
  threatAssessScoreFalsePositive: number | null
  calScore: number | null
  firstSeen: string | null
  lastSeen: string | null
  externalDateAdded: string | null
  externalLastModified: string | null
  externalDateExpires: string | null
  observationCount: number
  lastObserved: string | null
  falsePositiveCount: number
  lastFalsePositive: string | null
  address: {
    city: string | null
    countryCode: string | null
    countryName: string | null
    organization: string | null
    state: string | null
    timezone: string | null
    asn: number | null
  }
  createdBy: number | null
  dateAdded: string
  lastModified: string
}

export function toIndicatorRecord(row: IndicatorRow): IndicatorRecord {
  const def = findIndicatorType(row.type)
  const values = [row.value1, row.value2, row.value3].slice(0, def?.fields.length ?? 3)
  return {
    id: row.id, ownerId: row.owner_id, ownerName: row.owner_name, ownerType: row.owner_type, type: row.type, summary: row.summary, values,
    rating: row.rating === null ? null : Number(row.rating), confidence: row.confidence, description: row.description, source: row.source,
    privateFlag: !!row.private_flag, active: !!row.active, activeLocked: !!row.active_locked, dnsActive: !!row.dns_active,
    whoisActive: !!row.whois_active, size: row.size, threatAssessScore: row.threat_assess_score,
    threatAssessRating: row.threat_assess_rating, threatAssessConfidence: row.threat_assess_confidence,
    threatAssessScoreObserved: row.threat_assess_score_observed, threatAssessScoreFalsePositive: row.threat_assess_score_false_positive,
    calScore: row.cal_score, firstSeen: row.first_seen, lastSeen: row.last_seen, externalDateAdded: row.external_date_added,
    externalLastModified: row.external_last_modified, externalDateExpires: row.external_date_expires,
    observationCount: Number(row.observation_count), lastObserved: row.last_observed, falsePositiveCount: Number(row.false_positive_count),
    lastFalsePositive: row.last_false_positive,
    address: {
      city: row.address_city, countryCode: row.address_country_code, countryName: row.address_country_name,
      organization: row.address_organization, state: row.address_state, timezone: row.address_timezone, asn: row.address_asn,
    },
    createdBy: row.created_by, dateAdded: row.date_added, lastModified: row.last_modified,
  }
}

/** The type definition for a name, entity or API branch; unknown names are a 400 naming them. */
export function requireIndicatorType(nameOrBranch: string): IndicatorTypeDef {
  const def = findIndicatorType(nameOrBranch)
  if (!def) throw invalid(`Unknown Indicator type '${nameOrBranch}'`)
  return def
}

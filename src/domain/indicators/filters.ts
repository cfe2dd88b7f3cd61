/**
 * The Indicator list filters of the spec's v2 table, declared once: which column each
 * filter reads, the operators it allows and how its value is read. Adapters parse their own
 * syntax into { field, op, value } and call compileIndicatorFilter; nothing else maps
 * filter names to columns.
 */
import { findIndicatorType } from '../../model/indicator-types.js'
import type { IndicatorColumn, IndicatorCondition } from '../../store/indicator.repository.js'
import { invalid } from '../errors.js'
import { parseApiTime } from '../time.js'
import { readBoolean } from '../input.js'

export type IndicatorFilterOp = '=' | '<' | '>' | '^'
type ValueKind = 'boolean' | 'string' | 'date' | 'decimal' | 'integer'

interface IndicatorFilterDef {
  column: IndicatorColumn
  value: ValueKind
  ops: readonly IndicatorFilterOp[]
  /** The Indicator type the filter belongs to, for type-specific filters (Address data, Host flags). */
  indicatorType?: string
  /** modifiedSince: `=` means "on or after". */
  since?: boolean
}

export const INDICATOR_FILTERS: Readonly<Record<string, IndicatorFilterDef>> = {
  active: { column: 'active', value: 'boolean', ops: ['='] },
  summary: { column: 'summary', value: 'string', ops: ['=', '^'] },
  modifiedSince: { column: 'last_modified', value: 'date', ops: ['=', '^'], since: true },
  dateAdded: { column: 'date_added', value: 'date', ops: ['<', '>'] },
  rating: { column: 'rating', value: 'decimal', ops: ['<', '>'] },
  confidence: { column: 'confidence', value: 'integer', ops: ['=', '<', '>'] },
  threatAssessScore: { column: 'threat_assess_score', value: 'integer', ops: ['=', '<', '>'] },
  threatAssessRating: { column: 'threat_assess_rating', value: 'decimal', ops: ['<', '>'] },
  threatAssessConfidence: { column: 'threat_assess_confidence', value: 'decimal', ops: ['<', '>'] },
  falsePositive: { column: 'false_positive_count', value: 'integer', ops: ['=', '<', '>'] },
  city: { column: 'address_city', value: 'string', ops: ['='], indicatorType: 'Address' },
  countryCode: { column: 'address_country_code', value: 'string', ops: ['='], indicatorType: 'Address' },
  countryName: { column: 'address_country_name', value: 'string', ops: ['='], indicatorType: 'Address' },
  organization: { column: 'address_organization', value: 'string', ops: ['='], indicatorType: 'Address' },
  state: { column: 'address_state', value: 'string', ops: ['='], indicatorType: 'Address' },
  timezone: { column: 'address_timezone', value: 'string', ops: ['='], indicatorType: 'Address' },
  asn: { column: 'address_asn', value: 'integer', ops: ['='], indicatorType: 'Address' },
  whoisActive: { column: 'whois_active', value: 'boolean', ops: ['='], indicatorType: 'Host' },
  dnsActive: { column: 'dns_active', value: 'boolean', ops: ['='], indicatorType: 'Host' },
}

const byLowerName = new Map(Object.keys(INDICATOR_FILTERS).map((name) => [name.toLowerCase(), name]))

export interface IndicatorFilter {
  field: string
  op: string
  value: string
}

function readValue(name: string, kind: ValueKind, text: string): string | number {
  const t = text.trim()
  switch (kind) {
    case 'boolean':
      if (readBoolean(t) !== undefined) return readBoolean(t) ? 1 : 0
      throw invalid(`Filter ${name} takes true or false, not '${text}'`)
    case 'integer':
      if (/^-?\d+$/.test(t)) return Number(t)
      throw invalid(`Filter ${name} takes a whole number, not '${text}'`)
    case 'decimal':
      if (t !== '' && Number.isFinite(Number(t))) return Number(t)
      throw invalid(`Filter ${name} takes a number, not '${text}'`)
    case 'date': {
      const parsed = parseApiTime(t)
      if (!parsed) throw invalid(`Filter ${name} takes an ISO 8601 date or time, not '${text}'`)
      return parsed
    }
    default:
      return text
  }
}

/**
 * The canonical name of a filter field, or undefined when there is no such filter. tcex
 * qualifies some names (`host.dnsActive`, `address.countryCode`, `indicator.threatAssessScore`);
 * the qualifier must be `indicator` or the entity of the filter's own type.
 */
export function findIndicatorFilter(field: string): string | undefined {
  const text = field.trim().toLowerCase()
  const dot = text.indexOf('.')
  const name = byLowerName.get(dot < 0 ? text : text.slice(dot + 1))
  if (!name || dot < 0) return name
  const qualifier = text.slice(0, dot)
  const own = INDICATOR_FILTERS[name].indicatorType
  return qualifier === 'indicator' || (own !== undefined && findIndicatorType(qualifier)?.name === own) ? name : undefined
}

/**
 * Validates one filter expression and turns it into a storage condition. An unknown field,
 * an operator the field does not allow, or a value of the wrong kind is a 400 naming it.
 * @example compileIndicatorFilter({ field: 'rating', op: '>', value: '3' }) // { column: 'rating', op: '>', value: 3 }
 */
export function compileIndicatorFilter(filter: IndicatorFilter, scopeType?: string): IndicatorCondition {
  const name = findIndicatorFilter(filter.field)
  if (!name) throw invalid(`Unknown Indicator filter '${filter.field}'. Known filters: ${Object.keys(INDICATOR_FILTERS).join(', ')}`)
  const def = INDICATOR_FILTERS[name]
  if (!(def.ops as readonly string[]).includes(filter.op)) {
    throw invalid(`Filter ${name} does not take the operator '${filter.op}'; it takes ${def.ops.join(' ')}`)
  }
  if (def.indicatorType && scopeType && def.indicatorType !== scopeType) {
    throw invalid(`Filter ${name} applies to ${def.indicatorType} Indicators only`)
  }
  const op = filter.op as IndicatorFilterOp
  if (op === '^') return { column: def.column, op, value: filter.value }
  const value = readValue(name, def.value, filter.value)
  if (def.since) return { column: def.column, op: '>=', value }
  return { column: def.column, op, value }
}

/** True when any filter names `active`, which turns off the default of listing active Indicators only. */
export function mentionsActive(filters: readonly IndicatorFilter[]): boolean {
  return filters.some((f) => findIndicatorFilter(f.field) === 'active')
}

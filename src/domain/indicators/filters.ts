/**
 * The Indicator list filters of the spec's v2 table, declared once: which column each filter
 * reads, the operators it allows and how its value is read. listing/list-filters.ts builds the
 * conditions, as for every other list; what is Indicator-only is the naming (tcex qualifies
 * some names: `host.dnsActive`, `indicator.threatAssessScore`) and the filters of one type.
 */
import { findIndicatorType } from '../../model/indicator-types.js'
import type { IndicatorColumn, IndicatorCondition } from '../../store/repositories/indicator.repository.js'
import { type FieldFilter, type FilterSpec, type FilterTable, toConditions } from '../listing/list-filters.js'

export type IndicatorFilter = FieldFilter

interface IndicatorFilterSpec extends FilterSpec<IndicatorColumn> {
  /** The Indicator type the filter belongs to, for type-specific filters (Address data, Host flags). */
  indicatorType?: string
}

export const INDICATOR_FILTERS: Readonly<Record<string, IndicatorFilterSpec>> = {
  active: { column: 'active', kind: 'boolean', ops: ['='] },
  summary: { column: 'summary', kind: 'string', ops: ['=', '^'] },
  modifiedSince: { column: 'last_modified', kind: 'date', ops: ['=', '^'], since: true },
  dateAdded: { column: 'date_added', kind: 'date', ops: ['<', '>'] },
  rating: { column: 'rating', kind: 'decimal', ops: ['<', '>'] },
  confidence: { column: 'confidence', kind: 'integer', ops: ['=', '<', '>'] },
  threatAssessScore: { column: 'threat_assess_score', kind: 'integer', ops: ['=', '<', '>'] },
  threatAssessRating: { column: 'threat_assess_rating', kind: 'decimal', ops: ['<', '>'] },
  threatAssessConfidence: { column: 'threat_assess_confidence', kind: 'decimal', ops: ['<', '>'] },
  falsePositive: { column: 'false_positive_count', kind: 'integer', ops: ['=', '<', '>'] },
  city: { column: 'address_city', kind: 'string', ops: ['='], indicatorType: 'Address' },
  countryCode: { column: 'address_country_code', kind: 'string', ops: ['='], indicatorType: 'Address' },
  countryName: { column: 'address_country_name', kind: 'string', ops: ['='], indicatorType: 'Address' },
  organization: { column: 'address_organization', kind: 'string', ops: ['='], indicatorType: 'Address' },
  state: { column: 'address_state', kind: 'string', ops: ['='], indicatorType: 'Address' },
  timezone: { column: 'address_timezone', kind: 'string', ops: ['='], indicatorType: 'Address' },
  asn: { column: 'address_asn', kind: 'integer', ops: ['='], indicatorType: 'Address' },
  whoisActive: { column: 'whois_active', kind: 'boolean', ops: ['='], indicatorType: 'Host' },
  dnsActive: { column: 'dns_active', kind: 'boolean', ops: ['='], indicatorType: 'Host' },
}

const byLowerName = new Map(Object.keys(INDICATOR_FILTERS).map((name) => [name.toLowerCase(), name]))

/**
 * The canonical name of a filter field, or undefined when there is no such filter. The
 * qualifier must be `indicator` or the entity of the filter's own type.
 */
export function findIndicatorFilter(field: string): string | undefined {
  const text = field.trim().toLowerCase()
  const dot = text.indexOf('.')
  const name = byLowerName.get(dot < 0 ? text : text.slice(dot + 1))
  if (!name || dot < 0) return name
  const qualifier = text.slice(0, dot)
  const own = INDICATOR_FILTERS[name].indicatorType
  return qualifier === 'indicator' || (own !== undefined && findIndicatorType(qualifier)?.name === own)
    ? name
    : undefined
}

/** One table per scope type, made on first use: every Indicator list asks for one. */
const filterTables = new Map<string | undefined, FilterTable<IndicatorColumn>>()

function indicatorFilterTable(scopeType?: string): FilterTable<IndicatorColumn> {
  const known = filterTables.get(scopeType)
  if (known) return known
  const specs = Object.fromEntries(
    Object.entries(INDICATOR_FILTERS).map(([name, spec]) => [
      name,
      spec.indicatorType && scopeType && spec.indicatorType !== scopeType
        ? { ...spec, refusal: `Filter ${name} applies to ${spec.indicatorType} Indicators only` }
        : spec,
    ]),
  )
  const table: FilterTable<IndicatorColumn> = { resource: 'Indicators', specs, resolve: findIndicatorFilter }
  filterTables.set(scopeType, table)
  return table
}

/**
 * Validates filter expressions and turns them into storage conditions; `scopeType` refuses the
 * filters of other Indicator types.
 * @example compileIndicatorFilters([{ field: 'rating', op: '>', value: '3' }]) // [{ column: 'rating', op: '>', value: 3 }]
 */
export function compileIndicatorFilters(filters: readonly IndicatorFilter[], scopeType?: string): IndicatorCondition[] {
  return toConditions(indicatorFilterTable(scopeType), filters)
}

/** One expression: compileIndicatorFilters for a single filter. */
export function compileIndicatorFilter(filter: IndicatorFilter, scopeType?: string): IndicatorCondition {
  return compileIndicatorFilters([filter], scopeType)[0]!
}

/** True when any filter names `active`, which turns off the default of listing active Indicators only. */
export function mentionsActive(filters: readonly IndicatorFilter[]): boolean {
  return filters.some((f) => findIndicatorFilter(f.field) === 'active')
}

/**
 * The Indicator's v3 presenter writes its default fields as an object literal (it runs per record);
 * this holds the keys it writes against the declaration (model/indicator.ts): a key the presenter
 * starts writing without a declared field fails here.
 */
import { describe, expect, it } from 'vitest'
import type { RequestContext } from '../../domain/context.js'
import { toIndicatorRecord } from '../../domain/indicators/record.js'
import type { FieldDeclaration } from '../../model/field.js'
import { INDICATOR } from '../../model/indicator.js'
import { INDICATOR_TYPES } from '../../model/indicator-types.js'
import type { IndicatorRow } from '../../store/repositories/indicator.repository.js'
import { presentIndicatorV3 } from './present-indicator.js'

const ctx = { services: { publicUrl: 'https://bulwark.example' } } as unknown as RequestContext
const time = '2026-01-02T03:04:05.000Z'

function row(type: string, values: (string | null)[]): IndicatorRow {
  return {
    id: 1,
    owner_id: 2,
    owner_name: 'Org',
    owner_type: 'Organization',
    type,
    summary: values.filter(Boolean).join(' : '),
    value1: values[0] ?? null,
    value2: values[1] ?? null,
    value3: values[2] ?? null,
    rating: 2.5,
    confidence: 3,
    description: 'd',
    source: 's',
    private_flag: 0,
    active: 1,
    active_locked: 0,
    dns_active: 1,
    whois_active: 1,
    size: 4,
    threat_assess_score: 5,
    threat_assess_rating: 1.5,
    threat_assess_confidence: 50.5,
    threat_assess_score_observed: 6,
    threat_assess_score_false_positive: 7,
    cal_score: 8,
    first_seen: time,
    last_seen: time,
    external_date_added: time,
    external_last_modified: time,
    external_date_expires: time,
    observation_count: 9,
    last_observed: time,
    false_positive_count: 10,
    last_false_positive: time,
    address_city: 'c',
    address_country_code: 'cc',
    address_country_name: 'cn',
    address_organization: 'ao',
    address_state: 'as',
    address_timezone: 'at',
    address_asn: 11,
    created_by: 12,
    date_added: time,
    last_modified: time,
  } as unknown as IndicatorRow
}

/** Every fields= option the presenter itself answers (the others load their data elsewhere). */
const OPTIONS = ['threatAssess', 'observations', 'sightings', 'externalDates', 'geoLocation']

/** Keys that are not one declared field but a view over several, each with the reason. */
const COMPOSED: Record<string, string> = {
  svcScore: 'threatAssess: the CAL score, else the ThreatAssess score (present-indicator.ts)',
  geoLocation: 'an object of the declared Address fields shown with geoLocation',
}

describe('the v3 Indicator presenter against the declaration', () => {
  // The value fields are the ten types' own (model/indicator-types.ts): `Key Name` of a Registry Key, `ip` of an Address.
  const declared = new Set([
    ...(INDICATOR.fields as readonly FieldDeclaration[]).flatMap((f) => [
      f.name,
      ...(f.v3 && f.v3.name ? [f.v3.name] : []),
    ]),
    ...INDICATOR_TYPES.flatMap((t) => t.fields.map((f) => f.name)),
  ])

  it.each([
    ['Address', ['192.0.2.1']],
    ['Host', ['evil.example']],
    ['File', ['0'.repeat(32), '1'.repeat(40), '2'.repeat(64)]],
    ['Registry Key', ['HKEY_LOCAL_MACHINE\\Run', 'x', 'REG_SZ']],
  ] as const)('writes only declared fields for a %s', (type, values) => {
    const fields = new Map(OPTIONS.map((o) => [o, new Map()]))
    const answer = presentIndicatorV3(toIndicatorRecord(row(type, [...values])), { ctx, fields })
    const undeclared = Object.keys(answer).filter((key) => !declared.has(key) && !(key in COMPOSED))
    expect(undeclared).toEqual([])
    expect(Object.keys(answer).length).toBeGreaterThan(20)
  })
})

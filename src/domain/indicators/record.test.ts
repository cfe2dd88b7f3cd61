/** The row → record literal is compiled from the declaration (record.ts): every column lands where the record type says. */
import { describe, expect, it } from 'vitest'
import type { IndicatorRow } from '../../store/repositories/indicator.repository.js'
import { toIndicatorRecord } from './record.js'

const row = {
  id: 1, owner_id: 2, owner_name: 'Org', owner_type: 'Organization', type: 'File', summary: 'A : C', value1: 'A', value2: null, value3: 'C',
  rating: 2.5, confidence: 3, description: 'd', source: 's', private_flag: 1, active: 0, active_locked: 1, dns_active: 0, whois_active: 1, size: 4,
  threat_assess_score: 5, threat_assess_rating: 1.5, threat_assess_confidence: 50.5, threat_assess_score_observed: 6,
  threat_assess_score_false_positive: 7, cal_score: 8, first_seen: 'fs', last_seen: 'ls', external_date_added: 'ea', external_last_modified: 'em',
  external_date_expires: 'ee', observation_count: 9, last_observed: 'lo', false_positive_count: 10, last_false_positive: 'lf',
  address_city: 'c', address_country_code: 'cc', address_country_name: 'cn', address_organization: 'ao', address_state: 'as',
  address_timezone: 'at', address_asn: 11, created_by: 12, date_added: 'da', last_modified: 'lm',
} as unknown as IndicatorRow

describe('toIndicatorRecord', () => {
  it('maps every column of the row', () => {
    expect(toIndicatorRecord(row)).toStrictEqual({
      id: 1, ownerId: 2, ownerName: 'Org', ownerType: 'Organization', type: 'File', summary: 'A : C', values: ['A', null, 'C'],
      rating: 2.5, confidence: 3, description: 'd', source: 's', privateFlag: true, active: false, activeLocked: true, dnsActive: false,
      whoisActive: true, size: 4, threatAssessScore: 5, threatAssessRating: 1.5, threatAssessConfidence: 50.5, threatAssessScoreObserved: 6,
      threatAssessScoreFalsePositive: 7, calScore: 8, firstSeen: 'fs', lastSeen: 'ls', externalDateAdded: 'ea', externalLastModified: 'em',
      externalDateExpires: 'ee', observationCount: 9, lastObserved: 'lo', falsePositiveCount: 10, lastFalsePositive: 'lf',
      address: { city: 'c', countryCode: 'cc', countryName: 'cn', organization: 'ao', state: 'as', timezone: 'at', asn: 11 },
      createdBy: 12, dateAdded: 'da', lastModified: 'lm',
    })
  })

  it('keeps a null rating null and cuts the values to the type', () => {
    const record = toIndicatorRecord({ ...row, type: 'Host', summary: 'a.example', value1: 'a.example', rating: null } as IndicatorRow)
    expect([record.rating, record.values]).toEqual([null, ['a.example']])
  })
})

/** TQL keywords of /v3/indicators. */
import { expressionBuilder, sql } from 'kysely'
import { findIndicatorType } from '../../model/indicator-types.js'
import { type ObjectTypeDef, column, computed, kw } from './define.js'
import {
  associationKeywords, associationSourceKeywords, attributeKeywords, dateKeywords, labelKeywords, ownerKeywords, tagKeywords,
} from './shared.js'

const eb = expressionBuilder<any, any>()
const canonicalType = (value: string) => findIndicatorType(value)?.name ?? value

export const INDICATOR_KEYWORDS: ObjectTypeDef = {
  name: 'indicators',
  table: 'indicator',
  kind: 'indicator',
  keywords: [
    kw('id', 'ID', 'Integer', column('id'), 'The ID of the indicator.'),
    ...ownerKeywords('indicator'),
    kw('typeName', 'Type Name', 'String', column('type'), 'The indicator type (Address, Host, Registry Key …).', { groupable: true, normalize: canonicalType }),
    kw('type', 'Type', 'String', column('type'), 'The indicator type; the same as typeName.', { groupable: true, normalize: canonicalType }),
    kw('summary', 'Summary', 'StringLower', column('summary'), 'The indicator value (compared case-insensitively).'),
    kw('value1', 'Value 1', 'String', column('value1'), 'The first value field of the indicator.'),
    kw('value2', 'Value 2', 'String', column('value2'), 'The second value field of the indicator.'),
    kw('value3', 'Value 3', 'String', column('value3'), 'The third value field of the indicator.'),
    kw('description', 'Description', 'String', column('description'), 'The default description of the indicator.'),
    kw('source', 'Source', 'String', column('source'), 'The default source of the indicator.'),
    kw('rating', 'Threat Rating', 'Integer', column('rating'), 'The threat rating of the indicator (0-5).'),
    kw('confidence', 'Confidence Rating', 'Integer', column('confidence'), "The confidence in the indicator's rating (0-100)."),
    kw('threatAssessScore', 'ThreatAssess Score', 'Integer', column('threat_assess_score'), 'The ThreatAssess score of the indicator.'),
    kw('calScore', 'CAL Score', 'Integer', column('cal_score'), 'The CAL score of the indicator.'),
    kw('indicatorActive', 'Indicator Status', 'Boolean', column('active'), 'Whether the indicator is active.'),
    kw('activeLocked', 'Indicator Status Locked', 'Boolean', column('active_locked'), 'Whether the active status is locked.'),
    ...dateKeywords([
      ['dateAdded', 'Date Added', 'date_added', 'The date the indicator was added.'],
      ['lastModified', 'Last Modified', 'last_modified', 'The date the indicator was last modified.'],
      ['firstSeen', 'First Seen', 'first_seen', 'The date the indicator was first seen.'],
      ['lastSeen', 'Last Seen', 'last_seen', 'The date the indicator was last seen.'],
      ['externalDateAdded', 'External Date Added', 'external_date_added', 'The date the indicator was created externally.'],
      ['externalDateExpires', 'External Date Expires', 'external_date_expires', 'The date the indicator expires externally.'],
      ['externalLastModified', 'External Last Modified', 'external_last_modified', 'The date the indicator was modified externally.'],
      ['lastObserved', 'Last Observed', 'last_observed', 'The date the indicator was last observed.'],
      ['lastFalsePositive', 'False Positive Last Observed', 'last_false_positive', 'The date the indicator was last reported as a false positive.'],
    ]),
    kw('observationCount', 'Observation Count', 'Integer', column('observation_count'), 'The number of times the indicator was observed.'),
    kw('falsePositiveCount', 'False Positive Count', 'Integer', column('false_positive_count'), 'The number of false positive reports.'),
    kw('addressCity', 'City (Address)', 'String', column('address_city'), 'The city an address is registered to.'),
    kw('addressCountryCode', 'Country Code (Address)', 'String', column('address_country_code'), 'The country code of an address.'),
    kw('addressCountryName', 'Country Name (Address)', 'String', column('address_country_name'), 'The country name of an address.'),
    kw('addressRegisteringOrg', 'Registering Org (Address)', 'String', column('address_organization'), 'The registering organization of an address.'),
    kw('addressState', 'State (Address)', 'String', column('address_state'), 'The state an address is registered to.'),
    kw('addressTimezone', 'Time Zone (Address)', 'String', column('address_timezone'), 'The time zone of an address.'),
    kw('addressAsn', 'ASN (Address)', 'Integer', column('address_asn'), 'The autonomous system number of an address.'),
    kw('addressIsIpv6', 'Type (Address)', 'Boolean', computed((alias) => eb.case()
      .when(eb.and([eb(`${alias}.type`, '=', sql.lit('Address')), eb(`${alias}.summary`, 'like', sql.lit('%:%'))])).then(eb.lit(1))
      .when(`${alias}.type`, '=', sql.lit('Address')).then(eb.lit(0)).end()), 'Whether an address is IPv6.'),
    kw('hostDnsActive', 'DNS Active (Host)', 'Boolean', column('dns_active'), 'Whether DNS resolution tracking is on for a host.'),
    kw('hostWhoisActive', 'Whois Active (Host)', 'Boolean', column('whois_active'), 'Whether Whois tracking is on for a host.'),
    kw('fileSize', 'Size (File)', 'Integer', column('size'), 'The size of a file in bytes.'),
    ...tagKeywords('indicator', 'indicator'),
    ...labelKeywords('indicator', 'indicator'),
    ...attributeKeywords('indicator', 'indicatorAttributes'),
    ...associationKeywords('indicator', ['group', 'indicator', 'case', 'artifact', 'victim', 'victimAsset', 'intelRequirement']),
    ...associationSourceKeywords('indicator'),
    kw('hasCustomAssociation', 'Custom Association', 'Integer', {
      kind: 'related', link: { via: 'association', from: 'indicator', to: 'indicator', customOnly: true }, table: 'indicator', source: { column: 'id' },
    }, 'The ID of an indicator associated through a custom association type.'),
  ],
}

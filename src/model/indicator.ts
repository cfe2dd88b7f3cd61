/**
 * An Indicator's fields, each spelled once (model/field.ts): the v3 body fields and fields=
 * options, the TQL keywords of /v3/indicators, the v2 body schema, the domain's record, the
 * input readers and the row writer are derived from this list. The ten types and their value
 * fields are in indicator-types.ts; the value fields listed here are the v3 body's names of the
 * built-in types' values (v2 takes every type's value fields from that table).
 *
 * The fields are in the order OPTIONS /v3/indicators has always documented them in (the body
 * fields, then those shown only in answers); `tqlKeywordOrder` keeps the keywords' own order.
 */
import { defineKind } from './field.js'
import { INDICATOR_TYPES, findIndicatorType } from './indicator-types.js'

const canonicalType = (value: string) => findIndicatorType(value)?.name ?? value

const value = (name: string, description: string, write: 'create' | 'always' = 'create') =>
  ({ name, type: 'text', description, write, v2: false, record: false }) as const
const custom = (n: 1 | 2 | 3, ordinal: string) => ({
  name: `value${n}`, column: `value${n}`, type: 'text', write: 'create', v2: false, record: false, stix21: 'pattern', stix1: 'Observable',
  description: `The ${ordinal} value of a custom Indicator type`,
  tql: { name: `Value ${n}`, description: `The ${ordinal} value field of the indicator.`, type: 'String' },
}) as const
const list = (name: string, v3Type: string, description: string) =>
  ({ name, type: 'object', description, v3: { type: v3Type, list: true }, v2: false, record: false }) as const
/** A value kept with the Indicator that v3 shows only with a fields= option. */
const shown = (option: string, name?: string) => ({ option, body: false, ...(name ? { name } : {}) }) as const

export const INDICATOR = defineKind({
  kind: 'indicator',
  table: 'indicator',
  word: 'Indicator',
  fields: [
    // v2 takes the type from the path (/v2/indicators/hosts), not from the body.
    { name: 'type', column: 'type', notNull: true, type: 'text', description: 'The Indicator type', required: true, write: 'create', v2: { body: false },
      values: INDICATOR_TYPES.map((t) => t.name), stix21: 'x_svc_type', stix1: 'Type',
      tql: [
        { keyword: 'typeName', name: 'Type Name', type: 'String', description: 'The indicator type (Address, Host, Registry Key …).', groupable: true, normalize: canonicalType },
        { name: 'Type', type: 'String', description: 'The indicator type; the same as typeName.', groupable: true, normalize: canonicalType },
      ] },
    value('ip', 'The IP address (Address)'),
    value('address', 'The email address (EmailAddress)'),
    value('hostName', 'The host name (Host)'),
    value('text', 'The URL (URL)'),
    value('md5', 'The MD5 hash (File; a File may gain hashes it lacks on update)', 'always'),
    value('sha1', 'The SHA-1 hash (File)', 'always'),
    value('sha256', 'The SHA-256 hash (File)', 'always'),
    custom(1, 'first'),
    custom(2, 'second'),
    custom(3, 'third'),
    { name: 'size', column: 'size', type: 'integer', description: 'The size of a File', onlyTypes: ['File'], range: [0, Number.MAX_SAFE_INTEGER],
      tql: { keyword: 'fileSize', name: 'Size (File)', description: 'The size of a file in bytes.' } },
    { name: 'intelType', type: 'text', description: 'The intel type of a File (accepted and not kept)', onlyTypes: ['File'], v3: false, record: false },
    { name: 'rating', column: 'rating', type: 'decimal', description: 'The threat rating, 0 to 5', range: [0, 5], v3: { type: 'BigDecimal' },
      stix21: 'x_threat_rating',
      tql: { name: 'Threat Rating', type: 'Integer', description: 'The threat rating of the indicator (0-5).' } },
    { name: 'confidence', column: 'confidence', type: 'integer', description: 'The confidence, 0 to 100', range: [0, 100],
      stix21: 'confidence', stix1: 'Confidence',
      tql: { name: 'Confidence Rating', description: "The confidence in the indicator's rating (0-100)." } },
    { name: 'description', column: 'description', type: 'text', description: 'A description of the Indicator', stix21: 'description', stix1: 'Description',
      tql: { name: 'Description', description: 'The default description of the indicator.' } },
    { name: 'source', column: 'source', type: 'text', description: 'Where the Indicator came from',
      tql: { name: 'Source', description: 'The default source of the indicator.' } },
    { name: 'privateFlag', column: 'private_flag', type: 'boolean', description: 'Whether the Indicator is private', default: false },
    // An inactive Indicator is no longer valid: STIX says so with valid_until (its last change) when it has no expiry.
    { name: 'active', column: 'active', type: 'boolean', description: 'Whether the Indicator is active', default: true, stix21: 'valid_until',
      tql: { keyword: 'indicatorActive', name: 'Indicator Status', description: 'Whether the indicator is active.' } },
    { name: 'activeLocked', column: 'active_locked', type: 'boolean', description: 'Whether the active flag is locked', default: false,
      tql: { name: 'Indicator Status Locked', description: 'Whether the active status is locked.' } },
    { name: 'dnsActive', column: 'dns_active', type: 'boolean', description: 'Whether DNS tracking is on (Host)', onlyTypes: ['Host'], default: false,
      tql: { keyword: 'hostDnsActive', name: 'DNS Active (Host)', description: 'Whether DNS resolution tracking is on for a host.' } },
    { name: 'whoisActive', column: 'whois_active', type: 'boolean', description: 'Whether WHOIS tracking is on (Host)', onlyTypes: ['Host'], default: false,
      tql: { keyword: 'hostWhoisActive', name: 'Whois Active (Host)', description: 'Whether Whois tracking is on for a host.' } },
    { name: 'firstSeen', column: 'first_seen', type: 'date', description: 'When the Indicator was first seen', v3: { option: 'sightings' },
      tql: { name: 'First Seen', description: 'The date the indicator was first seen.' } },
    { name: 'lastSeen', column: 'last_seen', type: 'date', description: 'When the Indicator was last seen', v3: { option: 'sightings' },
      tql: { name: 'Last Seen', description: 'The date the indicator was last seen.' } },
    { name: 'externalDateAdded', column: 'external_date_added', type: 'date', description: 'When the Indicator was added in its external source',
      v3: { option: 'externalDates' }, tql: { name: 'External Date Added', description: 'The date the indicator was created externally.' } },
    { name: 'externalLastModified', column: 'external_last_modified', type: 'date', description: 'When the Indicator was last changed in its external source',
      v3: { option: 'externalDates' }, tql: { name: 'External Last Modified', description: 'The date the indicator was modified externally.' } },
    { name: 'externalDateExpires', column: 'external_date_expires', type: 'date', description: 'When the Indicator expires in its external source',
      v3: { option: 'externalDates' }, stix21: 'valid_until', stix1: 'Valid_Time_Position/End_Time',
      tql: { name: 'External Date Expires', description: 'The date the indicator expires externally.' } },
    { name: 'falsePositiveFlag', type: 'boolean', description: 'true reports the Indicator as a false positive (once per user and day)', v2: false, record: false },
    { name: 'observations', type: 'integer', description: 'Records this many observations of the Indicator by you', v2: false, record: false },
    { name: 'ownerId', column: 'owner_id', notNull: true, type: 'integer', write: 'create', v2: false, stix21: 'x_svc_owner', stix1: 'Producer',
      description: 'The owner to create the Indicator in (default: the owner= parameter, else your Organization)' },
    { name: 'ownerName', type: 'text', description: 'The owner to create the Indicator in, by name', write: 'create', v2: false },
    list('tags', 'Tag', 'Tags applied to the Indicator ({data: [{name}], mode: append|replace|delete})'),
    list('securityLabels', 'SecurityLabel', 'Security labels applied to the Indicator'),
    list('attributes', 'IndicatorAttribute', 'Attributes of the Indicator'),
    list('associatedArtifacts', 'Artifact', 'Artifacts associated with the Indicator'),
    list('associatedCases', 'Case', 'Cases associated with the Indicator'),
    list('associatedGroups', 'Group', 'Groups associated with the Indicator (new ones need name and type)'),
    list('associatedIndicators', 'Indicator', 'Indicators associated with the Indicator (existing ones by id, or by type and value)'),
    { name: 'id', column: 'id', notNull: true, type: 'integer', description: 'The ID of the Indicator', write: 'never', stix21: 'x_svc_id', stix1: 'id',
      tql: { name: 'ID', description: 'The ID of the indicator.' } },
    { name: 'summary', column: 'summary', notNull: true, type: 'text', description: 'The Indicator value as one string', write: 'never', stix21: 'name', stix1: 'Title',
      tql: { name: 'Summary', type: 'StringLower', description: 'The indicator value (compared case-insensitively).' } },
    { name: 'dateAdded', column: 'date_added', notNull: true, type: 'date', description: 'When the Indicator was created', write: 'never',
      stix21: 'created', stix1: 'Valid_Time_Position/Start_Time',
      tql: { name: 'Date Added', description: 'The date the indicator was added.' } },
    { name: 'lastModified', column: 'last_modified', notNull: true, type: 'date', description: 'When the Indicator was last changed', write: 'never',
      stix21: 'modified', stix1: 'timestamp',
      tql: { name: 'Last Modified', description: 'The date the indicator was last modified.' } },
    { name: 'webLink', type: 'text', description: "Link to the Indicator's details page", write: 'never', v2: false, record: false },
    { name: 'legacyLink', type: 'text', description: "Link to the Indicator's page in the legacy form", write: 'never', v2: false, record: false },

    { name: 'threatAssessRating', column: 'threat_assess_rating', type: 'decimal', description: 'The ThreatAssess rating', write: 'never',
      v3: shown('threatAssess') },
    { name: 'threatAssessScore', column: 'threat_assess_score', type: 'integer', description: 'The ThreatAssess score', write: 'never',
      v3: shown('threatAssess'), tql: { name: 'ThreatAssess Score', description: 'The ThreatAssess score of the indicator.' } },
    { name: 'threatAssessConfidence', column: 'threat_assess_confidence', type: 'decimal', description: 'The ThreatAssess confidence', write: 'never',
      v3: shown('threatAssess') },
    { name: 'threatAssessScoreObserved', column: 'threat_assess_score_observed', type: 'integer', write: 'never', v2: false,
      description: 'The part of the ThreatAssess score that observations make', v3: shown('threatAssess') },
    { name: 'threatAssessScoreFalsePositive', column: 'threat_assess_score_false_positive', type: 'integer', write: 'never', v2: false,
      description: 'The part of the ThreatAssess score that false positives take away', v3: shown('threatAssess') },
    // v3 shows it as threatAssess's svcScore, falling back on the ThreatAssess score (present-indicator.ts).
    { name: 'calScore', column: 'cal_score', type: 'integer', description: 'The CAL score', write: 'never', v3: { body: false },
      tql: { name: 'CAL Score', description: 'The CAL score of the indicator.' } },
    { name: 'observationCount', column: 'observation_count', type: 'integer', description: 'How many times the Indicator was observed',
      write: 'never', default: 0, v3: shown('observations', 'observations'),
      tql: { name: 'Observation Count', description: 'The number of times the indicator was observed.' } },
    { name: 'lastObserved', column: 'last_observed', type: 'date', description: 'When the Indicator was last observed', write: 'never',
      v3: shown('observations'), tql: { name: 'Last Observed', description: 'The date the indicator was last observed.' } },
    // fields=falsePositives loads these with what the caller reported (v3-indicator-options.ts).
    { name: 'falsePositiveCount', column: 'false_positive_count', type: 'integer', description: 'How many false positives were reported',
      write: 'never', default: 0, v3: { body: false, name: 'falsePositives' },
      tql: { name: 'False Positive Count', description: 'The number of false positive reports.' } },
    { name: 'lastFalsePositive', column: 'last_false_positive', type: 'date', description: 'When the last false positive was reported',
      write: 'never', v3: { body: false }, v2: { name: 'falsePositiveLastReported' },
      tql: { name: 'False Positive Last Observed', description: 'The date the indicator was last reported as a false positive.' } },

    { name: 'addressCity', column: 'address_city', type: 'text', description: 'The city an Address is registered to', write: 'never',
      record: 'address.city', v3: shown('geoLocation', 'city'), v2: false,
      tql: { name: 'City (Address)', description: 'The city an address is registered to.' } },
    { name: 'addressCountryCode', column: 'address_country_code', type: 'text', description: 'The country code of an Address', write: 'never',
      record: 'address.countryCode', v3: shown('geoLocation', 'countryCode'), v2: false,
      tql: { name: 'Country Code (Address)', description: 'The country code of an address.' } },
    { name: 'addressCountryName', column: 'address_country_name', type: 'text', description: 'The country name of an Address', write: 'never',
      record: 'address.countryName', v3: shown('geoLocation', 'countryName'), v2: false,
      tql: { name: 'Country Name (Address)', description: 'The country name of an address.' } },
    { name: 'addressState', column: 'address_state', type: 'text', description: 'The state an Address is registered to', write: 'never',
      record: 'address.state', v3: shown('geoLocation', 'state'), v2: false,
      tql: { name: 'State (Address)', description: 'The state an address is registered to.' } },
    { name: 'addressTimezone', column: 'address_timezone', type: 'text', description: 'The time zone of an Address', write: 'never',
      record: 'address.timezone', v3: shown('geoLocation', 'timezone'), v2: false,
      tql: { name: 'Time Zone (Address)', description: 'The time zone of an address.' } },
    { name: 'addressRegisteringOrg', column: 'address_organization', type: 'text', description: 'The registering organization of an Address',
      write: 'never', record: 'address.organization', v3: shown('geoLocation', 'organization'), v2: false,
      tql: { name: 'Registering Org (Address)', description: 'The registering organization of an address.' } },
    { name: 'addressAsn', column: 'address_asn', type: 'integer', description: 'The autonomous system number of an Address', write: 'never',
      record: 'address.asn', v3: shown('geoLocation', 'asn'), v2: false,
      tql: { name: 'ASN (Address)', description: 'The autonomous system number of an address.' } },
    { name: 'createdBy', column: 'created_by', type: 'user', description: 'The user who created the Indicator', write: 'never', v3: false, v2: false },
  ],
  tqlKeywordOrder: [
    'id', 'typeName', 'type', 'summary', 'value1', 'value2', 'value3', 'description', 'source', 'rating', 'confidence', 'threatAssessScore',
    'calScore', 'indicatorActive', 'activeLocked', 'dateAdded', 'lastModified', 'firstSeen', 'lastSeen', 'externalDateAdded',
    'externalDateExpires', 'externalLastModified', 'lastObserved', 'lastFalsePositive', 'observationCount', 'falsePositiveCount',
    'addressCity', 'addressCountryCode', 'addressCountryName', 'addressRegisteringOrg', 'addressState', 'addressTimezone', 'addressAsn',
    'hostDnsActive', 'hostWhoisActive', 'fileSize',
  ],
})

/**
 * Columns of the indicator table that no field declares: kept up to date by the writers and read
 * by no interface. A column added to the table is either declared above or listed here, or
 * store/declared-columns.test.ts fails.
 */
export const INDICATOR_INTERNAL_COLUMNS = [] as const

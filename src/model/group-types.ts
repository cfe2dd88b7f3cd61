/**
 * Group types (the spec's ten and the six the platform added since), with the fields each
 * may carry and the ones it requires. Victim Asset and Adversary Asset types live here too.
 */

export interface GroupFieldRule {
  /** JSON name in v2/v3 bodies. */
  name: string
  /** Column in intel_group. */
  column: string
  kind: 'text' | 'date' | 'boolean' | 'integer'
  requiredOnCreate?: boolean
  requiredOnUpdate?: boolean
  values?: readonly string[]
}

export interface GroupTypeDef {
  name: string
  apiBranch: string
  apiEntity: string
  fields: readonly GroupFieldRule[]
  /** Newer types are not in the spec's v2 table; they share the common rules. */
  since?: string
}

export const INCIDENT_STATUSES = ['New', 'Open', 'Stalled', 'Containment Achieved', 'Restoration Achieved', 'Incident Reported',
  'Closed', 'Rejected', 'Deleted'] as const
export const EVENT_STATUSES = ['Needs Review', 'False Positive', 'No Further Action', 'Escalated'] as const
export const DOCUMENT_STATUSES = ['Success', 'Awaiting Upload', 'In Progress', 'Failed', 'None'] as const
export const SIGNATURE_FILE_TYPES = ['Bro', 'ClamAV', 'CybOX', 'Iris Search Hash', 'KQL', 'OpenIOC', 'Regex', 'Splunk SPL',
  'Sigma', 'Snort', 'Suricata', 'TQL Query', 'YARA'] as const

const name: GroupFieldRule = { name: 'name', column: 'name', kind: 'text', requiredOnCreate: true }
const firstSeen: GroupFieldRule = { name: 'firstSeen', column: 'first_seen', kind: 'date' }
const eventDate: GroupFieldRule = { name: 'eventDate', column: 'event_date', kind: 'date', requiredOnCreate: true }
const fileName: GroupFieldRule = { name: 'fileName', column: 'file_name', kind: 'text', requiredOnCreate: true }

/**
 * Dates every Group type may carry besides its own fields (the platform's `sightings` and
 * `externalDates`); a type that lists one itself (Campaign's firstSeen) keeps its own rule.
 */
export const COMMON_GROUP_DATES: readonly GroupFieldRule[] = [
  { name: 'firstSeen', column: 'first_seen', kind: 'date' },
  { name: 'lastSeen', column: 'last_seen', kind: 'date' },
  { name: 'externalDateAdded', column: 'external_date_added', kind: 'date' },
  { name: 'externalLastModified', column: 'external_last_modified', kind: 'date' },
  { name: 'externalDateExpires', column: 'external_date_expires', kind: 'date' },
]

export const GROUP_TYPES: readonly GroupTypeDef[] = [
  { name: 'Adversary', apiBranch: 'adversaries', apiEntity: 'adversary', fields: [name] },
  { name: 'Campaign', apiBranch: 'campaigns', apiEntity: 'campaign', fields: [name, firstSeen] },
  {
    name: 'Document', apiBranch: 'documents', apiEntity: 'document', fields: [name, fileName,
      { name: 'malware', column: 'malware', kind: 'boolean' }, { name: 'password', column: 'password', kind: 'text' },
      { name: 'status', column: 'status', kind: 'text', values: DOCUMENT_STATUSES }],
  },
  {
    name: 'Email', apiBranch: 'emails', apiEntity: 'email', fields: [name,
      { name: 'subject', column: 'email_subject', kind: 'text', requiredOnCreate: true },
      { name: 'header', column: 'email_header', kind: 'text', requiredOnCreate: true },
      { name: 'body', column: 'email_body', kind: 'text', requiredOnCreate: true },
      { name: 'to', column: 'email_to', kind: 'text' }, { name: 'from', column: 'email_from', kind: 'text' }],
  },
  {
    name: 'Event', apiBranch: 'events', apiEntity: 'event', fields: [name, eventDate,
      { name: 'status', column: 'status', kind: 'text', values: EVENT_STATUSES }],
  },
  {
    name: 'Incident', apiBranch: 'incidents', apiEntity: 'incident', fields: [name, eventDate,
      { name: 'status', column: 'status', kind: 'text', values: INCIDENT_STATUSES }],
  },
  { name: 'Intrusion Set', apiBranch: 'intrusionSets', apiEntity: 'intrusionSet', fields: [name] },
  { name: 'Report', apiBranch: 'reports', apiEntity: 'report', fields: [name, fileName,
    { name: 'publishDate', column: 'publish_date', kind: 'date' }, { name: 'status', column: 'status', kind: 'text', values: DOCUMENT_STATUSES }] },
  {
    name: 'Signature', apiBranch: 'signatures', apiEntity: 'signature', fields: [
      { ...name, requiredOnUpdate: true },
      { ...fileName, requiredOnUpdate: true },
      { name: 'fileType', column: 'file_type', kind: 'text', requiredOnCreate: true, requiredOnUpdate: true, values: SIGNATURE_FILE_TYPES },
      { name: 'fileText', column: 'file_text', kind: 'text', requiredOnCreate: true }],
  },
  { name: 'Threat', apiBranch: 'threats', apiEntity: 'threat', fields: [name] },
  { name: 'Attack Pattern', apiBranch: 'attackPatterns', apiEntity: 'attackPattern', fields: [name], since: '7.0' },
  { name: 'Course of Action', apiBranch: 'coursesOfAction', apiEntity: 'courseOfAction', fields: [name], since: '7.0' },
  { name: 'Malware', apiBranch: 'malware', apiEntity: 'malware', fields: [name], since: '7.0' },
  { name: 'Tactic', apiBranch: 'tactics', apiEntity: 'tactic', fields: [name], since: '7.0' },
  { name: 'Tool', apiBranch: 'tools', apiEntity: 'tool', fields: [name], since: '7.0' },
  { name: 'Vulnerability', apiBranch: 'vulnerabilities', apiEntity: 'vulnerability', fields: [name], since: '7.0' },
]

const groupLookup = new Map<string, GroupTypeDef>()
for (const t of GROUP_TYPES) {
  for (const key of [t.name, t.name.replace(/\s+/g, ''), t.apiBranch, t.apiEntity]) groupLookup.set(key.toLowerCase(), t)
}

/** Finds a Group type by name (`Intrusion Set`), entity (`intrusionSet`) or branch (`intrusionSets`). */
export function findGroupType(nameOrBranch: string): GroupTypeDef | undefined {
  return groupLookup.get(nameOrBranch.trim().toLowerCase())
}

export interface AssetTypeDef {
  name: string
  apiBranch: string
  apiEntity: string
  /** JSON name of the asset's value and of its optional detail (e.g. address / addressType). */
  valueField: string
  detailField: string | null
  /** Names v3 uses for the same two fields. */
  v3ValueField: string
  v3DetailField: string | null
}

export const VICTIM_ASSET_TYPES: readonly AssetTypeDef[] = [
  { name: 'EmailAddress', apiBranch: 'emailAddresses', apiEntity: 'victimEmailAddress', valueField: 'address', detailField: 'addressType', v3ValueField: 'address', v3DetailField: 'addressType' },
  { name: 'NetworkAccount', apiBranch: 'networkAccounts', apiEntity: 'victimNetworkAccount', valueField: 'account', detailField: 'network', v3ValueField: 'accountName', v3DetailField: 'networkType' },
  { name: 'Phone', apiBranch: 'phoneNumbers', apiEntity: 'victimPhone', valueField: 'phoneType', detailField: null, v3ValueField: 'phone', v3DetailField: null },
  { name: 'SocialNetwork', apiBranch: 'socialNetworks', apiEntity: 'victimSocialNetwork', valueField: 'account', detailField: 'network', v3ValueField: 'accountName', v3DetailField: 'socialNetwork' },
  { name: 'WebSite', apiBranch: 'webSites', apiEntity: 'victimWebSite', valueField: 'webSite', detailField: null, v3ValueField: 'website', v3DetailField: null },
]

export function findVictimAssetType(nameOrBranch: string): AssetTypeDef | undefined {
  const key = nameOrBranch.toLowerCase()
  return VICTIM_ASSET_TYPES.find((t) => t.apiBranch.toLowerCase() === key || t.name.toLowerCase() === key || t.apiEntity.toLowerCase() === key)
}

export const ADVERSARY_ASSET_TYPES = [
  { name: 'Handle', apiBranch: 'handles', apiEntity: 'adversaryHandle', valueField: 'handle' },
  { name: 'PhoneNumber', apiBranch: 'phoneNumbers', apiEntity: 'adversaryPhoneNumber', valueField: 'phoneNumber' },
  { name: 'URL', apiBranch: 'urls', apiEntity: 'adversaryUrl', valueField: 'url' },
] as const

export const TASK_STATUSES = ['Not Started', 'In Progress', 'Completed', 'Waiting on Someone', 'Deferred'] as const
export const CASE_STATUSES = ['Open', 'Closed'] as const
export const CASE_SEVERITIES = ['Low', 'Medium', 'High', 'Critical'] as const
export const PLAYBOOK_STATUSES = ['Active', 'Inactive', 'Draft', 'Archive'] as const
export const CUSTOM_METRIC_DATA_TYPES = ['Sum', 'Count', 'Min', 'Max', 'First', 'Last', 'Average'] as const
export const CUSTOM_METRIC_INTERVALS = ['Hourly', 'Daily', 'Weekly', 'Monthly', 'Yearly'] as const
export const ASSOCIATION_SOURCES = ['UNKNOWN', 'MANUAL', 'API', 'TQL', 'DNS', 'EMAIL'] as const
export type AssociationSource = (typeof ASSOCIATION_SOURCES)[number]

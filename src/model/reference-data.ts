/**
 * Built-in reference data seeded into every database: association types, attribute
 * types and artifact types. Seeding is idempotent (by name), so new entries added here
 * reach existing installations at the next start.
 */

export interface AssociationTypeSeed {
  name: string
  apiBranch: string
  fromType: string
  toType: string
  fileAction?: boolean
}

/** Indicator-to-Indicator association types, and the File actions. */
export const ASSOCIATION_TYPES: readonly AssociationTypeSeed[] = [
  { name: 'Address to User Agent', apiBranch: 'addressToUserAgent', fromType: 'Address', toType: 'User Agent' },
  { name: 'ASN to Address', apiBranch: 'asnToAddress', fromType: 'ASN', toType: 'Address' },
  { name: 'ASN to CIDR', apiBranch: 'asnToCidr', fromType: 'ASN', toType: 'CIDR' },
  { name: 'CIDR to Address', apiBranch: 'cidrToAddress', fromType: 'CIDR', toType: 'Address' },
  { name: 'DNS PTR Record', apiBranch: 'dnsPtrRecord', fromType: 'Address', toType: 'Host' },
  { name: 'Domain Registrant Email', apiBranch: 'domainRegistrant', fromType: 'Host', toType: 'EmailAddress' },
  { name: 'File Download', apiBranch: 'fileDownload', fromType: 'URL', toType: 'File' },
  { name: 'URL Host', apiBranch: 'urlHost', fromType: 'URL', toType: 'Host' },
  { name: 'URL Address', apiBranch: 'urlAddress', fromType: 'URL', toType: 'Address' },
  { name: 'File Archive', apiBranch: 'archive', fromType: 'File', toType: 'File', fileAction: true },
  { name: 'File Drop', apiBranch: 'drop', fromType: 'File', toType: 'File', fileAction: true },
  { name: 'File Traffic', apiBranch: 'traffic', fromType: 'File', toType: 'Address,Host,URL', fileAction: true },
  { name: 'File Mutex', apiBranch: 'mutex', fromType: 'File', toType: 'Mutex', fileAction: true },
  { name: 'File Registry Key', apiBranch: 'registryKey', fromType: 'File', toType: 'Registry Key', fileAction: true },
  { name: 'File User Agent', apiBranch: 'userAgent', fromType: 'File', toType: 'User Agent', fileAction: true },
  { name: 'File DNS Query', apiBranch: 'dnsQuery', fromType: 'File', toType: 'Host', fileAction: true },
]

export interface AttributeTypeSeed {
  name: string
  description: string
  maxLength: number
  allowMarkdown?: boolean
  appliesTo: readonly string[]
  validationRule?: { name: string; type: 'regex' | 'number' | 'date' | 'selectone'; text: string; description: string }
}

const ALL = ['indicator', 'group', 'task', 'victim', 'case']

export const ATTRIBUTE_TYPES: readonly AttributeTypeSeed[] = [
  {
    name: 'Description',
    description: 'A description of the item.',
    maxLength: 65500,
    allowMarkdown: true,
    appliesTo: ALL,
  },
  { name: 'Source', description: 'Where the intelligence came from.', maxLength: 500, appliesTo: ALL },
  {
    name: 'Additional Analysis and Context',
    description: 'Analysis that adds context.',
    maxLength: 65500,
    allowMarkdown: true,
    appliesTo: ALL,
  },
  { name: 'Title', description: 'A short title.', maxLength: 255, appliesTo: ALL },
  { name: 'External ID', description: 'An identifier in another system.', maxLength: 255, appliesTo: ALL },
  {
    name: 'Attack Phase',
    description: 'Kill-chain phase of the activity.',
    maxLength: 100,
    appliesTo: ['indicator', 'group'],
    validationRule: {
      name: 'Kill Chain Phase',
      type: 'selectone',
      text: 'Reconnaissance;Weaponization;Delivery;Exploitation;Installation;Command and Control;Actions on Objectives',
      description: 'One kill-chain phase.',
    },
  },
  {
    name: 'Attack Vector',
    description: 'How the target was reached.',
    maxLength: 500,
    appliesTo: ['indicator', 'group'],
  },
  {
    name: 'Course of Action Taken',
    description: 'What was done about it.',
    maxLength: 65500,
    appliesTo: ['group', 'indicator'],
  },
  {
    name: 'Detection Percentage',
    description: 'Share of engines that detect it.',
    maxLength: 3,
    appliesTo: ['indicator'],
    validationRule: {
      name: 'Percentage',
      type: 'number',
      text: '^(100|[1-9]?\\d)$',
      description: 'A whole number from 0 to 100.',
    },
  },
  { name: 'First Seen', description: 'When it was first seen.', maxLength: 100, appliesTo: ['indicator', 'group'] },
  { name: 'Last Seen', description: 'When it was last seen.', maxLength: 100, appliesTo: ['indicator', 'group'] },
  {
    name: 'Targeted Industry',
    description: 'Industry the activity aims at.',
    maxLength: 255,
    appliesTo: ['group', 'victim'],
  },
  { name: 'Impact Description', description: 'What the impact was.', maxLength: 65500, appliesTo: ['group'] },
  { name: 'Physical Address', description: 'A postal address.', maxLength: 500, appliesTo: ['victim'] },
  {
    name: 'Country Code',
    description: 'ISO 3166 country code.',
    maxLength: 2,
    appliesTo: ['indicator', 'victim'],
    validationRule: { name: 'Country Code', type: 'regex', text: '^[A-Z]{2}$', description: 'Two capital letters.' },
  },
]

export const ARTIFACT_TYPES: readonly { name: string; dataType: string; intelType: string | null }[] = [
  { name: 'Email Address', dataType: 'String', intelType: 'indicator-EmailAddress' },
  { name: 'Host', dataType: 'String', intelType: 'indicator-Host' },
  { name: 'URL', dataType: 'String', intelType: 'indicator-URL' },
  { name: 'Address', dataType: 'String', intelType: 'indicator-Address' },
  { name: 'File Hash', dataType: 'String', intelType: 'indicator-File' },
  { name: 'ASN', dataType: 'String', intelType: 'indicator-ASN' },
  { name: 'CIDR', dataType: 'String', intelType: 'indicator-CIDR' },
  { name: 'Email Subject', dataType: 'String', intelType: null },
  { name: 'File Name', dataType: 'String', intelType: null },
  { name: 'Log File', dataType: 'FileUpload', intelType: null },
  { name: 'Network Traffic', dataType: 'FileUpload', intelType: null },
  { name: 'Screenshot', dataType: 'FileUpload', intelType: null },
]

/**
 * A Group, declared once (model/field.ts): the fields every type carries, the fields of each
 * type (`subtypes`: which types carry a field and what each requires of it), and the sixteen
 * types with their place in STIX 2.1. group-types.ts derives the per-type body rules from here.
 */
import { type SubtypeRule, defineKind } from './field.js'

export const INCIDENT_STATUSES = [
  'New',
  'Open',
  'Stalled',
  'Containment Achieved',
  'Restoration Achieved',
  'Incident Reported',
  'Closed',
  'Rejected',
  'Deleted',
] as const
export const EVENT_STATUSES = ['Needs Review', 'False Positive', 'No Further Action', 'Escalated'] as const
export const DOCUMENT_STATUSES = ['Success', 'Awaiting Upload', 'In Progress', 'Failed', 'None'] as const
export const SIGNATURE_FILE_TYPES = [
  'Bro',
  'ClamAV',
  'CybOX',
  'Iris Search Hash',
  'KQL',
  'OpenIOC',
  'Regex',
  'Splunk SPL',
  'Sigma',
  'Snort',
  'Suricata',
  'TQL Query',
  'YARA',
] as const

/** A Group type's STIX 2.1 object, or why none fits. */
export type GroupStix21 = { type: string; note?: string } | { none: string }

export interface GroupSubtype {
  name: string
  apiBranch: string
  apiEntity: string
  /** Newer types are not in the spec's v2 table; they share the common rules. */
  since?: string
  stix21: GroupStix21
}

/** The spec's ten types and the six the platform added since, in the spec's order. */
export const GROUP_SUBTYPES = [
  { name: 'Adversary', apiBranch: 'adversaries', apiEntity: 'adversary', stix21: { type: 'threat-actor' } },
  { name: 'Campaign', apiBranch: 'campaigns', apiEntity: 'campaign', stix21: { type: 'campaign' } },
  {
    name: 'Document',
    apiBranch: 'documents',
    apiEntity: 'document',
    stix21: {
      none: 'STIX 2.1 has no object for a document held for analysis: its bytes would be an artifact observable, but the Group itself (a named file with an upload status, perhaps malware) is not an observation',
    },
  },
  {
    name: 'Email',
    apiBranch: 'emails',
    apiEntity: 'email',
    stix21: {
      type: 'email-message',
      note: 'an observable (SCO): subject, body and headers carry over; from and to become email-addr references',
    },
  },
  {
    name: 'Event',
    apiBranch: 'events',
    apiEntity: 'event',
    stix21: {
      type: 'grouping',
      note: 'context suspicious-activity: an Event gathers what was seen for review; STIX 2.1 has no event object',
    },
  },
  { name: 'Incident', apiBranch: 'incidents', apiEntity: 'incident', stix21: { type: 'incident' } },
  { name: 'Intrusion Set', apiBranch: 'intrusionSets', apiEntity: 'intrusionSet', stix21: { type: 'intrusion-set' } },
  { name: 'Report', apiBranch: 'reports', apiEntity: 'report', stix21: { type: 'report' } },
  {
    name: 'Signature',
    apiBranch: 'signatures',
    apiEntity: 'signature',
    stix21: {
      type: 'indicator',
      note: 'fileText is the pattern and fileType its pattern_type (an open vocabulary: snort, suricata, yara, sigma, pcre for Regex; others keep their own name)',
    },
  },
  {
    name: 'Threat',
    apiBranch: 'threats',
    apiEntity: 'threat',
    stix21: {
      type: 'threat-actor',
      note: 'threat_actor_types unknown: a threat not yet attributed; Adversary maps here too, so an import takes threat-actor as Adversary',
    },
  },
  {
    name: 'Attack Pattern',
    apiBranch: 'attackPatterns',
    apiEntity: 'attackPattern',
    since: '7.0',
    stix21: { type: 'attack-pattern' },
  },
  {
    name: 'Course of Action',
    apiBranch: 'coursesOfAction',
    apiEntity: 'courseOfAction',
    since: '7.0',
    stix21: { type: 'course-of-action' },
  },
  { name: 'Malware', apiBranch: 'malware', apiEntity: 'malware', since: '7.0', stix21: { type: 'malware' } },
  {
    name: 'Tactic',
    apiBranch: 'tactics',
    apiEntity: 'tactic',
    since: '7.0',
    stix21: {
      none: "an ATT&CK tactic is not a STIX 2.1 object: the spec carries it as a kill_chain_phases entry of attack patterns, malware and tools (MITRE's x-mitre-tactic is a custom object)",
    },
  },
  { name: 'Tool', apiBranch: 'tools', apiEntity: 'tool', since: '7.0', stix21: { type: 'tool' } },
  {
    name: 'Vulnerability',
    apiBranch: 'vulnerabilities',
    apiEntity: 'vulnerability',
    since: '7.0',
    stix21: { type: 'vulnerability' },
  },
] as const satisfies readonly GroupSubtype[]

export type GroupTypeName = (typeof GROUP_SUBTYPES)[number]['name']

const subtypeLookup = new Map<string, GroupSubtype>()
for (const t of GROUP_SUBTYPES) {
  for (const key of [t.name, t.name.replace(/\s+/g, ''), t.apiBranch, t.apiEntity])
    subtypeLookup.set(key.toLowerCase(), t)
}

/** A Group type by name (`Intrusion Set`), entity (`intrusionSet`) or branch (`intrusionSets`). */
export function findGroupSubtype(nameOrBranch: string): GroupSubtype | undefined {
  return subtypeLookup.get(nameOrBranch.trim().toLowerCase())
}

const canonicalType = (value: string) => findGroupSubtype(value)?.name ?? value

/** Every type under one rule, with the exceptions given. */
function everyType(
  rule: SubtypeRule,
  except: Partial<Record<GroupTypeName, SubtypeRule>> = {},
): Record<string, SubtypeRule> {
  return Object.fromEntries(GROUP_SUBTYPES.map((t) => [t.name, except[t.name] ?? rule]))
}

const list = (name: string, type: string, description: string) =>
  ({ name, type: 'object', description, v3: { type, list: true }, v2: false }) as const

/*
 * The order matters: a type's body rules are checked in it (so the first missing or bad field is
 * the one named), and a fields= option adds its fields in it.
 */
export const GROUP = defineKind({
  kind: 'group',
  table: 'intel_group',
  word: 'Group',
  options: [
    { name: 'externalDates', description: 'Includes externalDateAdded, externalLastModified and externalDateExpires' },
    {
      name: 'insights',
      description: 'Includes customAiContent and insights of Document, Event and Report Groups that have them',
    },
    { name: 'sightings', description: 'Includes firstSeen and lastSeen' },
  ],
  fields: [
    {
      name: 'id',
      column: 'id',
      type: 'integer',
      description: 'The ID of the Group',
      write: 'never',
      tql: { name: 'ID', description: 'The ID of the group.' },
    },
    {
      name: 'ownerId',
      column: 'owner_id',
      type: 'integer',
      description: 'The owner to create the Group in, by id',
      write: 'create',
    },
    {
      name: 'ownerName',
      type: 'text',
      description: 'The owner to create the Group in (default: the owner= parameter, else your Organization)',
      write: 'create',
    },
    {
      name: 'type',
      column: 'type',
      type: 'text',
      description: 'The Group type',
      write: 'create',
      required: true,
      values: GROUP_SUBTYPES.map((t) => t.name),
      tql: [
        {
          keyword: 'typeName',
          name: 'Type Name',
          type: 'String',
          description: 'The group type (Adversary, Incident, Report …).',
          groupable: true,
          normalize: canonicalType,
        },
        {
          name: 'Type',
          type: 'String',
          description: 'The group type; the same as typeName.',
          groupable: true,
          normalize: canonicalType,
        },
      ],
    },
    {
      name: 'name',
      column: 'name',
      type: 'text',
      description: 'The name of the Group',
      required: true,
      stix21: 'name',
      subtypes: everyType({ required: true }, { Signature: { required: true, requiredOnUpdate: true } }),
      tql: [
        {
          keyword: 'summary',
          name: 'Summary',
          type: 'StringLower',
          description: 'The name of the group (compared case-insensitively).',
        },
        { name: 'Name', type: 'StringLower', description: 'The name of the group; the same as summary.' },
      ],
    },
    {
      name: 'description',
      column: 'description',
      type: 'text',
      description: 'The description of the Group',
      v3: false,
      v2: false,
      stix21: 'description',
      tql: { name: 'Description', description: 'The description of the group.' },
    },
    {
      name: 'xid',
      column: 'xid',
      type: 'text',
      description: 'A unique external ID of the Group (generated when absent)',
      write: 'create',
      tql: { name: 'XID', description: 'The external ID of the group.' },
    },
    {
      name: 'createdBy',
      column: 'created_by',
      type: 'user',
      description: 'The user who created the Group',
      write: 'never',
      v3: { type: 'User' },
      tql: { name: 'Created By', description: 'The user name of the account that created the group.' },
    },
    {
      name: 'fileName',
      column: 'file_name',
      type: 'text',
      description: 'The file name (Document, Report, Signature)',
      subtypes: {
        Document: { required: true },
        Report: { required: true },
        Signature: { required: true, requiredOnUpdate: true },
      },
    },
    {
      name: 'dateAdded',
      column: 'date_added',
      type: 'date',
      description: 'When the Group was created',
      write: 'never',
      stix21: 'created',
      tql: { name: 'Date Added', description: 'The date the group was added.' },
    },
    {
      name: 'lastModified',
      column: 'last_modified',
      type: 'date',
      description: 'When the Group was last changed',
      write: 'never',
      stix21: 'modified',
      tql: { name: 'Last Modified', description: 'The date the group was last modified.' },
    },
    {
      name: 'firstSeen',
      column: 'first_seen',
      type: 'date',
      description: 'When the Campaign was first seen',
      v3: { option: 'sightings' },
      stix21: 'first_seen',
      tql: { name: 'First Seen', description: 'The date the group was first seen.' },
    },
    {
      name: 'lastSeen',
      column: 'last_seen',
      type: 'date',
      description: 'When the Group was last seen',
      v3: { option: 'sightings', unlisted: true },
      stix21: 'last_seen',
      tql: { name: 'Last Seen', description: 'The date the group was last seen.' },
    },
    {
      name: 'publishDate',
      column: 'publish_date',
      type: 'date',
      description: 'When the Report was published',
      subtypes: { Report: {} },
      stix21: 'published',
      tql: { name: 'Publish Date', description: 'The publish date of a report.' },
    },
    {
      name: 'eventDate',
      column: 'event_date',
      type: 'date',
      description: 'When the Event or Incident happened',
      subtypes: { Event: { required: true }, Incident: { required: true } },
      tql: { name: 'Event Date', description: 'The event date of an event or incident.' },
    },
    {
      name: 'externalDateAdded',
      column: 'external_date_added',
      type: 'date',
      description: 'When the Group was created in its external source',
      v3: { option: 'externalDates', unlisted: true },
      tql: { name: 'External Date Added', description: 'The date the group was created externally.' },
    },
    {
      name: 'externalLastModified',
      column: 'external_last_modified',
      type: 'date',
      description: 'When the Group was changed in its external source',
      v3: { option: 'externalDates', unlisted: true },
      tql: { name: 'External Last Modified', description: 'The date the group was modified externally.' },
    },
    {
      name: 'externalDateExpires',
      column: 'external_date_expires',
      type: 'date',
      description: 'When the Group expires in its external source',
      v3: { option: 'externalDates', unlisted: true },
      tql: { name: 'External Date Expires', description: 'The date the group expires externally.' },
    },
    {
      name: 'documentDateAdded',
      column: 'document_date_added',
      type: 'date',
      description: "When the Document's or Report's file was uploaded",
      write: 'never',
      v3: { unlisted: true },
      v2: false,
      tql: { name: 'Document Date Added', description: 'The date a document file was uploaded.' },
    },
    {
      name: 'emailDate',
      column: 'email_date',
      type: 'date',
      description: 'The date of the Email',
      write: 'never',
      v3: { unlisted: true },
      v2: false,
      tql: { name: 'Email Date', description: 'The date of an email.' },
    },
    {
      name: 'malware',
      column: 'malware',
      type: 'boolean',
      description: 'Whether the Document is malware (a password-protected zip)',
      subtypes: { Document: {} },
    },
    {
      name: 'password',
      column: 'password',
      type: 'text',
      description: 'The password of a malware Document',
      subtypes: { Document: {} },
    },
    {
      name: 'status',
      column: 'status',
      type: 'text',
      description: 'The status (Document, Report, Event, Incident)',
      subtypes: {
        Document: { values: DOCUMENT_STATUSES },
        Event: { values: EVENT_STATUSES },
        Incident: { values: INCIDENT_STATUSES },
        Report: { values: DOCUMENT_STATUSES },
      },
      tql: {
        name: 'Status',
        description: 'The status of the group (Incidents, Events, Documents, Reports).',
        groupable: true,
      },
    },
    {
      name: 'subject',
      column: 'email_subject',
      record: 'emailSubject',
      type: 'text',
      description: 'The subject (Email)',
      subtypes: { Email: { required: true } },
      stix21: 'subject',
      tql: { keyword: 'emailSubject', name: 'Email Subject', description: 'The subject of an email.' },
    },
    {
      name: 'header',
      column: 'email_header',
      record: 'emailHeader',
      type: 'text',
      description: 'The header (Email)',
      subtypes: { Email: { required: true } },
      stix21: 'additional_header_fields',
    },
    {
      name: 'body',
      column: 'email_body',
      record: 'emailBody',
      type: 'text',
      description: 'The body (Email)',
      subtypes: { Email: { required: true } },
      stix21: 'body',
    },
    {
      name: 'to',
      column: 'email_to',
      record: 'emailTo',
      type: 'text',
      description: 'The recipient (Email)',
      subtypes: { Email: {} },
      stix21: 'to_refs',
      tql: { keyword: 'emailTo', name: 'Email To', description: 'The recipient of an email.' },
    },
    {
      name: 'from',
      column: 'email_from',
      record: 'emailFrom',
      type: 'text',
      description: 'The sender (Email)',
      subtypes: { Email: {} },
      stix21: 'from_ref',
      tql: { keyword: 'emailFrom', name: 'Email From', description: 'The sender of an email.' },
    },
    {
      name: 'fileType',
      column: 'file_type',
      type: 'text',
      description: 'The signature format (Signature)',
      subtypes: { Signature: { required: true, requiredOnUpdate: true, values: SIGNATURE_FILE_TYPES } },
      stix21: 'pattern_type',
    },
    {
      name: 'fileText',
      column: 'file_text',
      type: 'text',
      description: 'The signature itself (Signature)',
      subtypes: { Signature: { required: true } },
      stix21: 'pattern',
    },
    {
      name: 'eventType',
      column: 'event_type',
      type: 'text',
      description: 'The type of the Event',
      write: 'never',
      v3: { unlisted: true },
      v2: false,
      tql: { name: 'Event Type', description: 'The type of an event.', groupable: true },
    },
    {
      name: 'upVoteCount',
      column: 'up_vote_count',
      type: 'integer',
      description: 'Up votes',
      write: 'never',
      v3: { type: 'String' },
      v2: false,
      tql: { keyword: 'upvoteCount', name: 'Upvote Count', description: 'The number of up votes.' },
    },
    {
      name: 'downVoteCount',
      column: 'down_vote_count',
      type: 'integer',
      description: 'Down votes',
      write: 'never',
      v3: { type: 'String' },
      v2: false,
      tql: { keyword: 'downvoteCount', name: 'Downvote Count', description: 'The number of down votes.' },
    },
    {
      name: 'fileSize',
      column: 'file_size',
      type: 'integer',
      description: "The size of the Document's or Report's file",
      write: 'never',
      v3: { unlisted: true },
    },
    {
      name: 'documentType',
      column: 'document_type',
      type: 'text',
      description: "The type of the Document's or Report's file",
      write: 'never',
      v3: { unlisted: true },
      v2: false,
      tql: { name: 'Document Type', description: 'The type of a document file.' },
    },
    {
      name: 'generatedReport',
      column: 'generated_report',
      type: 'boolean',
      description: 'Whether the Report was generated',
      write: 'never',
      v3: { unlisted: true },
      v2: false,
      tql: { name: 'Generated Report', description: 'Whether a report was generated.' },
    },
    {
      name: 'score',
      column: 'email_score',
      record: 'emailScore',
      type: 'integer',
      description: 'The score of the Email',
      write: 'never',
      v3: { unlisted: true },
      tql: { keyword: 'emailScore', name: 'Email Score', description: 'The score of an email.' },
    },
    {
      name: 'emailScoreIncludesBody',
      column: 'email_score_includes_body',
      type: 'boolean',
      description: 'Whether the email score includes the body',
      write: 'never',
      v3: false,
      v2: false,
      tql: { name: 'Email Score Includes Body', description: 'Whether the email score includes the body.' },
    },
    {
      name: 'aiProvider',
      column: 'ai_provider',
      type: 'text',
      description: 'The provider of the AI summary',
      write: 'never',
      v3: false,
      v2: false,
      tql: { name: 'AI Provider', description: 'The provider of the AI summary.' },
    },
    {
      name: 'insights',
      column: 'insights',
      type: 'object',
      description: 'The AI insights of the Group',
      write: 'never',
      v3: { option: 'insights', unlisted: true },
      v2: false,
      tql: { name: 'Insights', type: 'String', description: 'The AI insights of the group.' },
    },
    {
      name: 'customAiContent',
      column: 'custom_ai_content',
      type: 'text',
      description: 'Content the AI summary was asked for',
      write: 'never',
      v3: { option: 'insights', unlisted: true },
      v2: false,
    },
    { name: 'webLink', type: 'text', description: "Link to the Group's details page", write: 'never' },
    {
      name: 'legacyLink',
      type: 'text',
      description: "Link to the Group's page in the legacy form",
      write: 'never',
      v2: false,
    },
    list('tags', 'Tag', 'Tags applied to the Group ({data: [{name}], mode: append|replace|delete})'),
    list('securityLabels', 'SecurityLabel', 'Security labels applied to the Group'),
    list('attributes', 'GroupAttribute', 'Attributes of the Group'),
    list('associatedArtifacts', 'Artifact', 'Artifacts associated with the Group'),
    list('associatedCases', 'Case', 'Cases associated with the Group'),
    list('associatedGroups', 'Group', 'Groups associated with the Group'),
    list('associatedIndicators', 'Indicator', 'Indicators associated with the Group'),
    list('associatedVictimAssets', 'VictimAsset', 'Victim Assets associated with the Group'),
  ],
})

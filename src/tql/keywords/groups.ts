/** TQL keywords of /v3/groups. */
import { expressionBuilder, sql } from 'kysely'
import { findGroupType } from '../../model/group-types.js'
import { type ObjectTypeDef, column, computed, kw } from './define.js'
import {
  associationKeywords, associationSourceKeywords, attributeKeywords, dateKeywords, labelKeywords, ownerKeywords, tagKeywords, userNameOf,
} from './shared.js'

const eb = expressionBuilder<any, any>()
const canonicalType = (value: string) => findGroupType(value)?.name ?? value
/** A column that only means something for one group type (null for the others). */
const ofType = (type: string, columnName: string) =>
  computed((alias) => eb.case().when(`${alias}.type`, '=', sql.lit(type)).then(eb.ref(`${alias}.${columnName}`)).end())

export const GROUP_KEYWORDS: ObjectTypeDef = {
  name: 'groups',
  table: 'intel_group',
  kind: 'group',
  keywords: [
    kw('id', 'ID', 'Integer', column('id'), 'The ID of the group.'),
    ...ownerKeywords('group'),
    kw('typeName', 'Type Name', 'String', column('type'), 'The group type (Adversary, Incident, Report …).', { groupable: true, normalize: canonicalType }),
    kw('type', 'Type', 'String', column('type'), 'The group type; the same as typeName.', { groupable: true, normalize: canonicalType }),
    kw('summary', 'Summary', 'StringLower', column('name'), 'The name of the group (compared case-insensitively).'),
    kw('name', 'Name', 'StringLower', column('name'), 'The name of the group; the same as summary.'),
    kw('description', 'Description', 'String', column('description'), 'The description of the group.'),
    kw('status', 'Status', 'String', column('status'), 'The status of the group (Incidents, Events, Documents, Reports).', { groupable: true }),
    kw('xid', 'XID', 'String', column('xid'), 'The external ID of the group.'),
    kw('createdBy', 'Created By', 'String', userNameOf('created_by'), 'The user name of the account that created the group.'),
    ...dateKeywords([
      ['dateAdded', 'Date Added', 'date_added', 'The date the group was added.'],
      ['lastModified', 'Last Modified', 'last_modified', 'The date the group was last modified.'],
      ['firstSeen', 'First Seen', 'first_seen', 'The date the group was first seen.'],
      ['lastSeen', 'Last Seen', 'last_seen', 'The date the group was last seen.'],
      ['publishDate', 'Publish Date', 'publish_date', 'The publish date of a report.'],
      ['eventDate', 'Event Date', 'event_date', 'The event date of an event or incident.'],
      ['externalDateAdded', 'External Date Added', 'external_date_added', 'The date the group was created externally.'],
      ['externalDateExpires', 'External Date Expires', 'external_date_expires', 'The date the group expires externally.'],
      ['externalLastModified', 'External Last Modified', 'external_last_modified', 'The date the group was modified externally.'],
      ['documentDateAdded', 'Document Date Added', 'document_date_added', 'The date a document file was uploaded.'],
      ['emailDate', 'Email Date', 'email_date', 'The date of an email.'],
    ]),
    kw('eventType', 'Event Type', 'String', column('event_type'), 'The type of an event.', { groupable: true }),
    kw('upvoteCount', 'Upvote Count', 'Integer', column('up_vote_count'), 'The number of up votes.'),
    kw('downvoteCount', 'Downvote Count', 'Integer', column('down_vote_count'), 'The number of down votes.'),
    kw('documentFilename', 'Document Filename', 'String', ofType('Document', 'file_name'), 'The file name of a document.'),
    kw('documentFilesize', 'Document Filesize', 'Integer', ofType('Document', 'file_size'), 'The file size of a document.'),
    kw('documentStatus', 'Document Status', 'String', ofType('Document', 'status'), 'The upload status of a document.'),
    kw('documentType', 'Document Type', 'String', column('document_type'), 'The type of a document file.'),
    kw('generatedReport', 'Generated Report', 'Boolean', column('generated_report'), 'Whether a report was generated.'),
    kw('emailFrom', 'Email From', 'String', column('email_from'), 'The sender of an email.'),
    kw('emailTo', 'Email To', 'String', column('email_to'), 'The recipient of an email.'),
    kw('emailSubject', 'Email Subject', 'String', column('email_subject'), 'The subject of an email.'),
    kw('emailScore', 'Email Score', 'Integer', column('email_score'), 'The score of an email.'),
    kw('emailScoreIncludesBody', 'Email Score Includes Body', 'Boolean', column('email_score_includes_body'), 'Whether the email score includes the body.'),
    kw('signatureDateAdded', 'Signature Date Added', 'Date', ofType('Signature', 'date_added'), 'The date a signature was added.'),
    kw('signatureFilename', 'Signature Filename', 'String', ofType('Signature', 'file_name'), 'The file name of a signature.'),
    kw('signatureType', 'Signature Type', 'String', ofType('Signature', 'file_type'), 'The type of a signature (YARA, Snort …).'),
    kw('aiProvider', 'AI Provider', 'String', column('ai_provider'), 'The provider of the AI summary.'),
    kw('insights', 'Insights', 'String', column('insights'), 'The AI insights of the group.'),
    ...tagKeywords('group', 'group'),
    ...labelKeywords('group', 'group'),
    ...attributeKeywords('group', 'groupAttributes'),
    ...associationKeywords('group', ['group', 'indicator', 'case', 'artifact', 'victim', 'victimAsset', 'intelRequirement']),
    ...associationSourceKeywords('group'),
  ],
}

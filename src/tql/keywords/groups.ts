/** TQL keywords of /v3/groups. */
import { expressionBuilder, sql } from 'kysely'
import { GROUP } from '../../model/group.js'
import { type ObjectTypeDef, computed, kw } from './define.js'
import {
  associationKeywords,
  associationSourceKeywords,
  attributeKeywords,
  declaredKeywords,
  labelKeywords,
  ownerKeywords,
  tagKeywords,
} from './shared.js'

const eb = expressionBuilder<any, any>()
/** A column that only means something for one group type (null for the others). */
const ofType = (type: string, columnName: string) =>
  computed((alias) =>
    eb
      .case()
      .when(`${alias}.type`, '=', sql.lit(type))
      .then(eb.ref(`${alias}.${columnName}`))
      .end(),
  )

export const GROUP_KEYWORDS: ObjectTypeDef = {
  name: 'groups',
  table: GROUP.table,
  kind: 'group',
  keywords: [
    ...declaredKeywords(GROUP, ['id']),
    ...ownerKeywords('group'),
    ...declaredKeywords(GROUP, ['type', 'name', 'description', 'status', 'xid', 'createdBy']),
    ...declaredKeywords(GROUP, ['dateAdded', 'lastModified', 'firstSeen', 'lastSeen', 'publishDate', 'eventDate']),
    // the platform lists these three alphabetically, not in the order fields=externalDates shows them
    ...declaredKeywords(GROUP, (f) => f.v3 !== false && f.v3?.option === 'externalDates').sort((a, b) =>
      a.keyword.localeCompare(b.keyword),
    ),
    ...declaredKeywords(GROUP, ['documentDateAdded', 'emailDate']),
    ...declaredKeywords(GROUP, ['eventType', 'upVoteCount', 'downVoteCount']),
    kw(
      'documentFilename',
      'Document Filename',
      'String',
      ofType('Document', 'file_name'),
      'The file name of a document.',
    ),
    kw(
      'documentFilesize',
      'Document Filesize',
      'Integer',
      ofType('Document', 'file_size'),
      'The file size of a document.',
    ),
    kw('documentStatus', 'Document Status', 'String', ofType('Document', 'status'), 'The upload status of a document.'),
    ...declaredKeywords(GROUP, [
      'documentType',
      'generatedReport',
      'from',
      'to',
      'subject',
      'score',
      'emailScoreIncludesBody',
    ]),
    kw(
      'signatureDateAdded',
      'Signature Date Added',
      'Date',
      ofType('Signature', 'date_added'),
      'The date a signature was added.',
    ),
    kw(
      'signatureFilename',
      'Signature Filename',
      'String',
      ofType('Signature', 'file_name'),
      'The file name of a signature.',
    ),
    kw(
      'signatureType',
      'Signature Type',
      'String',
      ofType('Signature', 'file_type'),
      'The type of a signature (YARA, Snort …).',
    ),
    ...declaredKeywords(GROUP, ['aiProvider', 'insights']),
    ...tagKeywords('group', 'group'),
    ...labelKeywords('group', 'group'),
    ...attributeKeywords('group', 'groupAttributes'),
    ...associationKeywords('group', [
      'group',
      'indicator',
      'case',
      'artifact',
      'victim',
      'victimAsset',
      'intelRequirement',
    ]),
    ...associationSourceKeywords('group'),
  ],
}

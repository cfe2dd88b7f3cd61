/** /v3/tags: Tags as objects, per owner; create, rename, describe, delete. */
import {
  type Tag, createTagRecord, deleteTagRecord, deleteTagsMatching, listTagRecords, loadTagRecords, updateTagRecord,
} from '../../../domain/metadata/tags.js'
import type { FieldSpec, V3Endpoint } from '../endpoint.js'
import { presentTag } from '../present-metadata.js'

const TAG_FIELDS: FieldSpec[] = [
  { name: 'id', type: 'Integer', description: 'The ID of the tag', readOnly: true },
  { name: 'name', type: 'String', description: 'The name of the tag (case-sensitive, at most 128 characters)', required: true },
  { name: 'description', type: 'String', description: 'A description of the tag' },
  { name: 'owner', type: 'String', description: 'The name of the tag\'s owner (choose it with ?owner=)', readOnly: true },
  { name: 'lastUsed', type: 'Date', description: 'When the tag was last applied', readOnly: true },
  { name: 'techniqueId', type: 'String', description: 'The ATT&CK technique of an ATT&CK tag', readOnly: true },
]

export const TAGS: V3Endpoint<Tag> = {
  path: 'tags', tqlType: 'tags', word: 'Tag', fields: TAG_FIELDS, options: [],
  present: presentTag, list: listTagRecords, load: loadTagRecords, create: createTagRecord, update: updateTagRecord, remove: deleteTagRecord,
  removeMatching: deleteTagsMatching,
}

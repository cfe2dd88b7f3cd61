/** /v3/tags: Tags as objects, per owner; create, rename, describe, delete. */
import {
  type Tag,
  createTagRecord,
  deleteTagRecord,
  deleteTagsMatching,
  listTagRecords,
  loadTagRecords,
  updateTagRecord,
} from '../../../domain/metadata/tags.js'
import { TAG } from '../../../model/tag.js'
import { type V3Endpoint, declaredBodyFields } from '../endpoint.js'
import { presentTag } from '../present-metadata.js'

export const TAGS: V3Endpoint<Tag> = {
  path: 'tags',
  tqlType: 'tags',
  word: 'Tag',
  fields: declaredBodyFields(TAG),
  options: [],
  present: presentTag,
  list: listTagRecords,
  load: loadTagRecords,
  create: createTagRecord,
  update: updateTagRecord,
  remove: deleteTagRecord,
  removeMatching: deleteTagsMatching,
}

/** /v3/attributeTypes: the system's and the caller's owners' attribute types (read-only). */
import {
  type AttributeType,
  listAttributeTypeObjects as listAttributeTypes,
  loadAttributeTypeObjects as loadAttributeTypes,
} from '../../../domain/metadata/types.js'
import { ATTRIBUTE_TYPE } from '../../../model/attribute.js'
import { type V3Endpoint, declaredBodyFields } from '../endpoint.js'
import { compact } from '../present-metadata.js'

const ITEM_TYPE_WORDS: Record<string, string> = {
  indicator: 'Indicator',
  group: 'Group',
  task: 'Task',
  victim: 'Victim',
  case: 'Case',
}

function presentAttributeType(t: AttributeType, { fields }: { fields: Map<string, unknown> }): Record<string, unknown> {
  return compact({
    id: t.id,
    name: t.name,
    description: t.description,
    allowMarkdown: t.allowMarkdown,
    errorMessage: t.errorMessage,
    maxSize: t.maxSize,
    validationRule: t.validationRule ?? undefined,
    attributeTypeMappings: fields.has('mapping')
      ? { data: t.appliesTo.map((k) => ({ itemType: ITEM_TYPE_WORDS[k] ?? k })) }
      : undefined,
  })
}

export const ATTRIBUTE_TYPES: V3Endpoint<AttributeType> = {
  path: 'attributeTypes',
  word: 'Attribute type',
  fields: declaredBodyFields(ATTRIBUTE_TYPE),
  options: [{ name: 'mapping', description: 'Includes the kinds of item each attribute type applies to' }],
  present: presentAttributeType,
  list: listAttributeTypes,
  load: loadAttributeTypes,
}

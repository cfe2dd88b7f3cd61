/** /v3/attributeTypes: the system's and the caller's owners' attribute types (read-only). */
import { type AttributeType, listAttributeTypeObjects as listAttributeTypes, loadAttributeTypeObjects as loadAttributeTypes } from '../../../domain/metadata/types.js'
import type { FieldSpec, V3Endpoint } from '../endpoint.js'
import { compact } from '../present-metadata.js'

const ATTRIBUTE_TYPE_FIELDS: FieldSpec[] = [
  { name: 'id', type: 'Integer', description: 'The ID of the attribute type', readOnly: true },
  { name: 'name', type: 'String', description: 'The name of the attribute type', readOnly: true },
  { name: 'description', type: 'String', description: 'A description of the attribute type', readOnly: true },
  { name: 'allowMarkdown', type: 'Boolean', description: 'Whether values may use Markdown', readOnly: true },
  { name: 'errorMessage', type: 'String', description: 'The message shown when a value breaks the validation rule', readOnly: true },
  { name: 'maxSize', type: 'Integer', description: 'The longest value allowed', readOnly: true },
  { name: 'validationRule', type: 'Object', description: 'The rule values must follow', readOnly: true },
]

const ITEM_TYPE_WORDS: Record<string, string> = { indicator: 'Indicator', group: 'Group', task: 'Task', victim: 'Victim', case: 'Case' }

function presentAttributeType(t: AttributeType, { fields }: { fields: Map<string, unknown> }): Record<string, unknown> {
  return compact({
    id: t.id, name: t.name, description: t.description, allowMarkdown: t.allowMarkdown, errorMessage: t.errorMessage, maxSize: t.maxSize,
    validationRule: t.validationRule ?? undefined,
    attributeTypeMappings: fields.has('mapping') ? { data: t.appliesTo.map((k) => ({ itemType: ITEM_TYPE_WORDS[k] ?? k })) } : undefined,
  })
}

export const ATTRIBUTE_TYPES: V3Endpoint<AttributeType> = {
  path: 'attributeTypes', word: 'Attribute type', fields: ATTRIBUTE_TYPE_FIELDS,
  options: [{ name: 'mapping', description: 'Includes the kinds of item each attribute type applies to' }],
  present: presentAttributeType, list: listAttributeTypes, load: loadAttributeTypes,
}

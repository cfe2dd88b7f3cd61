/**
 * An Attribute of an Indicator, Group, Victim or Case, and the attribute types that type it.
 * v3 names the item an attribute is on after its kind (groupId, caseId…: protocols/v3/routes/
 * attributes.ts renames `itemId`); v2 reaches it by the item's path.
 */
import { defineKind } from './field.js'

export const ATTRIBUTE = defineKind({
  kind: 'attribute',
  table: 'attribute',
  word: 'Attribute',
  fields: [
    { name: 'id', column: 'id', type: 'integer', description: 'The ID of the attribute', write: 'never', v2: { always: true },
      tql: { name: 'ID', description: 'The ID of the attribute.' } },
    { name: 'itemId', column: 'item_id', type: 'integer', description: 'The ID of the item the attribute is on', required: true, write: 'create',
      v2: false },
    { name: 'dateAdded', column: 'date_added', type: 'date', description: 'When the attribute was added', write: 'never',
      tql: { name: 'Date Added', description: 'The date the attribute was added.' } },
    // The type's name; TQL's `type` is its id (typeId below).
    { name: 'type', type: 'text', description: 'The attribute type name (see /v3/attributeTypes)', required: true, write: 'create',
      v2: { always: true }, lookup: { table: 'attribute_type', column: 'name', key: 'type_id' },
      tql: { keyword: 'typeName', name: 'Type Name', type: 'StringLower', groupable: true, description: 'The name of the attribute type.' } },
    { name: 'value', column: 'value', type: 'text', description: 'The value of the attribute', required: true, v2: { always: true },
      tql: { name: 'Value', description: 'The value of the attribute.' } },
    { name: 'source', column: 'source', type: 'text', description: 'Where the value came from',
      tql: { name: 'Source', description: 'The source of the attribute.' } },
    { name: 'createdBy', column: 'created_by', type: 'user', v3: { type: 'User' }, v2: false, description: 'The user who added the attribute',
      write: 'never' },
    { name: 'lastModified', column: 'last_modified', type: 'date', description: 'When the attribute was last changed', write: 'never',
      tql: { name: 'Last Modified', description: 'The date the attribute was last modified.' } },
    { name: 'pinned', column: 'pinned', type: 'boolean', description: 'Whether the attribute is pinned', v2: { record: false },
      tql: { name: 'Pinned', description: 'Whether the attribute is pinned.' } },
    { name: 'default', column: 'displayed', type: 'boolean', v2: { name: 'displayed' },
      description: 'Whether this is the default attribute of its type (Source and Description types)',
      tql: { keyword: 'displayed', name: 'Displayed', description: 'Whether the attribute is displayed.' } },
    { name: 'securityLabels', type: 'object', v3: { type: 'SecurityLabel', list: true, option: 'securityLabels' }, v2: false,
      description: 'Security labels applied to the attribute' },
    { name: 'typeId', column: 'type_id', type: 'integer', v3: false, v2: false, description: 'The ID of the attribute type', write: 'never',
      tql: { keyword: 'type', name: 'Type ID', groupable: true, description: 'The ID of the attribute type.' } },
  ],
})

/** The system's and the owners' attribute types, read-only in both APIs. */
export const ATTRIBUTE_TYPE = defineKind({
  kind: 'attributeType',
  table: 'attribute_type',
  word: 'Attribute type',
  fields: [
    { name: 'id', column: 'id', type: 'integer', description: 'The ID of the attribute type', write: 'never' },
    { name: 'name', column: 'name', type: 'text', description: 'The name of the attribute type', write: 'never' },
    { name: 'description', column: 'description', type: 'text', description: 'A description of the attribute type', write: 'never' },
    { name: 'allowMarkdown', column: 'allow_markdown', type: 'boolean', description: 'Whether values may use Markdown', write: 'never' },
    { name: 'errorMessage', column: 'error_message', type: 'text', write: 'never',
      description: 'The message shown when a value breaks the validation rule' },
    { name: 'maxSize', column: 'max_length', type: 'integer', description: 'The longest value allowed', write: 'never' },
    { name: 'validationRule', column: 'validation_rule', type: 'object', description: 'The rule values must follow', write: 'never' },
    { name: 'system', column: 'system', type: 'boolean', v3: false, description: 'Whether the system defines the type', write: 'never' },
    { name: 'appliesTo', column: 'applies_to', type: 'text', v3: false, write: 'never',
      description: 'The kinds of item the type applies to (v3 shows them with fields=mapping)' },
  ],
})

/** An Artifact: a piece of evidence inside a Case; and the artifact types it is typed by. */
import { defineKind } from './field.js'

export const ARTIFACT = defineKind({
  kind: 'artifact',
  table: 'artifact',
  word: 'Artifact',
  tqlOrder: ['id', 'caseId', 'taskId', 'summary', 'source', 'analyticsScore', 'type', 'typeId', 'dateAdded', 'lastModified'],
  fields: [
    { name: 'id', column: 'id', type: 'integer', description: 'The ID of the Artifact', write: 'never',
      tql: { name: 'ID', description: 'The ID of the artifact.' } },
    { name: 'summary', column: 'summary', type: 'text', description: 'The data of the Artifact', required: true,
      tql: { name: 'Summary', description: 'The value of the artifact.' } },
    // The type's name; TQL's `type` is its id (typeId below).
    { name: 'type', type: 'text', description: 'The artifact type name (see /v3/artifactTypes)', required: true, write: 'create',
      lookup: { table: 'artifact_type', column: 'name', key: 'type_id' },
      tql: { keyword: 'typeName', name: 'Type Name', type: 'StringLower', groupable: true, description: 'The artifact type (Email Address, Host, URL …).' } },
    { name: 'intelType', type: 'text', description: 'The indicator type the artifact type maps to', write: 'never' },
    { name: 'caseId', column: 'case_id', type: 'integer', description: 'The ID of the Case holding the Artifact (or give caseXid)',
      required: true, write: 'create', tql: { name: 'Case ID', description: 'The ID of the case the artifact belongs to.' } },
    { name: 'caseXid', type: 'text', description: 'The XID of the Case holding the Artifact (instead of caseId)', write: 'create' },
    { name: 'taskId', column: 'task_id', type: 'integer', description: 'The ID of the Task of the same Case the Artifact belongs to',
      tql: { name: 'Task ID', description: 'The ID of the task the artifact belongs to.' } },
    { name: 'source', column: 'source', type: 'text', description: 'Who or what added the Artifact',
      tql: { name: 'Source', description: 'The source of the artifact.' } },
    { name: 'fieldName', column: 'field_name', type: 'text', description: 'The name of the Artifact field within its Task' },
    { name: 'analyticsScore', column: 'analytics_score', type: 'integer', description: 'Analytics score of the Artifact', write: 'never',
      tql: { name: 'Analytics Score', description: 'The analytics score of the artifact.' } },
    { name: 'dateAdded', column: 'date_added', type: 'date', description: 'When the Artifact was created', write: 'never',
      tql: { name: 'Date Added', description: 'The date the artifact was added.' } },
    { name: 'lastModified', column: 'last_modified', type: 'date', description: 'When the Artifact was last changed', write: 'never',
      tql: { name: 'Last Modified', description: 'The date the artifact was last modified.' } },
    { name: 'notes', type: 'object', v3: { type: 'Note', list: true }, description: 'New notes to add to the Artifact' },
    { name: 'associatedGroups', type: 'object', v3: { type: 'Group', list: true, option: 'associatedGroups' },
      description: 'Groups associated with the Artifact' },
    { name: 'associatedIndicators', type: 'object', v3: { type: 'Indicator', list: true, option: 'associatedIndicators' },
      description: 'Indicators associated with the Artifact' },
    { name: 'typeId', column: 'type_id', type: 'integer', v3: false, description: 'The ID of the artifact type', write: 'never',
      tql: { keyword: 'type', name: 'Type ID', groupable: true, description: 'The ID of the artifact type.' } },
  ],
})

/** /v3/artifactTypes: the catalogue of artifact types, read-only. */
export const ARTIFACT_TYPE = defineKind({
  kind: 'artifactType',
  table: 'artifact_type',
  word: 'Artifact type',
  fields: [
    { name: 'id', column: 'id', type: 'integer', description: 'The ID of the artifact type', write: 'never' },
    { name: 'name', column: 'name', type: 'text', description: 'The name of the artifact type', write: 'never' },
    { name: 'dataType', column: 'data_type', type: 'text', description: 'The kind of data the type holds (String, FileUpload …)', write: 'never' },
    { name: 'intelType', column: 'intel_type', type: 'text', description: 'The indicator type the artifact type maps to', write: 'never' },
    { name: 'description', column: 'description', type: 'text', description: 'A description of the artifact type', write: 'never' },
    { name: 'active', column: 'active', type: 'boolean', description: 'Whether new artifacts may use the type', write: 'never' },
  ],
})

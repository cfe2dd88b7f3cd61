/** /v3/artifacts (evidence inside Cases) and /v3/artifactTypes (read-only). */
import {
  type ArtifactRecord, type ArtifactTypeRecord, createArtifact, deleteArtifact, deleteArtifactsMatching, listArtifactTypes, listArtifacts,
  loadArtifactTypes, loadArtifacts, updateArtifact,
} from '../../../domain/cases/artifacts.js'
import { toApiTime } from '../../../domain/time.js'
import type { FieldSpec, V3Endpoint } from '../endpoint.js'
import { itemOptions } from '../fields.js'
import { compact } from '../present-metadata.js'

const ARTIFACT_FIELDS: FieldSpec[] = [
  { name: 'id', type: 'Integer', description: 'The ID of the Artifact', readOnly: true },
  { name: 'caseId', type: 'Integer', description: 'The ID of the Case holding the Artifact (or give caseXid)', required: true, updatable: false },
  { name: 'caseXid', type: 'String', description: 'The XID of the Case holding the Artifact (instead of caseId)', updatable: false },
  { name: 'summary', type: 'String', description: 'The data of the Artifact', required: true },
  { name: 'type', type: 'String', description: 'The artifact type name (see /v3/artifactTypes)', required: true, updatable: false },
  { name: 'source', type: 'String', description: 'Who or what added the Artifact' },
  { name: 'fieldName', type: 'String', description: 'The name of the Artifact field within its Task' },
  { name: 'taskId', type: 'Integer', description: 'The ID of the Task of the same Case the Artifact belongs to' },
  { name: 'notes', type: 'Note', description: 'New notes to add to the Artifact', list: true },
  { name: 'associatedGroups', type: 'Group', description: 'Groups associated with the Artifact', list: true },
  { name: 'associatedIndicators', type: 'Indicator', description: 'Indicators associated with the Artifact', list: true },
  { name: 'intelType', type: 'String', description: 'The indicator type the artifact type maps to', readOnly: true },
  { name: 'analyticsScore', type: 'Integer', description: 'Analytics score of the Artifact', readOnly: true },
  { name: 'dateAdded', type: 'Date', description: 'When the Artifact was created', readOnly: true },
  { name: 'lastModified', type: 'Date', description: 'When the Artifact was last changed', readOnly: true },
]

function presentArtifact(a: ArtifactRecord): Record<string, unknown> {
  return compact({
    id: a.id, summary: a.summary, type: a.type, intelType: a.intelType, caseId: a.caseId, caseXid: a.caseXid, taskId: a.taskId,
    source: a.source, fieldName: a.fieldName, analyticsScore: a.analyticsScore, dateAdded: toApiTime(a.dateAdded),
    lastModified: toApiTime(a.lastModified),
  })
}

export const ARTIFACTS: V3Endpoint<ArtifactRecord> = {
  path: 'artifacts', kind: 'artifact', tqlType: 'artifacts', word: 'Artifact', fields: ARTIFACT_FIELDS,
  options: itemOptions('artifact', 'artifact', [], ['associatedCases', 'associatedGroups', 'associatedIndicators']),
  present: presentArtifact, list: listArtifacts, load: loadArtifacts, create: createArtifact, update: updateArtifact, remove: deleteArtifact,
  removeMatching: deleteArtifactsMatching,
}

const ARTIFACT_TYPE_FIELDS: FieldSpec[] = [
  { name: 'id', type: 'Integer', description: 'The ID of the artifact type', readOnly: true },
  { name: 'name', type: 'String', description: 'The name of the artifact type', readOnly: true },
  { name: 'dataType', type: 'String', description: 'The kind of data the type holds (String, FileUpload …)', readOnly: true },
  { name: 'intelType', type: 'String', description: 'The indicator type the artifact type maps to', readOnly: true },
  { name: 'description', type: 'String', description: 'A description of the artifact type', readOnly: true },
  { name: 'active', type: 'Boolean', description: 'Whether new artifacts may use the type', readOnly: true },
]

function presentArtifactType(t: ArtifactTypeRecord): Record<string, unknown> {
  return compact({ id: t.id, name: t.name, dataType: t.dataType, intelType: t.intelType, description: t.description, active: t.active })
}

export const ARTIFACT_TYPES: V3Endpoint<ArtifactTypeRecord> = {
  path: 'artifactTypes', word: 'Artifact type', fields: ARTIFACT_TYPE_FIELDS, options: [],
  present: presentArtifactType, list: listArtifactTypes, load: loadArtifactTypes,
}

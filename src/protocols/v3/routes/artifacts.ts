/** /v3/artifacts (evidence inside Cases) and /v3/artifactTypes (read-only). */
import {
  type ArtifactRecord,
  type ArtifactTypeRecord,
  createArtifact,
  deleteArtifact,
  deleteArtifactsMatching,
  listArtifactTypes,
  listArtifacts,
  loadArtifactTypes,
  loadArtifacts,
  updateArtifact,
} from '../../../domain/cases/artifacts.js'
import { toApiTime } from '../../../core/time.js'
import { ARTIFACT, ARTIFACT_TYPE } from '../../../model/artifact.js'
import { type V3Endpoint, declaredBodyFields } from '../endpoint.js'
import { itemOptions } from '../fields.js'
import { compact } from '../present-metadata.js'

function presentArtifact(a: ArtifactRecord): Record<string, unknown> {
  return compact({
    id: a.id,
    summary: a.summary,
    type: a.type,
    intelType: a.intelType,
    caseId: a.caseId,
    caseXid: a.caseXid,
    taskId: a.taskId,
    source: a.source,
    fieldName: a.fieldName,
    analyticsScore: a.analyticsScore,
    dateAdded: toApiTime(a.dateAdded),
    lastModified: toApiTime(a.lastModified),
  })
}

export const ARTIFACTS: V3Endpoint<ArtifactRecord> = {
  path: 'artifacts',
  kind: 'artifact',
  tqlType: 'artifacts',
  word: 'Artifact',
  fields: declaredBodyFields(ARTIFACT),
  options: itemOptions('artifact', 'artifact', [], ['associatedCases', 'associatedGroups', 'associatedIndicators']),
  present: presentArtifact,
  list: listArtifacts,
  load: loadArtifacts,
  create: createArtifact,
  update: updateArtifact,
  remove: deleteArtifact,
  removeMatching: deleteArtifactsMatching,
}

function presentArtifactType(t: ArtifactTypeRecord): Record<string, unknown> {
  return compact({
    id: t.id,
    name: t.name,
    dataType: t.dataType,
    intelType: t.intelType,
    description: t.description,
    active: t.active,
  })
}

export const ARTIFACT_TYPES: V3Endpoint<ArtifactTypeRecord> = {
  path: 'artifactTypes',
  word: 'Artifact type',
  fields: declaredBodyFields(ARTIFACT_TYPE),
  options: [],
  present: presentArtifactType,
  list: listArtifactTypes,
  load: loadArtifactTypes,
}

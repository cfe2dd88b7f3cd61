/** /v3/cases: case management Cases. */
import { type CaseRecord, createCase, deleteCase, deleteCasesMatching, listCases, loadCases, updateCase } from '../../../domain/cases/cases.js'
import { CASE_RESOLUTIONS, CASE_SEVERITIES, CASE_STATUSES } from '../../../model/case-management.js'
import { toApiTime } from '../../../domain/time.js'
import { detailsLink } from '../../http/links.js'
import type { FieldSpec, V3Endpoint } from '../endpoint.js'
import { itemOptions } from '../fields.js'
import { compact, presentUser } from '../present-metadata.js'

const CASE_FIELDS: FieldSpec[] = [
  { name: 'id', type: 'Integer', description: 'The ID of the Case', readOnly: true },
  { name: 'xid', type: 'String', description: 'A unique external ID of the Case', updatable: false },
  { name: 'name', type: 'String', description: 'The name of the Case', required: true },
  { name: 'description', type: 'String', description: 'A description of the Case' },
  { name: 'severity', type: 'String', description: 'The severity of the Case', required: true, values: CASE_SEVERITIES },
  { name: 'status', type: 'String', description: 'The status of the Case', required: true, values: CASE_STATUSES },
  { name: 'resolution', type: 'String', description: 'The resolution of the Case', values: CASE_RESOLUTIONS },
  { name: 'caseOpenTime', type: 'Date', description: 'When the Case was opened (default: on creation)' },
  { name: 'caseCloseTime', type: 'Date', description: 'When the Case was closed (default: when its status becomes Closed)' },
  { name: 'caseOccurrenceTime', type: 'Date', description: 'When the incident or threat occurred' },
  { name: 'caseDetectionTime', type: 'Date', description: 'When the incident or threat was detected' },
  { name: 'assignee', type: 'Assignee', description: 'The user assigned to the Case: {"type": "User", "data": {"userName": "…"}} or {"type": "None"}' },
  { name: 'tags', type: 'Tag', description: 'Tags applied to the Case (a nested list replaces the Case\'s tags unless mode says otherwise)', list: true },
  { name: 'securityLabels', type: 'SecurityLabel', description: 'Security labels applied to the Case', list: true },
  { name: 'attributes', type: 'CaseAttribute', description: 'Attributes of the Case', list: true },
  { name: 'artifacts', type: 'Artifact', description: 'New artifacts to add to the Case', list: true },
  { name: 'notes', type: 'Note', description: 'New notes to add to the Case', list: true },
  { name: 'associatedArtifacts', type: 'Artifact', description: 'Artifacts associated with the Case', list: true },
  { name: 'associatedCases', type: 'Case', description: 'Cases associated with the Case', list: true },
  { name: 'associatedGroups', type: 'Group', description: 'Groups associated with the Case', list: true },
  { name: 'associatedIndicators', type: 'Indicator', description: 'Indicators associated with the Case', list: true },
  { name: 'createdBy', type: 'User', description: 'The user who created the Case', readOnly: true },
  { name: 'owner', type: 'String', description: 'The name of the Case\'s owner', readOnly: true },
  { name: 'ownerId', type: 'Integer', description: 'The ID of the Case\'s owner', readOnly: true },
  { name: 'dateAdded', type: 'Date', description: 'When the Case was created', readOnly: true },
  { name: 'lastUpdated', type: 'Date', description: 'When the Case was last changed', readOnly: true },
  { name: 'webLink', type: 'String', description: 'Link to the Case\'s details page', readOnly: true },
]

function presentCase(c: CaseRecord, { ctx }: { ctx: { services: { publicUrl: string } } }): Record<string, unknown> {
  return compact({
    id: c.id, xid: c.xid, name: c.name, description: c.description, dateAdded: toApiTime(c.dateAdded), lastUpdated: toApiTime(c.lastUpdated),
    caseOpenTime: toApiTime(c.caseOpenTime), caseCloseTime: toApiTime(c.caseCloseTime), caseOccurrenceTime: toApiTime(c.caseOccurrenceTime),
    caseDetectionTime: toApiTime(c.caseDetectionTime), status: c.status, severity: c.severity, resolution: c.resolution,
    assignee: c.assignee ? { type: 'User', data: presentUser(c.assignee) } : undefined, createdBy: presentUser(c.createdBy),
    owner: c.ownerName, ownerId: c.ownerId, webLink: detailsLink(ctx.services.publicUrl, 'cases', c.id),
  })
}

export const CASES: V3Endpoint<CaseRecord> = {
  path: 'cases', kind: 'case', tqlType: 'cases', word: 'Case', fields: CASE_FIELDS,
  options: itemOptions('case', 'case', ['attributes', 'tags', 'securityLabels'],
    ['associatedArtifacts', 'associatedCases', 'associatedGroups', 'associatedIndicators']),
  present: presentCase, list: listCases, load: loadCases, create: createCase, update: updateCase, remove: deleteCase,
  removeMatching: deleteCasesMatching,
}

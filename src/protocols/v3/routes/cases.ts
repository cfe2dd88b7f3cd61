/** /v3/cases: case management Cases. */
import {
  type CaseRecord,
  createCase,
  deleteCase,
  deleteCasesMatching,
  listCases,
  loadCases,
  updateCase,
} from '../../../domain/cases/cases.js'
import { toApiTime } from '../../../core/time.js'
import { CASE } from '../../../model/case.js'
import { detailsLink } from '../../http/links.js'
import { type V3Endpoint, declaredBodyFields } from '../endpoint.js'
import { itemOptions } from '../fields.js'
import { compact, presentUser } from '../present-metadata.js'

function presentCase(c: CaseRecord, { ctx }: { ctx: { services: { publicUrl: string } } }): Record<string, unknown> {
  return compact({
    id: c.id,
    xid: c.xid,
    name: c.name,
    description: c.description,
    dateAdded: toApiTime(c.dateAdded),
    lastUpdated: toApiTime(c.lastUpdated),
    caseOpenTime: toApiTime(c.caseOpenTime),
    caseCloseTime: toApiTime(c.caseCloseTime),
    caseOccurrenceTime: toApiTime(c.caseOccurrenceTime),
    caseDetectionTime: toApiTime(c.caseDetectionTime),
    status: c.status,
    severity: c.severity,
    resolution: c.resolution,
    assignee: c.assignee ? { type: 'User', data: presentUser(c.assignee) } : undefined,
    createdBy: presentUser(c.createdBy),
    owner: c.ownerName,
    ownerId: c.ownerId,
    webLink: detailsLink(ctx.services.publicUrl, 'cases', c.id),
  })
}

export const CASES: V3Endpoint<CaseRecord> = {
  path: 'cases',
  kind: 'case',
  tqlType: 'cases',
  word: 'Case',
  fields: declaredBodyFields(CASE),
  options: itemOptions(
    'case',
    'case',
    ['attributes', 'tags', 'securityLabels'],
    ['associatedArtifacts', 'associatedCases', 'associatedGroups', 'associatedIndicators'],
  ),
  present: presentCase,
  list: listCases,
  load: loadCases,
  create: createCase,
  update: updateCase,
  remove: deleteCase,
  removeMatching: deleteCasesMatching,
}

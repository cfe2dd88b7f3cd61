/** /v3/intelRequirements: Intelligence Requirements. */
import {
  type IntelRequirementRecord,
  createIntelRequirement,
  deleteIntelRequirement,
  deleteIntelRequirementsMatching,
  listIntelRequirements,
  loadIntelRequirements,
  updateIntelRequirement,
} from '../../../domain/cases/intel-requirements.js'
import { toApiTime } from '../../../core/time.js'
import { INTEL_REQUIREMENT } from '../../../model/intel-requirement.js'
import { detailsLink } from '../../http/links.js'
import { type V3Endpoint, declaredBodyFields } from '../endpoint.js'
import { itemOptions } from '../fields.js'
import { compact, presentUser } from '../present-metadata.js'

function presentIntelRequirement(
  r: IntelRequirementRecord,
  { ctx }: { ctx: { services: { publicUrl: string } } },
): Record<string, unknown> {
  return compact({
    id: r.id,
    xid: r.xid,
    createdBy: presentUser(r.createdBy),
    lastModified: toApiTime(r.lastModified),
    webLink: detailsLink(ctx.services.publicUrl, 'intelRequirements', r.id),
    dateAdded: toApiTime(r.dateAdded),
    uniqueId: r.uniqueId,
    requirementText: r.requirementText,
    subtype: r.subtype ? { id: r.subtype.id, name: r.subtype.name, description: r.subtype.description } : undefined,
    category: r.category ?? undefined,
    description: r.description,
    keywordSections: r.keywordSections.map((s) => ({ compareValue: s.compareValue, keywords: s.keywords })),
    resetResults: r.resetResults,
    ownerId: r.ownerId,
    ownerName: r.ownerName,
  })
}

export const INTEL_REQUIREMENTS: V3Endpoint<IntelRequirementRecord> = {
  path: 'intelRequirements',
  kind: 'intelRequirement',
  tqlType: 'intelRequirements',
  word: 'Intelligence Requirement',
  fields: declaredBodyFields(INTEL_REQUIREMENT),
  options: itemOptions(
    'intelRequirement',
    'requirement',
    ['tags'],
    ['associatedArtifacts', 'associatedCases', 'associatedGroups', 'associatedIndicators', 'associatedVictimAssets'],
  ),
  present: presentIntelRequirement,
  list: listIntelRequirements,
  load: loadIntelRequirements,
  create: createIntelRequirement,
  update: updateIntelRequirement,
  remove: deleteIntelRequirement,
  removeMatching: deleteIntelRequirementsMatching,
}

/** /v3/intelRequirements: Intelligence Requirements. */
import {
  type IntelRequirementRecord, createIntelRequirement, deleteIntelRequirement, deleteIntelRequirementsMatching, listIntelRequirements,
  loadIntelRequirements, updateIntelRequirement,
} from '../../../domain/cases/intel-requirements.js'
import { toApiTime } from '../../../domain/time.js'
import { detailsLink } from '../../http/links.js'
import type { FieldSpec, V3Endpoint } from '../endpoint.js'
import { itemOptions } from '../fields.js'
import { compact, presentUser } from '../present-metadata.js'

const IR_FIELDS: FieldSpec[] = [
  { name: 'id', type: 'Integer', description: 'The ID of the requirement', readOnly: true },
  { name: 'xid', type: 'String', description: 'A unique external ID', updatable: false },
  { name: 'uniqueId', type: 'String', description: 'The requirement\'s own identifier, unique in the owner (e.g. IR-010)', required: true },
  { name: 'requirementText', type: 'String', description: 'The question or topic, unique in the owner', required: true },
  { name: 'subtype', type: 'Object', description: 'The subtype by id: 1 IR, 2 PIR, 3 SIR, 4 RFI', required: true },
  { name: 'category', type: 'Object', description: 'The category by name: {"name": "…"}' },
  { name: 'description', type: 'String', description: 'A description of the requirement' },
  { name: 'keywordSections', type: 'Array', description: 'Keyword sections: [{compareValue: includes|excludes, keywords: [{value}], sectionNumber}]', required: true },
  { name: 'resetResults', type: 'Boolean', description: 'Include archived and false results the next time results are gathered' },
  { name: 'tags', type: 'Tag', description: 'Tags applied to the requirement', list: true },
  { name: 'associatedArtifacts', type: 'Artifact', description: 'Artifacts associated with the requirement', list: true },
  { name: 'associatedCases', type: 'Case', description: 'Cases associated with the requirement', list: true },
  { name: 'associatedGroups', type: 'Group', description: 'Groups associated with the requirement', list: true },
  { name: 'associatedIndicators', type: 'Indicator', description: 'Indicators associated with the requirement', list: true },
  { name: 'associatedVictimAssets', type: 'VictimAsset', description: 'Victim assets associated with the requirement', list: true },
  { name: 'createdBy', type: 'User', description: 'The user who created the requirement', readOnly: true },
  { name: 'dateAdded', type: 'Date', description: 'When the requirement was created', readOnly: true },
  { name: 'lastModified', type: 'Date', description: 'When the requirement was last changed', readOnly: true },
  { name: 'webLink', type: 'String', description: 'Link to the requirement\'s details page', readOnly: true },
]

function presentIntelRequirement(r: IntelRequirementRecord, { ctx }: { ctx: { services: { publicUrl: string } } }): Record<string, unknown> {
  return compact({
    id: r.id, xid: r.xid, createdBy: presentUser(r.createdBy), lastModified: toApiTime(r.lastModified),
    webLink: detailsLink(ctx.services.publicUrl, 'intelRequirements', r.id), dateAdded: toApiTime(r.dateAdded), uniqueId: r.uniqueId,
    requirementText: r.requirementText, subtype: r.subtype ? { id: r.subtype.id, name: r.subtype.name, description: r.subtype.description } : undefined,
    category: r.category ?? undefined, description: r.description,
    keywordSections: r.keywordSections.map((s) => ({ compareValue: s.compareValue, keywords: s.keywords })), resetResults: r.resetResults,
    ownerId: r.ownerId, ownerName: r.ownerName,
  })
}

export const INTEL_REQUIREMENTS: V3Endpoint<IntelRequirementRecord> = {
  path: 'intelRequirements', kind: 'intelRequirement', tqlType: 'intelRequirements', word: 'Intelligence Requirement', fields: IR_FIELDS,
  options: itemOptions('intelRequirement', 'requirement', ['tags'],
    ['associatedArtifacts', 'associatedCases', 'associatedGroups', 'associatedIndicators', 'associatedVictimAssets']),
  present: presentIntelRequirement, list: listIntelRequirements, load: loadIntelRequirements, create: createIntelRequirement,
  update: updateIntelRequirement, remove: deleteIntelRequirement, removeMatching: deleteIntelRequirementsMatching,
}

/** TQL keywords of the attribute endpoints (/v3/groupAttributes and the like) and /v3/intelRequirements. */
import { ATTRIBUTE } from '../../model/attribute.js'
import { INTEL_REQUIREMENT } from '../../model/intel-requirement.js'
import type { ItemKind } from '../../model/kinds.js'
import { type ObjectTypeDef, column, kw } from './define.js'
import {
  associationKeywords,
  declaredKeywords,
  declaredKeywordsWithOwner,
  ownerKeywords,
  tagKeywords,
} from './shared.js'

function attributeType(name: string, kind: ItemKind, parentKeyword: string, parent: string): ObjectTypeDef {
  return {
    name,
    table: ATTRIBUTE.table,
    kind: 'attribute',
    restrict: { column: 'item_kind', value: kind },
    keywords: [
      ...declaredKeywords(ATTRIBUTE, ['id']),
      kw(
        parentKeyword,
        `${parent} ID`,
        'Integer',
        column('item_id'),
        `The ID of the ${parent} the attribute belongs to.`,
      ),
      ...declaredKeywords(ATTRIBUTE, ['typeId', 'type', 'value', 'source', 'default', 'pinned']),
      ...ownerKeywords('attribute'),
      ...declaredKeywords(ATTRIBUTE, ['dateAdded', 'lastModified']),
    ],
  }
}

export const GROUP_ATTRIBUTE_KEYWORDS = attributeType('groupAttributes', 'group', 'groupId', 'Group')
export const INDICATOR_ATTRIBUTE_KEYWORDS = attributeType(
  'indicatorAttributes',
  'indicator',
  'indicatorId',
  'Indicator',
)
export const VICTIM_ATTRIBUTE_KEYWORDS = attributeType('victimAttributes', 'victim', 'victimId', 'Victim')
export const CASE_ATTRIBUTE_KEYWORDS = attributeType('caseAttributes', 'case', 'caseId', 'Case')

export const INTEL_REQUIREMENT_KEYWORDS: ObjectTypeDef = {
  name: 'intelRequirements',
  table: INTEL_REQUIREMENT.table,
  kind: 'intelRequirement',
  keywords: [
    ...declaredKeywordsWithOwner(INTEL_REQUIREMENT, 'intel requirement'),
    ...tagKeywords('intelRequirement', 'intel requirement'),
    ...associationKeywords('intelRequirement', ['group', 'indicator', 'case', 'artifact', 'victimAsset']),
  ],
}

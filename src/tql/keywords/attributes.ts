/** TQL keywords of the attribute endpoints (/v3/groupAttributes and the like) and /v3/intelRequirements. */
import { expressionBuilder } from 'kysely'
import type { ItemKind } from '../../model/kinds.js'
import { type ObjectTypeDef, column, computed, kw } from './define.js'
import { associationKeywords, dateKeywords, ownerKeywords, tagKeywords } from './shared.js'

const eb = expressionBuilder<any, any>()

function attributeType(name: string, kind: ItemKind, parentKeyword: string, parent: string): ObjectTypeDef {
  return {
    name,
    table: 'attribute',
    kind: 'attribute',
    restrict: { column: 'item_kind', value: kind },
    keywords: [
      kw('id', 'ID', 'Integer', column('id'), 'The ID of the attribute.'),
      kw(parentKeyword, `${parent} ID`, 'Integer', column('item_id'), `The ID of the ${parent} the attribute belongs to.`),
      kw('type', 'Type ID', 'Integer', column('type_id'), 'The ID of the attribute type.', { groupable: true }),
      kw('typeName', 'Type Name', 'StringLower', computed((alias) => eb.selectFrom(`attribute_type as ${alias}_type`).select(`${alias}_type.name`)
        .whereRef(`${alias}_type.id`, '=', `${alias}.type_id`)), 'The name of the attribute type.', { groupable: true }),
      kw('value', 'Value', 'String', column('value'), 'The value of the attribute.'),
      kw('source', 'Source', 'String', column('source'), 'The source of the attribute.'),
      kw('displayed', 'Displayed', 'Boolean', column('displayed'), 'Whether the attribute is displayed.'),
      kw('pinned', 'Pinned', 'Boolean', column('pinned'), 'Whether the attribute is pinned.'),
      ...ownerKeywords('attribute'),
      ...dateKeywords([
        ['dateAdded', 'Date Added', 'date_added', 'The date the attribute was added.'],
        ['lastModified', 'Last Modified', 'last_modified', 'The date the attribute was last modified.'],
      ]),
    ],
  }
}

export const GROUP_ATTRIBUTE_KEYWORDS = attributeType('groupAttributes', 'group', 'groupId', 'Group')
export const INDICATOR_ATTRIBUTE_KEYWORDS = attributeType('indicatorAttributes', 'indicator', 'indicatorId', 'Indicator')
export const VICTIM_ATTRIBUTE_KEYWORDS = attributeType('victimAttributes', 'victim', 'victimId', 'Victim')
export const CASE_ATTRIBUTE_KEYWORDS = attributeType('caseAttributes', 'case', 'caseId', 'Case')

export const INTEL_REQUIREMENT_KEYWORDS: ObjectTypeDef = {
  name: 'intelRequirements',
  table: 'intel_requirement',
  kind: 'intelRequirement',
  keywords: [
    kw('id', 'ID', 'Integer', column('id'), 'The ID of the intel requirement.'),
    ...ownerKeywords('intel requirement'),
    kw('xid', 'XID', 'String', column('xid'), 'The external ID of the intel requirement.'),
    kw('uniqueId', 'Unique ID', 'String', column('unique_id'), 'The unique ID of the intel requirement.'),
    kw('summary', 'Summary', 'StringLower', column('requirement_text'), 'The requirement text (compared case-insensitively).'),
    kw('requirementText', 'Requirement Text', 'StringLower', column('requirement_text'), 'The requirement text; the same as summary.'),
    kw('category', 'Category', 'String', column('category'), 'The category of the intel requirement.', { groupable: true }),
    kw('subtype', 'Subtype', 'String', column('subtype'), 'The subtype of the intel requirement.', { groupable: true }),
    kw('description', 'Description', 'String', column('description'), 'The description of the intel requirement.'),
    ...dateKeywords([
      ['dateAdded', 'Date Added', 'date_added', 'The date the intel requirement was created.'],
      ['lastModified', 'Last Modified', 'last_modified', 'The date the intel requirement was last modified.'],
    ]),
    ...tagKeywords('intelRequirement', 'intel requirement'),
    ...associationKeywords('intelRequirement', ['group', 'indicator', 'case', 'artifact', 'victimAsset']),
  ],
}

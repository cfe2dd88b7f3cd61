/** TQL keywords of /v3/tags (the platform's 21) and /v3/securityLabels. */
import { ITEM_TABLES, type ItemKind } from '../../model/kinds.js'
import { type KeywordDef, type ObjectTypeDef, column, kw } from './define.js'
import { OBJECT_TYPE_OF_KIND, ownerKeywords } from './shared.js'

function taggedKeywords(kinds: readonly [ItemKind, string][], via: 'taggedItem' | 'labelledItem', what: string): KeywordDef[] {
  return kinds.flatMap(([kind, label]) => {
    const link = { via, kind } as const
    const objectType = OBJECT_TYPE_OF_KIND[kind]!
    return [
      kw(`associated${label}`, `Associated ${label} ID`, 'Integer', { kind: 'related', link, table: ITEM_TABLES[kind], source: { column: 'id' } },
        `The ID of a ${label} that carries the ${what}.`),
      kw(`has${label}`, `Associated ${label}`, 'Sub Query', { kind: 'nested', link, objectType }, `A nested query for ${label}s that carry the ${what}.`),
    ]
  })
}

export const TAG_KEYWORDS: ObjectTypeDef = {
  name: 'tags',
  table: 'tag',
  kind: null,
  keywords: [
    kw('id', 'ID', 'Integer', column('id'), 'The ID of the tag.'),
    kw('name', 'Name', 'StringLower', column('name'), 'The name of the tag (compared case-insensitively).'),
    kw('summary', 'Summary', 'StringLower', column('name'), 'The name of the tag; the same as name.'),
    kw('description', 'Description', 'String', column('description'), 'The description of the tag.'),
    kw('techniqueId', 'Technique ID', 'String', column('technique_id'), 'The ATT&CK technique ID of the tag.'),
    kw('lastUsed', 'Last Used', 'Date', column('last_used'), 'The date the tag was last applied.'),
    ...ownerKeywords('tag'),
    ...taggedKeywords([['case', 'Case'], ['group', 'Group'], ['indicator', 'Indicator'], ['victim', 'Victim']], 'taggedItem', 'tag'),
    kw('caseId', 'Case ID', 'Integer', { kind: 'related', link: { via: 'taggedItem', kind: 'case' }, table: 'intel_case', source: { column: 'id' } },
      'The ID of a case that carries the tag; the same as associatedCase.'),
    // The platform rates ATT&CK techniques for financial risk and security coverage; Bulwark keeps no such data,
    // so these keywords behave as always null (IS NULL matches every tag).
    kw('financialRisk', 'Financial Risk', 'String', { kind: 'absent' }, 'Financial risk rating of an ATT&CK technique (not recorded; always null).'),
    kw('financialRiskScore', 'Financial Risk Score', 'Integer', { kind: 'absent' }, 'Financial risk score (not recorded; always null).'),
    kw('financialRiskValue', 'Financial Risk Value', 'Integer', { kind: 'absent' }, 'Financial risk value (not recorded; always null).'),
    kw('securityCoverage', 'Security Coverage', 'String', { kind: 'absent' }, 'Security coverage of an ATT&CK technique (not recorded; always null).'),
  ],
}

export const SECURITY_LABEL_KEYWORDS: ObjectTypeDef = {
  name: 'securityLabels',
  table: 'security_label',
  kind: null,
  keywords: [
    kw('id', 'ID', 'Integer', column('id'), 'The ID of the security label.'),
    kw('name', 'Name', 'StringLower', column('name'), 'The name of the security label (compared case-insensitively).'),
    kw('summary', 'Summary', 'StringLower', column('name'), 'The name of the security label; the same as name.'),
    kw('description', 'Description', 'String', column('description'), 'The description of the security label.'),
    kw('color', 'Color', 'String', column('color'), 'The color of the security label (hex).'),
    kw('dateAdded', 'Date Added', 'Date', column('date_added'), 'The date the security label was created.'),
    ...ownerKeywords('security label'),
    ...taggedKeywords([['group', 'Group'], ['indicator', 'Indicator'], ['victim', 'Victim'], ['case', 'Case']], 'labelledItem', 'security label'),
  ],
}

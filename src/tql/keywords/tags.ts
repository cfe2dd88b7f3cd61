/** TQL keywords of /v3/tags (the platform's 21) and /v3/securityLabels. */
import { ITEM_TABLES, type ItemKind } from '../../model/kinds.js'
import { SECURITY_LABEL } from '../../model/security-label.js'
import { TAG } from '../../model/tag.js'
import { type KeywordDef, type ObjectTypeDef, column, kw } from './define.js'
import { OBJECT_TYPE_OF_KIND, declaredKeywords, ownerKeywords } from './shared.js'

function taggedKeywords(
  kinds: readonly [ItemKind, string][],
  via: 'taggedItem' | 'labelledItem',
  what: string,
): KeywordDef[] {
  return kinds.flatMap(([kind, label]) => {
    const link = { via, kind } as const
    const objectType = OBJECT_TYPE_OF_KIND[kind]!
    return [
      kw(
        `associated${label}`,
        `Associated ${label} ID`,
        'Integer',
        { kind: 'related', link, table: ITEM_TABLES[kind], source: { column: 'id' } },
        `The ID of a ${label} that carries the ${what}.`,
      ),
      kw(
        `has${label}`,
        `Associated ${label}`,
        'Sub Query',
        { kind: 'nested', link, objectType },
        `A nested query for ${label}s that carry the ${what}.`,
      ),
    ]
  })
}

export const TAG_KEYWORDS: ObjectTypeDef = {
  name: 'tags',
  table: TAG.table,
  kind: null,
  keywords: [
    ...declaredKeywords(TAG),
    ...ownerKeywords('tag'),
    ...taggedKeywords(
      [
        ['case', 'Case'],
        ['group', 'Group'],
        ['indicator', 'Indicator'],
        ['victim', 'Victim'],
      ],
      'taggedItem',
      'tag',
    ),
    kw(
      'caseId',
      'Case ID',
      'Integer',
      { kind: 'related', link: { via: 'taggedItem', kind: 'case' }, table: 'intel_case', source: { column: 'id' } },
      'The ID of a case that carries the tag; the same as associatedCase.',
    ),
    // The platform rates ATT&CK techniques for financial risk and security coverage; Bulwark keeps no such data,
    // so these keywords behave as always null (IS NULL matches every tag).
    kw(
      'financialRisk',
      'Financial Risk',
      'String',
      { kind: 'absent' },
      'Financial risk rating of an ATT&CK technique (not recorded; always null).',
    ),
    kw(
      'financialRiskScore',
      'Financial Risk Score',
      'Integer',
      { kind: 'absent' },
      'Financial risk score (not recorded; always null).',
    ),
    kw(
      'financialRiskValue',
      'Financial Risk Value',
      'Integer',
      { kind: 'absent' },
      'Financial risk value (not recorded; always null).',
    ),
    kw(
      'securityCoverage',
      'Security Coverage',
      'String',
      { kind: 'absent' },
      'Security coverage of an ATT&CK technique (not recorded; always null).',
    ),
  ],
}

export const SECURITY_LABEL_KEYWORDS: ObjectTypeDef = {
  name: 'securityLabels',
  table: SECURITY_LABEL.table,
  kind: null,
  keywords: [
    ...declaredKeywords(SECURITY_LABEL),
    ...ownerKeywords('security label'),
    ...taggedKeywords(
      [
        ['group', 'Group'],
        ['indicator', 'Indicator'],
        ['victim', 'Victim'],
        ['case', 'Case'],
      ],
      'labelledItem',
      'security label',
    ),
  ],
}

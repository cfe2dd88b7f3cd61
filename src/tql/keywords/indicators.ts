/** TQL keywords of /v3/indicators. */
import { expressionBuilder, sql } from 'kysely'
import { INDICATOR } from '../../model/indicator.js'
import { type ObjectTypeDef, computed, kw } from './define.js'
import {
  associationKeywords,
  associationSourceKeywords,
  attributeKeywords,
  declaredKeywords,
  insertKeywordsAfter,
  labelKeywords,
  ownerKeywords,
  tagKeywords,
} from './shared.js'

const eb = expressionBuilder<any, any>()

const isIpv6 = kw(
  'addressIsIpv6',
  'Type (Address)',
  'Boolean',
  computed((alias) =>
    eb
      .case()
      .when(eb.and([eb(`${alias}.type`, '=', sql.lit('Address')), eb(`${alias}.summary`, 'like', sql.lit('%:%'))]))
      .then(eb.lit(1))
      .when(`${alias}.type`, '=', sql.lit('Address'))
      .then(eb.lit(0))
      .end(),
  ),
  'Whether an address is IPv6.',
)

/** The column keywords come from the declaration (model/indicator.ts); owner, IPv6 and the relations are composed here. */
const columnKeywords = insertKeywordsAfter(
  insertKeywordsAfter(declaredKeywords(INDICATOR), 'id', ownerKeywords('indicator')),
  'addressAsn',
  [isIpv6],
)

export const INDICATOR_KEYWORDS: ObjectTypeDef = {
  name: 'indicators',
  table: INDICATOR.table,
  kind: 'indicator',
  keywords: [
    ...columnKeywords,
    ...tagKeywords('indicator', 'indicator'),
    ...labelKeywords('indicator', 'indicator'),
    ...attributeKeywords('indicator', 'indicatorAttributes'),
    ...associationKeywords('indicator', [
      'group',
      'indicator',
      'case',
      'artifact',
      'victim',
      'victimAsset',
      'intelRequirement',
    ]),
    ...associationSourceKeywords('indicator'),
    kw(
      'hasCustomAssociation',
      'Custom Association',
      'Integer',
      {
        kind: 'related',
        link: { via: 'association', from: 'indicator', to: 'indicator', customOnly: true },
        table: 'indicator',
        source: { column: 'id' },
      },
      'The ID of an indicator associated through a custom association type.',
    ),
  ],
}

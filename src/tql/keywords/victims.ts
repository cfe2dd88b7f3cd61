/** TQL keywords of /v3/victims and /v3/victimAssets. */
import { findVictimAssetType } from '../../model/group-types.js'
import { VICTIM, VICTIM_ASSET } from '../../model/victim.js'
import { type ObjectTypeDef, kw } from './define.js'
import {
  associationKeywords,
  attributeKeywords,
  declaredKeywords,
  labelKeywords,
  ownerKeywords,
  tagKeywords,
} from './shared.js'

const canonicalAssetType = (value: string) => findVictimAssetType(value)?.name ?? value
const assets = { via: 'reverseKey', column: 'victim_id' } as const

export const VICTIM_KEYWORDS: ObjectTypeDef = {
  name: 'victims',
  table: VICTIM.table,
  kind: 'victim',
  keywords: [
    ...declaredKeywords(VICTIM, ['id']),
    ...ownerKeywords('victim'),
    ...declaredKeywords(VICTIM, (f) => f.name !== 'id'),
    kw(
      'assetName',
      'Asset Name',
      'String',
      { kind: 'related', link: assets, table: 'victim_asset', source: { column: 'value' } },
      "The value of one of the victim's assets (an address, account, phone number or website).",
    ),
    kw(
      'assetTypeName',
      'Asset Type Name',
      'StringLower',
      { kind: 'related', link: assets, table: 'victim_asset', source: { column: 'type' } },
      "The type of one of the victim's assets (EmailAddress, NetworkAccount, Phone, SocialNetwork, WebSite).",
      { normalize: canonicalAssetType },
    ),
    kw(
      'hasVictimAsset',
      'Victim Asset',
      'Sub Query',
      { kind: 'nested', link: assets, objectType: 'victimAssets' },
      "A nested query for the victim's assets.",
    ),
    ...tagKeywords('victim', 'victim'),
    ...labelKeywords('victim', 'victim'),
    ...attributeKeywords('victim', 'victimAttributes'),
    ...associationKeywords('victim', ['group', 'victim']),
  ],
}

export const VICTIM_ASSET_KEYWORDS: ObjectTypeDef = {
  name: 'victimAssets',
  table: VICTIM_ASSET.table,
  kind: 'victimAsset',
  keywords: [
    ...declaredKeywords(VICTIM_ASSET, ['id']),
    ...ownerKeywords('victim asset'),
    ...declaredKeywords(VICTIM_ASSET, ['victimId', 'type', 'value', 'dateAdded']),
    kw(
      'hasVictim',
      'Victim',
      'Sub Query',
      { kind: 'nested', link: { via: 'foreignKey', column: 'victim_id' }, objectType: 'victims' },
      'A nested query for the victim the asset belongs to.',
    ),
    ...associationKeywords('victimAsset', ['group']),
  ],
}

/** TQL keywords of /v3/victims and /v3/victimAssets. */
import { findVictimAssetType } from '../../model/group-types.js'
import { type ObjectTypeDef, column, kw } from './define.js'
import { associationKeywords, attributeKeywords, dateKeywords, labelKeywords, ownerKeywords, tagKeywords } from './shared.js'

const canonicalAssetType = (value: string) => findVictimAssetType(value)?.name ?? value
const assets = { via: 'reverseKey', column: 'victim_id' } as const

export const VICTIM_KEYWORDS: ObjectTypeDef = {
  name: 'victims',
  table: 'victim',
  kind: 'victim',
  keywords: [
    kw('id', 'ID', 'Integer', column('id'), 'The ID of the victim.'),
    ...ownerKeywords('victim'),
    kw('name', 'Name', 'StringLower', column('name'), 'The name of the victim (compared case-insensitively).'),
    kw('summary', 'Summary', 'StringLower', column('name'), 'The name of the victim; the same as name.'),
    kw('description', 'Description', 'String', column('description'), 'The description of the victim.'),
    kw('organization', 'Organization', 'String', column('org'), 'The organization of the victim.'),
    kw('subOrg', 'Sub-organization', 'String', column('suborg'), 'The sub-organization of the victim.'),
    kw('workLocation', 'Work Location', 'String', column('work_location'), 'The work location of the victim.'),
    kw('nationality', 'Nationality', 'String', column('nationality'), 'The nationality of the victim.'),
    ...dateKeywords([
      ['dateAdded', 'Date Added', 'date_added', 'The date the victim was added.'],
      ['lastModified', 'Last Modified', 'last_modified', 'The date the victim was last modified.'],
    ]),
    kw('assetName', 'Asset Name', 'String', { kind: 'related', link: assets, table: 'victim_asset', source: { column: 'value' } },
      'The value of one of the victim\'s assets (an address, account, phone number or website).'),
    kw('assetTypeName', 'Asset Type Name', 'StringLower', { kind: 'related', link: assets, table: 'victim_asset', source: { column: 'type' } },
      'The type of one of the victim\'s assets (EmailAddress, NetworkAccount, Phone, SocialNetwork, WebSite).', { normalize: canonicalAssetType }),
    kw('hasVictimAsset', 'Victim Asset', 'Sub Query', { kind: 'nested', link: assets, objectType: 'victimAssets' }, 'A nested query for the victim\'s assets.'),
    ...tagKeywords('victim', 'victim'),
    ...labelKeywords('victim', 'victim'),
    ...attributeKeywords('victim', 'victimAttributes'),
    ...associationKeywords('victim', ['group', 'victim']),
  ],
}

export const VICTIM_ASSET_KEYWORDS: ObjectTypeDef = {
  name: 'victimAssets',
  table: 'victim_asset',
  kind: 'victimAsset',
  keywords: [
    kw('id', 'ID', 'Integer', column('id'), 'The ID of the victim asset.'),
    ...ownerKeywords('victim asset'),
    kw('victimId', 'Victim ID', 'Integer', column('victim_id'), 'The ID of the victim the asset belongs to.'),
    kw('typeName', 'Type Name', 'String', column('type'), 'The asset type (EmailAddress, NetworkAccount, Phone, SocialNetwork, WebSite).',
      { groupable: true, normalize: canonicalAssetType }),
    kw('type', 'Type', 'String', column('type'), 'The asset type; the same as typeName.', { groupable: true, normalize: canonicalAssetType }),
    kw('summary', 'Summary', 'String', column('value'), 'The value of the asset.'),
    kw('dateAdded', 'Date Added', 'Date', column('date_added'), 'The date the asset was added.'),
    kw('hasVictim', 'Victim', 'Sub Query', { kind: 'nested', link: { via: 'foreignKey', column: 'victim_id' }, objectType: 'victims' },
      'A nested query for the victim the asset belongs to.'),
    ...associationKeywords('victimAsset', ['group']),
  ],
}

/** /v3/victimAssets: email addresses, network accounts, phones, social networks and web sites of Victims. */
import {
  createVictimAssetObject, deleteVictimAssetObject, deleteVictimAssetsMatching, listVictimAssetObjects, loadVictimAssetRecords,
  updateVictimAssetObject,
} from '../../../domain/victims/objects.js'
import type { VictimAssetRecord } from '../../../domain/victims/victim-assets.js'
import { VICTIM_ASSET_TYPES } from '../../../model/group-types.js'
import type { FieldSpec, V3Endpoint } from '../endpoint.js'
import { itemOptions } from '../fields.js'
import { presentVictimAssetV3 } from '../present-victim.js'

const text = (name: string, what: string, extra: Partial<FieldSpec> = {}): FieldSpec => ({ name, type: 'String', description: what, ...extra })

const VICTIM_ASSET_FIELDS: FieldSpec[] = [
  text('type', 'The asset type', { required: true, updatable: false, values: VICTIM_ASSET_TYPES.map((t) => t.name) }),
  { name: 'victimId', type: 'Integer', description: 'The Victim the asset belongs to', required: true, updatable: false },
  text('address', 'The email address (EmailAddress)'),
  text('addressType', 'The kind of email address (EmailAddress)'),
  text('accountName', 'The account (NetworkAccount, SocialNetwork)'),
  text('networkType', 'The network (NetworkAccount)'),
  text('socialNetwork', 'The social network (SocialNetwork)'),
  text('phone', 'The phone number (Phone)'),
  text('website', 'The web site (WebSite)'),
  { name: 'associatedGroups', type: 'Group', description: 'Groups associated with the asset (same owner only)', list: true },
  { name: 'id', type: 'Integer', description: 'The ID of the asset', readOnly: true },
  { name: 'webLink', type: 'String', description: "Link to the asset's details page", readOnly: true },
]

export const VICTIM_ASSETS: V3Endpoint<VictimAssetRecord> = {
  path: 'victimAssets', kind: 'victimAsset', tqlType: 'victimAssets', word: 'Victim Asset', fields: VICTIM_ASSET_FIELDS,
  options: itemOptions('victimAsset', 'Victim Asset', [], ['associatedGroups']),
  present: presentVictimAssetV3, list: listVictimAssetObjects, load: loadVictimAssetRecords,
  create: createVictimAssetObject, update: updateVictimAssetObject, remove: deleteVictimAssetObject, removeMatching: deleteVictimAssetsMatching,
}

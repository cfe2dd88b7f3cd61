/** /v3/victimAssets: email addresses, network accounts, phones, social networks and web sites of Victims. */
import {
  createVictimAssetObject,
  deleteVictimAssetObject,
  deleteVictimAssetsMatching,
  listVictimAssetObjects,
  loadVictimAssetRecords,
  updateVictimAssetObject,
} from '../../../domain/victims/objects.js'
import type { VictimAssetRecord } from '../../../domain/victims/victim-assets.js'
import { VICTIM_ASSET } from '../../../model/victim.js'
import { type V3Endpoint, declaredBodyFields } from '../endpoint.js'
import { itemOptions } from '../fields.js'
import { presentVictimAssetV3 } from '../present-victim.js'

export const VICTIM_ASSETS: V3Endpoint<VictimAssetRecord> = {
  path: 'victimAssets',
  kind: 'victimAsset',
  tqlType: 'victimAssets',
  word: 'Victim Asset',
  fields: declaredBodyFields(VICTIM_ASSET),
  options: itemOptions('victimAsset', 'Victim Asset', [], ['associatedGroups']),
  present: presentVictimAssetV3,
  list: listVictimAssetObjects,
  load: loadVictimAssetRecords,
  create: createVictimAssetObject,
  update: updateVictimAssetObject,
  remove: deleteVictimAssetObject,
  removeMatching: deleteVictimAssetsMatching,
}

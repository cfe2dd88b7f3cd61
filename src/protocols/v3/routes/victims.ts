/** /v3/victims: the people and organisations targeted; `assets` may be nested on create and update. */
import {
  createVictimObject,
  deleteVictimObject,
  deleteVictimsMatching,
  listVictimObjects,
  loadAssetsOfVictims,
  loadVictimRecords,
  updateVictimObject,
} from '../../../domain/victims/objects.js'
import type { VictimRecord } from '../../../domain/victims/victims.js'
import { VICTIM } from '../../../model/victim.js'
import { type FieldOption, type V3Endpoint, declaredBodyFields } from '../endpoint.js'
import { itemOptions } from '../fields.js'
import { presentVictimAssetV3, presentVictimV3 } from '../present-victim.js'

const assets: FieldOption = {
  name: 'assets',
  description: 'Includes the assets of the Victim',
  async load(ids, _subtree, { ctx }) {
    const byVictim = await loadAssetsOfVictims(ctx, ids)
    return new Map([...byVictim].map(([id, list]) => [id, { data: list.map((a) => presentVictimAssetV3(a, { ctx })) }]))
  },
}

export const VICTIMS: V3Endpoint<VictimRecord> = {
  path: 'victims',
  kind: 'victim',
  tqlType: 'victims',
  word: 'Victim',
  fields: declaredBodyFields(VICTIM),
  options: [
    ...itemOptions('victim', 'Victim', ['attributes', 'tags', 'securityLabels'], ['associatedGroups']),
    assets,
  ].sort((a, b) => a.name.localeCompare(b.name)),
  present: presentVictimV3,
  list: listVictimObjects,
  load: loadVictimRecords,
  create: createVictimObject,
  update: updateVictimObject,
  remove: deleteVictimObject,
  removeMatching: deleteVictimsMatching,
}

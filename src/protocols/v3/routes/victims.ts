/** /v3/victims: the people and organisations targeted; `assets` may be nested on create and update. */
import {
  createVictimObject, deleteVictimObject, deleteVictimsMatching, listVictimObjects, loadAssetsOfVictims, loadVictimRecords, updateVictimObject,
} from '../../../domain/victims/objects.js'
import type { VictimRecord } from '../../../domain/victims/victims.js'
import type { FieldOption, FieldSpec, V3Endpoint } from '../endpoint.js'
import { itemOptions } from '../fields.js'
import { presentVictimAssetV3, presentVictimV3 } from '../present-victim.js'

const text = (name: string, what: string, extra: Partial<FieldSpec> = {}): FieldSpec => ({ name, type: 'String', description: what, ...extra })
const list = (name: string, type: string, what: string): FieldSpec => ({ name, type, description: what, list: true })
const readOnly = (name: string, type: string, what: string): FieldSpec => ({ name, type, description: what, readOnly: true })

const VICTIM_FIELDS: FieldSpec[] = [
  text('name', 'The name of the Victim', { required: true }),
  text('description', 'A description of the Victim'),
  text('org', 'The organization of the Victim'),
  text('suborg', 'The sub-organization of the Victim'),
  text('workLocation', 'Where the Victim works'),
  text('nationality', 'The nationality of the Victim'),
  text('ownerName', 'The owner to create the Victim in (default: the owner= parameter, else your Organization)', { updatable: false }),
  list('assets', 'VictimAsset', 'New assets of the Victim ({data: [{type, <value field>}]})'),
  list('tags', 'Tag', 'Tags applied to the Victim'),
  list('securityLabels', 'SecurityLabel', 'Security labels applied to the Victim'),
  list('attributes', 'VictimAttribute', 'Attributes of the Victim'),
  list('associatedGroups', 'Group', 'Groups associated with the Victim (same owner only; the Victim needs an asset first)'),
  readOnly('id', 'Integer', 'The ID of the Victim'),
  readOnly('ownerId', 'Integer', "The ID of the Victim's owner"),
  readOnly('dateAdded', 'Date', 'When the Victim was created'),
  readOnly('webLink', 'String', "Link to the Victim's details page"),
]

const assets: FieldOption = {
  name: 'assets', description: 'Includes the assets of the Victim',
  async load(ids, _subtree, { ctx }) {
    const byVictim = await loadAssetsOfVictims(ctx, ids)
    return new Map([...byVictim].map(([id, list]) => [id, { data: list.map((a) => presentVictimAssetV3(a, { ctx })) }]))
  },
}

export const VICTIMS: V3Endpoint<VictimRecord> = {
  path: 'victims', kind: 'victim', tqlType: 'victims', word: 'Victim', fields: VICTIM_FIELDS,
  options: [...itemOptions('victim', 'Victim', ['attributes', 'tags', 'securityLabels'], ['associatedGroups']), assets]
    .sort((a, b) => a.name.localeCompare(b.name)),
  present: presentVictimV3, list: listVictimObjects, load: loadVictimRecords,
  create: createVictimObject, update: updateVictimObject, remove: deleteVictimObject, removeMatching: deleteVictimsMatching,
}

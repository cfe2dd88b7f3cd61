/** /v3/groups: Groups of every type, one endpoint (the type is a field). */
import {
  type GroupObject,
  createGroupObject,
  deleteGroupObject,
  deleteGroupsMatching,
  listGroupObjects,
  loadGroupObjects,
  updateGroupObject,
} from '../../../domain/groups/objects.js'
import { GROUP } from '../../../model/group.js'
import { type V3Endpoint, declaredBodyFields } from '../endpoint.js'
import { itemOptions } from '../fields.js'
import { presentGroupV3 } from '../present-group.js'

export const GROUPS: V3Endpoint<GroupObject> = {
  path: 'groups',
  kind: 'group',
  tqlType: 'groups',
  word: 'Group',
  fields: declaredBodyFields(GROUP),
  options: [
    ...itemOptions(
      'group',
      'Group',
      ['attributes', 'tags', 'securityLabels'],
      ['associatedArtifacts', 'associatedCases', 'associatedGroups', 'associatedIndicators', 'associatedVictimAssets'],
    ),
    ...(GROUP.options ?? []),
  ].sort((a, b) => a.name.localeCompare(b.name)),
  present: presentGroupV3,
  list: listGroupObjects,
  load: loadGroupObjects,
  create: createGroupObject,
  update: updateGroupObject,
  remove: deleteGroupObject,
  removeMatching: deleteGroupsMatching,
}

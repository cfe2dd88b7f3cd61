/** /v3/groups: Groups of every type, one endpoint (the type is a field). */
import {
  type GroupObject, createGroupObject, deleteGroupObject, deleteGroupsMatching, listGroupObjects, loadGroupObjects, updateGroupObject,
} from '../../../domain/groups/objects.js'
import { GROUP_TYPES } from '../../../model/group-types.js'
import type { FieldSpec, V3Endpoint } from '../endpoint.js'
import { itemOptions } from '../fields.js'
import { presentGroupV3 } from '../present-group.js'

const text = (name: string, what: string, extra: Partial<FieldSpec> = {}): FieldSpec => ({ name, type: 'String', description: what, ...extra })
const date = (name: string, what: string): FieldSpec => ({ name, type: 'Date', description: what })
const list = (name: string, type: string, what: string): FieldSpec => ({ name, type, description: what, list: true })
const readOnly = (name: string, type: string, what: string): FieldSpec => ({ name, type, description: what, readOnly: true })

const GROUP_FIELDS: FieldSpec[] = [
  text('type', 'The Group type', { required: true, updatable: false, values: GROUP_TYPES.map((t) => t.name) }),
  text('name', 'The name of the Group', { required: true }),
  text('xid', 'A unique external ID of the Group (generated when absent)', { updatable: false }),
  text('fileName', 'The file name (Document, Report, Signature)'),
  text('status', 'The status (Document, Report, Event, Incident)'),
  date('eventDate', 'When the Event or Incident happened'),
  date('firstSeen', 'When the Campaign was first seen'),
  date('publishDate', 'When the Report was published'),
  text('subject', 'The subject (Email)'),
  text('header', 'The header (Email)'),
  text('body', 'The body (Email)'),
  text('to', 'The recipient (Email)'),
  text('from', 'The sender (Email)'),
  { name: 'malware', type: 'Boolean', description: 'Whether the Document is malware (a password-protected zip)' },
  text('password', 'The password of a malware Document'),
  text('fileType', 'The signature format (Signature)'),
  text('fileText', 'The signature itself (Signature)'),
  text('ownerName', 'The owner to create the Group in (default: the owner= parameter, else your Organization)', { updatable: false }),
  { name: 'ownerId', type: 'Integer', description: 'The owner to create the Group in, by id', updatable: false },
  list('tags', 'Tag', 'Tags applied to the Group ({data: [{name}], mode: append|replace|delete})'),
  list('securityLabels', 'SecurityLabel', 'Security labels applied to the Group'),
  list('attributes', 'GroupAttribute', 'Attributes of the Group'),
  list('associatedArtifacts', 'Artifact', 'Artifacts associated with the Group'),
  list('associatedCases', 'Case', 'Cases associated with the Group'),
  list('associatedGroups', 'Group', 'Groups associated with the Group'),
  list('associatedIndicators', 'Indicator', 'Indicators associated with the Group'),
  list('associatedVictimAssets', 'VictimAsset', 'Victim Assets associated with the Group'),
  readOnly('id', 'Integer', 'The ID of the Group'),
  readOnly('createdBy', 'User', 'The user who created the Group'),
  readOnly('dateAdded', 'Date', 'When the Group was created'),
  readOnly('lastModified', 'Date', 'When the Group was last changed'),
  readOnly('upVoteCount', 'String', 'Up votes'),
  readOnly('downVoteCount', 'String', 'Down votes'),
  readOnly('webLink', 'String', "Link to the Group's details page"),
  readOnly('legacyLink', 'String', "Link to the Group's page in the legacy form"),
]

export const GROUPS: V3Endpoint<GroupObject> = {
  path: 'groups', kind: 'group', tqlType: 'groups', word: 'Group', fields: GROUP_FIELDS,
  options: [
    ...itemOptions('group', 'Group', ['attributes', 'tags', 'securityLabels'],
      ['associatedArtifacts', 'associatedCases', 'associatedGroups', 'associatedIndicators', 'associatedVictimAssets']),
    { name: 'externalDates', description: 'Includes externalDateAdded, externalLastModified and externalDateExpires' },
    { name: 'insights', description: 'Includes customAiContent and insights of Document, Event and Report Groups that have them' },
    { name: 'sightings', description: 'Includes firstSeen and lastSeen' },
  ].sort((a, b) => a.name.localeCompare(b.name)),
  present: presentGroupV3, list: listGroupObjects, load: loadGroupObjects,
  create: createGroupObject, update: updateGroupObject, remove: deleteGroupObject, removeMatching: deleteGroupsMatching,
}

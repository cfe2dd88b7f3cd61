/**
 * Groups as v3 objects: TQL lists, records with their creator, create and update bodies
 * with nested members in one transaction, bulk delete by TQL. Field rules stay in
 * groups/groups.ts and groups/input.ts.
 */
import type { RequestContext } from '../context.js'
import { contextForNewObject, keepReadableRows } from '../access/owner-scope.js'
import { findGroupRowsByIds } from '../../store/repositories/group.repository.js'
import { invalid } from '../../core/errors.js'
import { type GroupRecord, createGroup, deleteGroup, getGroup, toGroupRecord, updateGroup } from './groups.js'
import { type ItemInfo, findReadableItem, requireWritableItem } from '../items/items.js'
import { type Body, type MemberName, applyMembers, isBody, takeMembers } from '../items/nested-writes.js'
import {
  type ListSource,
  type ObjectListQuery,
  findMatchingIds,
  inIdOrder,
  listObjectIds,
} from '../listing/object-lists.js'
import { withTransaction } from '../transaction.js'
import { type UserRef, loadUsers } from '../access/user-refs.js'

export const GROUP_SOURCE: ListSource = { objectType: 'groups', table: 'intel_group', owner: 'owned' }

export const GROUP_MEMBERS: readonly MemberName[] = [
  'tags',
  'securityLabels',
  'attributes',
  'associatedArtifacts',
  'associatedCases',
  'associatedGroups',
  'associatedIndicators',
  'associatedVictimAssets',
]

export type GroupObject = GroupRecord & { creator: UserRef | null }

/** Groups by id, in that order, with their creators, leaving out any the caller cannot read. */
export async function loadGroupObjects(ctx: RequestContext, ids: readonly number[]): Promise<GroupObject[]> {
  if (ids.length === 0) return []
  const items = keepReadableRows(ctx.caller, await findGroupRowsByIds(ctx.store, ids)).map(toGroupRecord)
  const users = await loadUsers(
    ctx.store,
    items.map((g) => g.createdBy),
  )
  return inIdOrder(
    ids,
    items.map((g) => ({ ...g, creator: (g.createdBy && users.get(g.createdBy)) || null })),
  )
}

export async function listGroupObjects(ctx: RequestContext, query: ObjectListQuery) {
  const page = await listObjectIds(ctx, GROUP_SOURCE, query)
  return { ...page, items: await loadGroupObjects(ctx, page.ids) }
}

function requireType(fields: Body): string {
  if (typeof fields.type !== 'string' || !fields.type.trim())
    throw invalid("A Group needs a 'type' (Adversary, Incident, Report …)")
  return fields.type
}

/** Creates a Group from a v3 body inside an open transaction; also the nested creator for `associatedGroups`. */
export async function createGroupIn(ctx: RequestContext, body: Body): Promise<ItemInfo> {
  const { fields, members } = takeMembers(body, GROUP_MEMBERS)
  if (typeof fields.name !== 'string' || !fields.name.trim()) throw invalid('A Group needs a name')
  const group = await createGroup(ctx, requireType(fields), fields)
  const item = await findReadableItem(ctx, 'group', group.id)
  await applyMembers(ctx, item, members, { action: 'create' })
  return item
}

async function getGroupObject(ctx: RequestContext, id: number): Promise<GroupObject> {
  await getGroup(ctx, id)
  return (await loadGroupObjects(ctx, [id]))[0]!
}

/** @example await createGroupObject(ctx, { type: 'Incident', name: 'Breach', eventDate: '2024-01-01T00:00:00Z' }) */
export async function createGroupObject(ctx: RequestContext, body: unknown): Promise<GroupObject> {
  if (!isBody(body)) throw invalid('The request body must be a JSON object')
  const item = await withTransaction(ctx, (tctx) => createGroupIn(contextForNewObject(tctx, body), body))
  return getGroupObject(ctx, item.id)
}

/** Updates the fields given (the type cannot change) and applies nested members. */
export async function updateGroupObject(ctx: RequestContext, id: number, body: unknown): Promise<GroupObject> {
  await withTransaction(ctx, async (tctx) => {
    const item = await requireWritableItem(tctx, 'group', id, 'update')
    const { fields, members } = takeMembers(body, GROUP_MEMBERS)
    if (
      typeof fields.type === 'string' &&
      fields.type.trim().toLowerCase() !== item.type?.toLowerCase() &&
      fields.type.replace(/\s+/g, '').toLowerCase() !== item.type?.replace(/\s+/g, '').toLowerCase()
    ) {
      throw invalid(
        `The type of a Group cannot change (Group ${id} is ${item.type === undefined ? 'untyped' : `a ${item.type}`})`,
      )
    }
    const { type: _type, ...changes } = fields
    // v2 makes Signatures repeat name, fileName and fileType on update; a v3 PUT sends only what changed.
    const current = item.type === 'Signature' ? await getGroup(tctx, id) : undefined
    const filled = current
      ? { name: current.name, fileName: current.fileName, fileType: current.fileType, ...changes }
      : changes
    await updateGroup(tctx, id, undefined, filled)
    await applyMembers(tctx, item, members, { action: 'update' })
  })
  return getGroupObject(ctx, id)
}

export async function deleteGroupObject(ctx: RequestContext, id: number): Promise<void> {
  await withTransaction(ctx, (tctx) => deleteGroup(tctx, id))
}

export async function deleteGroupsMatching(
  ctx: RequestContext,
  tql: string | undefined,
  scope: ObjectListQuery['ownerScope'],
): Promise<number> {
  return withTransaction(ctx, async (tctx) => {
    const ids = await findMatchingIds(tctx, GROUP_SOURCE, tql, scope)
    for (const id of ids) await deleteGroup(tctx, id)
    return ids.length
  })
}

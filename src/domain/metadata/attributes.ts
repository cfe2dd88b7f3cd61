/**
 * Attributes as v3 objects of their own (/v3/groupAttributes, indicatorAttributes,
 * victimAttributes, caseAttributes): listed across items by TQL, read, added to an item,
 * changed and deleted. Writing needs `update` on the item (`caseWrite` for Cases); the rules
 * on types and values are item-metadata.ts's.
 */
import type { ItemKind } from '../../model/kinds.js'
import { deleteAttributes, findAttributesByIds } from '../../store/repositories/metadata.repository.js'
import type { RequestContext } from '../context.js'
import { membershipFor } from '../access/owner-scope.js'
import { invalid, notFound } from '../../core/errors.js'
import { type ItemInfo, KIND_WORDS, requireWritableItem } from '../items/items.js'
import { deleteAttribute, updateAttribute } from './item-metadata.js'
import { addAttributeFromBody, applyMembers, isBody, takeMembers } from '../items/nested-writes.js'
import {
  type ListSource,
  type ObjectListQuery,
  findMatchingIds,
  inIdOrder,
  listObjectIds,
} from '../listing/object-lists.js'
import type { Action } from '../permissions.js'
import { withTransaction } from '../transaction.js'
import { type UserRef, loadUsers } from '../access/user-refs.js'
import { bodyId } from '../../core/input.js'

export type AttributedKind = 'group' | 'indicator' | 'victim' | 'case'

/** The endpoint, TQL object type and parent id field of each kind's attributes. */
export const ATTRIBUTE_ENDPOINTS: Record<AttributedKind, { objectType: string; parentField: string }> = {
  group: { objectType: 'groupAttributes', parentField: 'groupId' },
  indicator: { objectType: 'indicatorAttributes', parentField: 'indicatorId' },
  victim: { objectType: 'victimAttributes', parentField: 'victimId' },
  case: { objectType: 'caseAttributes', parentField: 'caseId' },
}

export interface AttributeRecord {
  id: number
  itemKind: ItemKind
  itemId: number
  type: string
  value: string
  source: string | null
  default: boolean
  pinned: boolean
  createdBy: UserRef | null
  ownerId: number
  ownerName: string
  dateAdded: string
  lastModified: string
}

function sourceOf(kind: AttributedKind): ListSource {
  return { objectType: ATTRIBUTE_ENDPOINTS[kind].objectType, table: 'attribute', owner: 'owned' }
}

function writeAction(kind: ItemKind): Action {
  return kind === 'case' ? 'caseWrite' : 'update'
}

/** Attributes by id, in that order; only those on items of `kind` the caller can read. */
export async function loadAttributeRecords(
  ctx: RequestContext,
  kind: ItemKind,
  ids: readonly number[],
): Promise<AttributeRecord[]> {
  const rows = (await findAttributesByIds(ctx.store, ids)).filter(
    (r) => r.item_kind === kind && membershipFor(ctx, r.owner_id),
  )
  const users = await loadUsers(
    ctx.store,
    rows.map((r) => r.created_by),
  )
  return inIdOrder(
    ids,
    rows.map((r) => ({
      id: r.id,
      itemKind: r.item_kind as ItemKind,
      itemId: r.item_id,
      type: r.type_name,
      value: r.value,
      source: r.source,
      default: !!r.displayed,
      pinned: !!r.pinned,
      createdBy: (r.created_by && users.get(r.created_by)) || null,
      ownerId: r.owner_id,
      ownerName: r.owner_name,
      dateAdded: r.date_added,
      lastModified: r.last_modified,
    })),
  )
}

export async function listAttributeRecords(ctx: RequestContext, kind: AttributedKind, query: ObjectListQuery) {
  const page = await listObjectIds(ctx, sourceOf(kind), query)
  return { ...page, items: await loadAttributeRecords(ctx, kind, page.ids) }
}

export async function getAttributeRecord(
  ctx: RequestContext,
  kind: AttributedKind,
  id: number,
): Promise<AttributeRecord> {
  const [record] = await loadAttributeRecords(ctx, kind, [id])
  if (!record) throw notFound(`${KIND_WORDS[kind]} attribute ${id} not found`)
  return record
}

async function requireWritableAttribute(
  ctx: RequestContext,
  kind: AttributedKind,
  id: number,
): Promise<{ record: AttributeRecord; item: ItemInfo }> {
  const record = await getAttributeRecord(ctx, kind, id)
  return { record, item: await requireWritableItem(ctx, kind, record.itemId, writeAction(kind)) }
}

/** Body: {<parent>Id, type, value, source?, default?, pinned?, securityLabels?: {data: [{name}]}}. */
export async function createAttributeRecord(
  ctx: RequestContext,
  kind: AttributedKind,
  input: unknown,
): Promise<AttributeRecord> {
  if (!isBody(input)) throw invalid('The request body must be a JSON object')
  const parentField = ATTRIBUTE_ENDPOINTS[kind].parentField
  const itemId = bodyId(input[parentField])
  if (itemId === undefined) throw invalid(`${parentField} is required`)
  const added = await withTransaction(ctx, async (tctx) => {
    const item = await requireWritableItem(tctx, kind, itemId, writeAction(kind))
    return addAttributeFromBody(tctx, item, input, writeAction(kind))
  })
  return getAttributeRecord(ctx, kind, added.id)
}

/** Changes value, source, default and pinned; `securityLabels` with a mode changes the attribute's labels. */
export async function updateAttributeRecord(
  ctx: RequestContext,
  kind: AttributedKind,
  id: number,
  input: unknown,
): Promise<AttributeRecord> {
  await withTransaction(ctx, async (tctx) => {
    const { record, item } = await requireWritableAttribute(tctx, kind, id)
    const { fields, members } = takeMembers(input, ['securityLabels'])
    if (fields.type !== undefined && fields.type !== record.type) throw invalid("An attribute's type cannot change")
    await updateAttribute(tctx, item, id, {
      value: fields.value ?? record.value,
      source: fields.source,
      pinned: fields.pinned,
      displayed: fields.default ?? fields.displayed,
    })
    await applyMembers(tctx, { ...item, kind: 'attribute', id }, members, { action: writeAction(kind) })
  })
  return getAttributeRecord(ctx, kind, id)
}

export async function deleteAttributeRecord(ctx: RequestContext, kind: AttributedKind, id: number): Promise<void> {
  const { item } = await requireWritableAttribute(ctx, kind, id)
  await deleteAttribute(ctx, item, id)
}

export async function deleteAttributeRecordsMatching(
  ctx: RequestContext,
  kind: AttributedKind,
  tql: string | undefined,
  scope: ObjectListQuery['ownerScope'],
): Promise<number> {
  return withTransaction(ctx, async (tctx) => {
    const ids = await findMatchingIds(tctx, sourceOf(kind), tql, scope)
    for (const id of ids) await requireWritableAttribute(tctx, kind, id)
    await deleteAttributes(tctx.store.db, ids)
    return ids.length
  })
}

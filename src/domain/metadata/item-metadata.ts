/**
 * Attributes, Security Labels and Tags on any item, with their rules written once:
 * an attribute's type must exist and apply to the item's kind, its value must fit the type;
 * a Security Label must already exist in the item's owner (nothing is created otherwise);
 * a Tag is created on first use and is at most 128 characters.
 */
import type { Kysely } from 'kysely'
import type { ItemKind } from '../../model/kinds.js'
import type { Database } from '../../store/database.js'
import * as repo from '../../store/repositories/metadata.repository.js'
import { findLabelByName } from '../../store/repositories/security-label.repository.js'
import { findOrCreateTag, findTagByName } from '../../store/repositories/tag.repository.js'
import type { RequestContext } from '../context.js'
import { invalid, notFound } from '../../core/errors.js'
import { booleanValue } from '../../core/input.js'
import type { ItemInfo } from '../items/items.js'
import { requirePermission } from '../context.js'
import type { Action } from '../permissions.js'
import { withTransactionDb } from '../transaction.js'
import { type SecurityLabel, toSecurityLabel } from './security-labels.js'
import { type Tag, checkTagName, toTag } from './tags.js'
import { markingsChanged } from './item-changes.js'

export interface AttributeView {
  id: number
  type: string
  value: string
  dateAdded: string
  lastModified: string
  displayed: boolean
  pinned: boolean
  source: string | null
}

export interface AttributeInput {
  type?: unknown
  value?: unknown
  displayed?: unknown
  pinned?: unknown
  source?: unknown
}

/** Types whose `displayed` flag means something (the spec: Source and Description only). */
export const DISPLAYABLE = new Set(['Source', 'Description'])

function toAttributeView(row: repo.AttributeRow): AttributeView {
  return {
    id: row.id,
    type: row.type_name,
    value: row.value,
    dateAdded: row.date_added,
    lastModified: row.last_modified,
    displayed: !!row.displayed,
    pinned: !!row.pinned,
    source: row.source,
  }
}

function groupBy<T extends { item_id: number }, V>(rows: T[], view: (row: T) => V): Map<number, V[]> {
  const map = new Map<number, V[]>()
  for (const row of rows) {
    const list = map.get(row.item_id)
    if (list) list.push(view(row))
    else map.set(row.item_id, [view(row)])
  }
  return map
}

/** Attributes of many items at once (for includeAttributes / fields=attributes). */
export async function loadAttributes(db: Kysely<Database>, kind: ItemKind, ids: readonly number[]) {
  return groupBy(await repo.listAttributesOf(db, kind, ids), toAttributeView)
}

export async function loadTags(db: Kysely<Database>, kind: ItemKind, ids: readonly number[]) {
  return groupBy(await repo.listTagsOf(db, kind, ids), (r) => toTag(r, r.owner_name))
}

export async function loadLabels(db: Kysely<Database>, kind: ItemKind, ids: readonly number[]) {
  return groupBy(await repo.listLabelsOf(db, kind, ids), (r) => toSecurityLabel(r, r.owner_name))
}

/** Deletes every attribute, tag and label link and association of the items; call inside the deleting transaction. */
export function deleteItemMetadata(db: Kysely<Database>, kind: ItemKind, ids: readonly number[]) {
  return repo.deleteMetadataOf(db, kind, ids)
}

export async function listAttributes(ctx: RequestContext, item: ItemInfo): Promise<AttributeView[]> {
  return (await loadAttributes(ctx.store.db, item.kind, [item.id])).get(item.id) ?? []
}

export async function getAttribute(ctx: RequestContext, item: ItemInfo, attributeId: number): Promise<AttributeView> {
  const row = await repo.findAttribute(ctx.store.db, item.kind, item.id, attributeId)
  if (!row) throw notFound(`Attribute ${attributeId} not found on this item`)
  return toAttributeView(row)
}

function text(value: unknown, field: string, required: boolean): string | undefined {
  if (value === undefined || value === null) {
    if (required) throw invalid(`Attribute ${field} is required`)
    return undefined
  }
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean')
    throw invalid(`Attribute ${field} must be text`)
  return String(value)
}

const bool = (value: unknown, field: string) => booleanValue(value, `Attribute ${field}`)

export type AttributeTypeRow = NonNullable<Awaited<ReturnType<typeof repo.findAttributeType>>>

/** Throws `invalid` unless the value fits the attribute type (length, validation rule). */
export function checkValue(type: AttributeTypeRow, value: string) {
  if (!value.trim()) throw invalid(`Attribute value for '${type.name}' must not be empty`)
  if (value.length > type.max_length)
    throw invalid(`Attribute value for '${type.name}' is longer than ${type.max_length} characters`)
  if (!type.validation_rule) return
  const rule = JSON.parse(type.validation_rule) as { type: string; text: string }
  const ok = rule.type === 'selectone' ? rule.text.split(';').includes(value) : new RegExp(rule.text).test(value)
  if (!ok) throw invalid(type.error_message ?? `Attribute value is not valid for '${type.name}'`)
}

/**
 * Adds an attribute (permission: update in the item's owner; `action` 'create' when the
 * attribute comes with the item's creation).
 */
export async function addAttribute(
  ctx: RequestContext,
  item: ItemInfo,
  input: AttributeInput,
  action: Action = 'update',
): Promise<AttributeView> {
  await requirePermission(ctx, action, item.membership)
  const db = ctx.store.db
  const typeName = text(input.type, 'type', true)!
  const value = text(input.value, 'value', true)!
  const type = await repo.findAttributeType(db, typeName, item.ownerId)
  if (!type) throw invalid(`Unknown attribute type '${typeName}'`)
  const appliesTo = type.applies_to.split(',')
  if (!appliesTo.includes(item.kind))
    throw invalid(
      `Attribute type '${typeName}' does not apply to ${item.kind === 'victimAsset' ? 'Victim Assets' : `${item.kind}s`}`,
    )
  checkValue(type, value)
  const displayed = DISPLAYABLE.has(type.name) ? (bool(input.displayed, 'displayed') ?? false) : false
  const id = await repo.insertAttribute(db, {
    owner_id: item.ownerId,
    item_kind: item.kind,
    item_id: item.id,
    type_id: type.id,
    value,
    displayed: displayed ? 1 : 0,
    pinned: bool(input.pinned, 'pinned') ? 1 : 0,
    source: text(input.source, 'source', false) ?? null,
    created_by: ctx.caller.account.id,
    date_added: ctx.now,
    last_modified: ctx.now,
  })
  return toAttributeView((await repo.findAttribute(db, item.kind, item.id, id))!)
}

export async function updateAttribute(
  ctx: RequestContext,
  item: ItemInfo,
  attributeId: number,
  input: AttributeInput,
): Promise<AttributeView> {
  await requirePermission(ctx, 'update', item.membership)
  const existing = await repo.findAttribute(ctx.store.db, item.kind, item.id, attributeId)
  if (!existing) throw notFound(`Attribute ${attributeId} not found on this item`)
  const value = text(input.value, 'value', true)!
  const type = (await repo.findAttributeType(ctx.store.db, existing.type_name, item.ownerId))!
  checkValue(type, value)
  const displayed = bool(input.displayed, 'displayed')
  const source = text(input.source, 'source', false)
  const pinned = bool(input.pinned, 'pinned')
  await repo.updateAttributeRow(ctx.store.db, attributeId, {
    value,
    last_modified: ctx.now,
    ...(displayed !== undefined && DISPLAYABLE.has(type.name) ? { displayed: displayed ? 1 : 0 } : {}),
    ...(source !== undefined ? { source } : {}),
    ...(pinned !== undefined ? { pinned: pinned ? 1 : 0 } : {}),
  })
  return getAttribute(ctx, item, attributeId)
}

export async function deleteAttribute(ctx: RequestContext, item: ItemInfo, attributeId: number): Promise<void> {
  await requirePermission(ctx, 'update', item.membership)
  if (!(await repo.findAttribute(ctx.store.db, item.kind, item.id, attributeId)))
    throw notFound(`Attribute ${attributeId} not found on this item`)
  await withTransactionDb(ctx, (db) => repo.deleteAttributes(db, [attributeId]))
}

async function requireLabel(db: Kysely<Database>, ownerId: number, ownerName: string, name: string) {
  const label = await findLabelByName(db, ownerId, name)
  if (!label) throw notFound(`Security Label '${name}' does not exist in ${ownerName}`)
  return label
}

export async function listItemLabels(ctx: RequestContext, item: ItemInfo): Promise<SecurityLabel[]> {
  return (await loadLabels(ctx.store.db, item.kind, [item.id])).get(item.id) ?? []
}

/** Puts an existing label on the item; a label that does not exist in the owner is an error and nothing is created. */
export async function applyLabel(ctx: RequestContext, item: ItemInfo, name: string): Promise<void> {
  await requirePermission(ctx, 'applyLabel', item.membership)
  const label = await requireLabel(ctx.store.db, item.ownerId, item.ownerName, name)
  await withTransactionDb(ctx, async (db) => {
    if (await repo.linkLabel(db, label.id, item.kind, item.id, ctx.now)) await markingsChanged(db, item, ctx.now)
  })
}

export async function removeLabel(ctx: RequestContext, item: ItemInfo, name: string): Promise<void> {
  await requirePermission(ctx, 'applyLabel', item.membership)
  const label = await requireLabel(ctx.store.db, item.ownerId, item.ownerName, name)
  await withTransactionDb(ctx, async (db) => {
    if (!(await repo.unlinkLabel(db, label.id, item.kind, item.id)))
      throw notFound(`Security Label '${name}' is not on this item`)
    await markingsChanged(db, item, ctx.now)
  })
}

async function requireAttributeOf(ctx: RequestContext, item: ItemInfo, attributeId: number): Promise<ItemInfo> {
  await getAttribute(ctx, item, attributeId)
  return { ...item, kind: 'attribute', id: attributeId }
}

export async function listAttributeLabels(ctx: RequestContext, item: ItemInfo, attributeId: number) {
  return listItemLabels(ctx, await requireAttributeOf(ctx, item, attributeId))
}

export async function applyAttributeLabel(ctx: RequestContext, item: ItemInfo, attributeId: number, name: string) {
  return applyLabel(ctx, await requireAttributeOf(ctx, item, attributeId), name)
}

export async function removeAttributeLabel(ctx: RequestContext, item: ItemInfo, attributeId: number, name: string) {
  return removeLabel(ctx, await requireAttributeOf(ctx, item, attributeId), name)
}

export async function listItemTags(ctx: RequestContext, item: ItemInfo): Promise<Tag[]> {
  return (await loadTags(ctx.store.db, item.kind, [item.id])).get(item.id) ?? []
}

/** Tags the item, creating the tag in the item's owner on first use. */
export async function addTag(
  ctx: RequestContext,
  item: ItemInfo,
  name: unknown,
  action: Action = 'update',
): Promise<void> {
  await requirePermission(ctx, action, item.membership)
  const tagName = checkTagName(name)
  await withTransactionDb(ctx, async (db) => {
    const tag = await findOrCreateTag(db, item.ownerId, tagName, ctx.now)
    if (await repo.linkTag(db, tag.id, item.kind, item.id, ctx.now)) await markingsChanged(db, item, ctx.now)
  })
}

export async function removeTag(ctx: RequestContext, item: ItemInfo, name: string): Promise<void> {
  await requirePermission(ctx, 'update', item.membership)
  await withTransactionDb(ctx, async (db) => {
    const tag = await findTagByName(db, item.ownerId, name)
    if (!tag || !(await repo.unlinkTag(db, tag.id, item.kind, item.id)))
      throw notFound(`Tag '${name}' is not on this item`)
    await markingsChanged(db, item, ctx.now)
  })
}

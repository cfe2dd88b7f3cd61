/**
 * Tags, Security Labels and Attribute Types as v3 objects addressed by id. Tags are per owner
 * and may be created, renamed, described and deleted (`manageTags` in the tag's owner);
 * Security Labels and Attribute Types are read-only here. Lists span the caller's owners
 * unless owner= names one; every owner's standard TLP labels are in place before labels are listed.
 */
import * as tags from '../../store/tag.repository.js'
import { ensureStandardLabels } from '../../store/security-label.repository.js'
import type { ItemKind } from '../../model/kinds.js'
import { findAttributeTypesByIds, findLabelsByIds, findTagsByIds, listItemTagIds } from '../../store/tag-record.repository.js'
import { type RequestContext, requirePermission } from '../context.js'
import { membershipFor, ownerIdsToRead } from '../access/owner-scope.js'
import { conflict, invalid, notFound } from '../errors.js'
import { optionalText } from '../input.js'
import { checkTagName } from './item-metadata.js'
import { type ListSource, type ObjectListQuery, findMatchingIds, inIdOrder, listObjectIds } from '../listing/object-lists.js'
import { withTransaction } from '../transaction.js'

export const TAG_SOURCE: ListSource = { objectType: 'tags', table: 'tag', owner: 'owned' }
export const SECURITY_LABEL_SOURCE: ListSource = { objectType: 'securityLabels', table: 'security_label', owner: 'owned' }
export const ATTRIBUTE_TYPE_SOURCE: ListSource = { table: 'attribute_type', owner: 'ownedOrSystem' }

export interface TagRecord {
  id: number
  name: string
  description: string | null
  techniqueId: string | null
  lastUsed: string | null
  ownerId: number
  ownerName: string
}

export interface SecurityLabelRecord {
  id: number
  name: string
  description: string | null
  color: string | null
  dateAdded: string
  ownerId: number
  ownerName: string
}

export interface AttributeTypeRecord {
  id: number
  name: string
  description: string | null
  allowMarkdown: boolean
  errorMessage: string | null
  maxSize: number
  validationRule: { name: string; type: string; text: string; description: string } | null
  appliesTo: string[]
  system: boolean
}

/** The readable tags on each of the items, for the tags= expansion of any kind. */
export async function loadItemTagRecords(ctx: RequestContext, kind: ItemKind, itemIds: readonly number[]): Promise<Map<number, TagRecord[]>> {
  const links = await listItemTagIds(ctx.store.db, kind, itemIds)
  const tags = new Map((await loadTagRecords(ctx, [...new Set(links.map((l) => l.tag_id))])).map((t) => [t.id, t]))
  const byItem = new Map<number, TagRecord[]>()
  for (const link of links) {
    const tag = tags.get(link.tag_id)
    if (tag) byItem.set(link.item_id, [...(byItem.get(link.item_id) ?? []), tag])
  }
  return byItem
}

export async function loadTagRecords(ctx: RequestContext, ids: readonly number[]): Promise<TagRecord[]> {
  const rows = (await findTagsByIds(ctx.store.db, ids)).filter((r) => membershipFor(ctx, r.owner_id))
  return inIdOrder(ids, rows.map((r) => ({
    id: r.id, name: r.name, description: r.description, techniqueId: r.technique_id, lastUsed: r.last_used, ownerId: r.owner_id, ownerName: r.owner_name,
  })))
}

export async function listTagRecords(ctx: RequestContext, query: ObjectListQuery) {
  const page = await listObjectIds(ctx, TAG_SOURCE, query)
  return { ...page, items: await loadTagRecords(ctx, page.ids) }
}

export async function getTagRecord(ctx: RequestContext, id: number): Promise<TagRecord> {
  const [record] = await loadTagRecords(ctx, [id])
  if (!record) throw notFound(`Tag ${id} not found`)
  return record
}

function bodyOf(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid('The request body must be a JSON object')
  return body as Record<string, unknown>
}

/** Creates a tag in the call's owner; a name already used there is a 400. */
export async function createTagRecord(ctx: RequestContext, input: unknown): Promise<TagRecord> {
  const body = bodyOf(input)
  await requirePermission(ctx, 'manageTags')
  const name = checkTagName(body.name)
  if (await tags.findTagByName(ctx.store.db, ctx.owner.id, name)) throw conflict(`Tag '${name}' already exists in ${ctx.owner.name}`)
  const row = await tags.insertTag(ctx.store.db, ctx.owner.id, name, optionalText(body, 'description', { max: 65_500 }) ?? null, ctx.now)
  return getTagRecord(ctx, row.id)
}

async function requireWritableTag(ctx: RequestContext, id: number): Promise<TagRecord> {
  const tag = await getTagRecord(ctx, id)
  await requirePermission(ctx, 'manageTags', membershipFor(ctx, tag.ownerId)!)
  return tag
}

/** Renames or describes a tag; everything carrying it keeps it. */
export async function updateTagRecord(ctx: RequestContext, id: number, input: unknown): Promise<TagRecord> {
  const body = bodyOf(input)
  const tag = await requireWritableTag(ctx, id)
  const name = body.name === undefined ? undefined : checkTagName(body.name)
  if (name !== undefined && name !== tag.name && await tags.findTagByName(ctx.store.db, tag.ownerId, name)) {
    throw conflict(`Tag '${name}' already exists in ${tag.ownerName}`)
  }
  const description = optionalText(body, 'description', { max: 65_500 })
  await tags.updateTag(ctx.store.db, id, { ...(name !== undefined ? { name } : {}), ...(description !== undefined ? { description } : {}) })
  return getTagRecord(ctx, id)
}

export async function deleteTagRecord(ctx: RequestContext, id: number): Promise<void> {
  await requireWritableTag(ctx, id)
  await withTransaction(ctx, (tctx) => tags.deleteTag(tctx.store.db, id))
}

export async function deleteTagsMatching(ctx: RequestContext, tql: string | undefined, scope: ObjectListQuery['ownerScope']): Promise<number> {
  return withTransaction(ctx, async (tctx) => {
    const ids = await findMatchingIds(tctx, TAG_SOURCE, tql, scope)
    for (const id of ids) await requireWritableTag(tctx, id)
    for (const id of ids) await tags.deleteTag(tctx.store.db, id)
    return ids.length
  })
}

async function ensureLabels(ctx: RequestContext, scope: ObjectListQuery['ownerScope']) {
  const owners = ownerIdsToRead(ctx, scope)
  for (const ownerId of owners) await ensureStandardLabels(ctx.store.db, ownerId, ctx.now)
}

export async function loadLabelRecords(ctx: RequestContext, ids: readonly number[]): Promise<SecurityLabelRecord[]> {
  const rows = (await findLabelsByIds(ctx.store.db, ids)).filter((r) => membershipFor(ctx, r.owner_id))
  return inIdOrder(ids, rows.map((r) => ({
    id: r.id, name: r.name, description: r.description, color: r.color, dateAdded: r.date_added, ownerId: r.owner_id, ownerName: r.owner_name,
  })))
}

export async function listLabelRecords(ctx: RequestContext, query: ObjectListQuery) {
  await ensureLabels(ctx, query.ownerScope)
  const page = await listObjectIds(ctx, SECURITY_LABEL_SOURCE, query)
  return { ...page, items: await loadLabelRecords(ctx, page.ids) }
}

export async function getLabelRecord(ctx: RequestContext, id: number): Promise<SecurityLabelRecord> {
  const [record] = await loadLabelRecords(ctx, [id])
  if (!record) throw notFound(`Security Label ${id} not found`)
  return record
}

export async function loadAttributeTypes(ctx: RequestContext, ids: readonly number[]): Promise<AttributeTypeRecord[]> {
  const rows = (await findAttributeTypesByIds(ctx.store.db, ids)).filter((r) => r.owner_id === null || membershipFor(ctx, r.owner_id))
  return inIdOrder(ids, rows.map((r) => ({
    id: r.id, name: r.name, description: r.description, allowMarkdown: !!r.allow_markdown, errorMessage: r.error_message, maxSize: r.max_length,
    validationRule: r.validation_rule ? JSON.parse(r.validation_rule) : null, appliesTo: r.applies_to.split(',').filter(Boolean), system: !!r.system,
  })))
}

export async function listAttributeTypes(ctx: RequestContext, query: ObjectListQuery) {
  const page = await listObjectIds(ctx, ATTRIBUTE_TYPE_SOURCE, query)
  return { ...page, items: await loadAttributeTypes(ctx, page.ids) }
}

export async function getAttributeType(ctx: RequestContext, id: number): Promise<AttributeTypeRecord> {
  const [record] = await loadAttributeTypes(ctx, [id])
  if (!record) throw notFound(`Attribute type ${id} not found`)
  return record
}

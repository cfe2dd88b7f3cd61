/**
 * Tags, the one module: one record (Tag), by name in the call's owner (v2: list with weight,
 * read, create or describe, rename, delete), by id across the caller's owners (v3 objects),
 * with one name rule, one description rule and one rename check for both. Also the tag- and
 * label-centred item lists, shared with security-labels.ts. Putting a tag on an item is
 * item-metadata.ts's job.
 */
import { findGroupType } from '../../model/group-types.js'
import { findIndicatorTypeByBranch, parseSummary } from '../../model/indicator-types.js'
import * as repo from '../../store/repositories/tag.repository.js'
import type { MarkedFilter, MarkedKind, Marker, Page, TagFilter } from '../../store/repositories/tag.repository.js'
import { type RequestContext, requirePermission } from '../context.js'
import { conflict, invalid, notFound } from '../../core/errors.js'
import { withTransactionDb } from '../transaction.js'
import { findTagsByIds } from '../../store/repositories/tag-record.repository.js'
import { membershipFor } from '../access/owner-scope.js'
import { optionalText } from '../../core/input.js'
import {
  type ListSource,
  type ObjectListQuery,
  findMatchingIds,
  inIdOrder,
  listObjectIds,
} from '../listing/object-lists.js'
import { withTransaction } from '../transaction.js'
import { markerChanging } from './item-changes.js'

export type { TagFilter } from '../../store/repositories/tag.repository.js'

export const TAG_MAX_LENGTH = 128

/** A tag name: trimmed, not empty, at most TAG_MAX_LENGTH characters, case kept. */
export function checkTagName(name: unknown): string {
  if (typeof name !== 'string' || !name.trim()) throw invalid('A tag needs a name')
  const trimmed = name.trim()
  if (trimmed.length > TAG_MAX_LENGTH) throw invalid(`Tag names are at most ${TAG_MAX_LENGTH} characters`)
  return trimmed
}

/** A tag, wherever it is read: by name, by id, or on an item. */
export interface Tag {
  id: number
  name: string
  description: string | null
  /** The ATT&CK technique of an ATT&CK tag. */
  techniqueId: string | null
  dateAdded: string
  lastUsed: string | null
  ownerId: number
  ownerName: string
}

/** A tag with how many items carry it (the v2 list and look-up report it). */
export interface WeighedTag extends Tag {
  weight: number
}

export function toTag(row: repo.TagRow, ownerName: string): Tag {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    techniqueId: row.technique_id,
    dateAdded: row.date_added,
    lastUsed: row.last_used,
    ownerId: row.owner_id,
    ownerName,
  }
}

/** @example await listTags(ctx, { weight: [{ op: '>', value: 2 }] }, { offset: 0, limit: 100 }) */
export async function listTags(
  ctx: RequestContext,
  filter: TagFilter,
  page: Page,
): Promise<{ items: WeighedTag[]; total: number }> {
  const { rows, total } = await repo.listTags(ctx.store.db, ctx.owner.id, filter, page)
  return { items: rows.map((r) => ({ ...toTag(r, ctx.owner.name), weight: r.weight })), total }
}

async function requireTag(ctx: RequestContext, name: string): Promise<repo.TagRow> {
  const tag = await repo.findTagByName(ctx.store.db, ctx.owner.id, name)
  if (!tag) throw notFound(`Tag '${name}' not found in ${ctx.owner.name}`)
  return tag
}

/** One tag by its exact (case-sensitive) name. */
export async function getTag(ctx: RequestContext, name: string): Promise<WeighedTag> {
  const tag = await requireTag(ctx, name)
  return { ...toTag(tag, ctx.owner.name), weight: await repo.countTagUses(ctx.store.db, tag.id) }
}

export const TAG_DESCRIPTION_MAX_LENGTH = 65_500

/** A tag's description, the same on v2 and v3: text of at most TAG_DESCRIPTION_MAX_LENGTH characters, null to clear. */
function readTagDescription(input: { description?: unknown }): string | null | undefined {
  return optionalText(input, 'description', { max: TAG_DESCRIPTION_MAX_LENGTH })
}

/** A tag name may be given to one tag of an owner only (v2 and v3 creates and renames). */
async function requireFreeTagName(
  ctx: RequestContext,
  ownerId: number,
  ownerName: string,
  name: string,
): Promise<void> {
  if (await repo.findTagByName(ctx.store.db, ownerId, name))
    throw conflict(`Tag '${name}' already exists in ${ownerName}`)
}

/**
 * POST /v2/tags: creates the tag, or sets the description of the existing one.
 * @example await createOrDescribeTag(ctx, { name: 'APT', description: 'Advanced persistent threat' })
 */
export async function createOrDescribeTag(
  ctx: RequestContext,
  input: { name?: unknown; description?: unknown },
): Promise<{ tag: WeighedTag; created: boolean }> {
  await requirePermission(ctx, 'manageTags')
  const name = checkTagName(input.name)
  const description = readTagDescription(input)
  const existing = await repo.findTagByName(ctx.store.db, ctx.owner.id, name)
  if (existing) {
    if (description !== undefined) await repo.updateTag(ctx.store.db, existing.id, { description })
    return { tag: await getTag(ctx, name), created: false }
  }
  const row = await repo.insertTag(ctx.store.db, ctx.owner.id, name, description ?? null, ctx.now)
  return { tag: { ...toTag(row, ctx.owner.name), weight: 0 }, created: true }
}

/**
 * PUT /v2/tags/{name}: changes the description; a different `name` in the body renames the
 * tag (everything carrying it keeps it), refused when the new name is taken.
 */
export async function updateTag(
  ctx: RequestContext,
  name: string,
  input: { name?: unknown; description?: unknown },
): Promise<WeighedTag> {
  await requirePermission(ctx, 'manageTags')
  const tag = await requireTag(ctx, name)
  const newName =
    input.name === undefined || input.name === null || input.name === '' ? tag.name : checkTagName(input.name)
  const description = readTagDescription(input)
  if (newName !== tag.name) await requireFreeTagName(ctx, ctx.owner.id, ctx.owner.name, newName)
  await writeTag(ctx, tag.id, newName !== tag.name ? newName : undefined, description)
  return getTag(ctx, newName)
}

/** Deletes the tag and removes it from every item that carried it. */
export async function deleteTag(ctx: RequestContext, name: string): Promise<void> {
  await requirePermission(ctx, 'manageTags')
  const tag = await requireTag(ctx, name)
  await withTransaction(ctx, (tctx) => removeTagEverywhere(tctx, tag.id))
}

export async function requireTagMarker(ctx: RequestContext, name: string): Promise<Marker> {
  return { kind: 'tag', id: (await requireTag(ctx, name)).id }
}

/** Where in a path the items are narrowed: `/groups/incidents/12`, `/indicators/addresses/1.2.3.4`, `/tasks/7`. */
export interface MarkedPath {
  type?: string
  id?: string
}

export interface MarkedItem {
  kind: MarkedKind
  id: number
  name?: string
  /** Indicator or Group type name (Address, Incident). */
  type?: string
  summary?: string
  ownerName: string
  dateAdded: string
  lastModified: string
  fields: Record<string, unknown>
}

const KIND_NAMES: Record<MarkedKind, string> = {
  indicator: 'Indicator',
  group: 'Group',
  task: 'Task',
  victim: 'Victim',
}

function markedFilter(kind: MarkedKind, path: MarkedPath): MarkedFilter {
  const filter: MarkedFilter = {}
  if (kind === 'indicator' && path.type !== undefined) {
    const type = findIndicatorTypeByBranch(path.type)
    if (!type) throw notFound(`Unknown Indicator type '${path.type}'`)
    filter.type = type.name
    if (path.id !== undefined) {
      const values = parseSummary(type, path.id)
      if (!values) throw notFound(`${type.name} '${path.id}' not found`)
      filter.values = values
    }
  } else if (kind === 'group' && path.type !== undefined) {
    const type = findGroupType(path.type)
    if (!type) throw notFound(`Unknown Group type '${path.type}'`)
    filter.type = type.name
  }
  if (kind !== 'indicator' && path.id !== undefined) {
    if (!/^\d{1,15}$/.test(path.id)) throw notFound(`${KIND_NAMES[kind]} ${path.id} not found`)
    filter.id = Number(path.id)
  }
  return filter
}

const LISTERS = {
  indicator: repo.listMarkedIndicators,
  group: repo.listMarkedGroups,
  task: repo.listMarkedTasks,
  victim: repo.listMarkedVictims,
}

/**
 * The Indicators, Groups, Tasks or Victims carrying a tag or a label, as short records.
 * With an id (or an Indicator value) in the path, exactly one item or not_found.
 */
export async function listMarkedItems(
  ctx: RequestContext,
  marker: Marker,
  kind: MarkedKind,
  path: MarkedPath,
  page: Page,
): Promise<{ items: MarkedItem[]; total: number }> {
  const { rows, total } = await LISTERS[kind](ctx.store.db, marker, markedFilter(kind, path), page)
  const items = (rows as Record<string, any>[]).map((r): MarkedItem => {
    const { id, name, type, summary, owner_name, date_added, last_modified, ...fields } = r
    return {
      kind,
      id,
      name,
      type,
      summary,
      ownerName: owner_name,
      dateAdded: date_added,
      lastModified: last_modified,
      fields,
    }
  })
  if (path.id !== undefined && items.length === 0) {
    throw notFound(
      `${KIND_NAMES[kind]} ${path.id} does not carry that ${marker.kind === 'tag' ? 'Tag' : 'Security Label'}`,
    )
  }
  return { items, total }
}

// Tags as v3 objects addressed by id: created, renamed, described and deleted with `manageTags` in the tag's owner;
// lists span the caller's owners unless owner= names one.
export const TAG_SOURCE: ListSource = { objectType: 'tags', table: 'tag', owner: 'owned' }

export async function loadTagRecords(ctx: RequestContext, ids: readonly number[]): Promise<Tag[]> {
  const rows = (await findTagsByIds(ctx.store, ids)).filter((r) => membershipFor(ctx, r.owner_id))
  return inIdOrder(
    ids,
    rows.map((r) => toTag(r, r.owner_name)),
  )
}

export async function listTagRecords(ctx: RequestContext, query: ObjectListQuery) {
  const page = await listObjectIds(ctx, TAG_SOURCE, query)
  return { ...page, items: await loadTagRecords(ctx, page.ids) }
}

export async function getTagRecord(ctx: RequestContext, id: number): Promise<Tag> {
  const [record] = await loadTagRecords(ctx, [id])
  if (!record) throw notFound(`Tag ${id} not found`)
  return record
}

function bodyOf(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw invalid('The request body must be a JSON object')
  return body as Record<string, unknown>
}

/** Creates a tag in the call's owner; a name already used there is a 400. */
export async function createTagRecord(ctx: RequestContext, input: unknown): Promise<Tag> {
  const body = bodyOf(input)
  await requirePermission(ctx, 'manageTags')
  const name = checkTagName(body.name)
  await requireFreeTagName(ctx, ctx.owner.id, ctx.owner.name, name)
  const row = await repo.insertTag(ctx.store.db, ctx.owner.id, name, readTagDescription(body) ?? null, ctx.now)
  return getTagRecord(ctx, row.id)
}

async function requireWritableTag(ctx: RequestContext, id: number): Promise<Tag> {
  const tag = await getTagRecord(ctx, id)
  await requirePermission(ctx, 'manageTags', membershipFor(ctx, tag.ownerId)!)
  return tag
}

/** Renames or describes a tag; everything carrying it keeps it. */
export async function updateTagRecord(ctx: RequestContext, id: number, input: unknown): Promise<Tag> {
  const body = bodyOf(input)
  const tag = await requireWritableTag(ctx, id)
  const name = body.name === undefined ? undefined : checkTagName(body.name)
  if (name !== undefined && name !== tag.name) await requireFreeTagName(ctx, tag.ownerId, tag.ownerName, name)
  await writeTag(ctx, id, name !== tag.name ? name : undefined, readTagDescription(body))
  return getTagRecord(ctx, id)
}

/** Renames (a new name moves every Indicator carrying the tag: item-changes.ts) and describes a tag, in one transaction. */
async function writeTag(
  ctx: RequestContext,
  id: number,
  rename: string | undefined,
  description: string | null | undefined,
): Promise<void> {
  await withTransactionDb(ctx, async (db) => {
    if (rename !== undefined) await markerChanging(db, { kind: 'tag', id }, ctx.now)
    await repo.updateTag(db, id, {
      ...(rename !== undefined ? { name: rename } : {}),
      ...(description !== undefined ? { description } : {}),
    })
  })
}

/** Removes the tag from everything carrying it, then the tag; call inside a transaction. */
async function removeTagEverywhere(ctx: RequestContext, id: number): Promise<void> {
  await markerChanging(ctx.store.db, { kind: 'tag', id }, ctx.now)
  await repo.deleteTag(ctx.store.db, id)
}

export async function deleteTagRecord(ctx: RequestContext, id: number): Promise<void> {
  await requireWritableTag(ctx, id)
  await withTransaction(ctx, (tctx) => removeTagEverywhere(tctx, id))
}

export async function deleteTagsMatching(
  ctx: RequestContext,
  tql: string | undefined,
  scope: ObjectListQuery['ownerScope'],
): Promise<number> {
  return withTransaction(ctx, async (tctx) => {
    const ids = await findMatchingIds(tctx, TAG_SOURCE, tql, scope)
    for (const id of ids) await requireWritableTag(tctx, id)
    for (const id of ids) await removeTagEverywhere(tctx, id)
    return ids.length
  })
}

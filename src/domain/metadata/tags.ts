/**
 * Tags as objects in the call's owner: list with weight (items carrying the tag), read,
 * create or describe, rename, delete. Also the tag- and label-centred item lists, shared
 * with security-labels.ts. Putting a tag on an item is item-metadata.ts's job.
 */
import { findGroupType } from '../../model/group-types.js'
import { findIndicatorTypeByBranch, parseSummary } from '../../model/indicator-types.js'
import * as repo from '../../store/tag.repository.js'
import type { MarkedFilter, MarkedKind, Marker, Page, TagFilter } from '../../store/tag.repository.js'
import { type RequestContext, requirePermission } from '../context.js'
import { conflict, invalid, notFound } from '../errors.js'
import { checkTagName } from './item-metadata.js'
import { withTransactionDb } from '../transaction.js'

export type { TagFilter } from '../../store/tag.repository.js'

export interface TagRecord {
  name: string
  description: string | null
  ownerName: string
  weight: number
  dateAdded: string
}

function toRecord(ctx: RequestContext, row: repo.TagRow, weight: number): TagRecord {
  return { name: row.name, description: row.description, ownerName: ctx.owner.name, weight, dateAdded: row.date_added }
}

/** @example await listTags(ctx, { weight: [{ op: '>', value: 2 }] }, { offset: 0, limit: 100 }) */
export async function listTags(ctx: RequestContext, filter: TagFilter, page: Page): Promise<{ items: TagRecord[]; total: number }> {
  const { rows, total } = await repo.listTags(ctx.store.db, ctx.owner.id, filter, page)
  return { items: rows.map((r) => toRecord(ctx, r, r.weight)), total }
}

async function requireTag(ctx: RequestContext, name: string): Promise<repo.TagRow> {
  const tag = await repo.findTagByName(ctx.store.db, ctx.owner.id, name)
  if (!tag) throw notFound(`Tag '${name}' not found in ${ctx.owner.name}`)
  return tag
}

/** One tag by its exact (case-sensitive) name. */
export async function getTag(ctx: RequestContext, name: string): Promise<TagRecord> {
  const tag = await requireTag(ctx, name)
  return toRecord(ctx, tag, await repo.countTagUses(ctx.store.db, tag.id))
}

function checkDescription(description: unknown): string | null | undefined {
  if (description === undefined) return undefined
  if (description === null) return null
  if (typeof description !== 'string') throw invalid('A tag description must be a string')
  return description
}

/**
 * POST /v2/tags: creates the tag, or sets the description of the existing one.
 * @example await createOrDescribeTag(ctx, { name: 'APT', description: 'Advanced persistent threat' })
 */
export async function createOrDescribeTag(ctx: RequestContext, input: { name?: unknown; description?: unknown }): Promise<{ tag: TagRecord; created: boolean }> {
  await requirePermission(ctx, 'manageTags')
  const name = checkTagName(input.name)
  const description = checkDescription(input.description)
  const existing = await repo.findTagByName(ctx.store.db, ctx.owner.id, name)
  if (existing) {
    if (description !== undefined) await repo.updateTag(ctx.store.db, existing.id, { description })
    return { tag: await getTag(ctx, name), created: false }
  }
  const row = await repo.insertTag(ctx.store.db, ctx.owner.id, name, description ?? null, ctx.now)
  return { tag: toRecord(ctx, row, 0), created: true }
}

/**
 * PUT /v2/tags/{name}: changes the description; a different `name` in the body renames the
 * tag (everything carrying it keeps it), refused when the new name is taken.
 */
export async function updateTag(ctx: RequestContext, name: string, input: { name?: unknown; description?: unknown }): Promise<TagRecord> {
  await requirePermission(ctx, 'manageTags')
  const tag = await requireTag(ctx, name)
  const newName = input.name === undefined || input.name === null || input.name === '' ? tag.name : checkTagName(input.name)
  const description = checkDescription(input.description)
  if (newName !== tag.name && await repo.findTagByName(ctx.store.db, ctx.owner.id, newName)) {
    throw conflict(`Tag '${newName}' already exists in ${ctx.owner.name}`)
  }
  await repo.updateTag(ctx.store.db, tag.id, { ...(newName !== tag.name ? { name: newName } : {}), ...(description !== undefined ? { description } : {}) })
  return getTag(ctx, newName)
}

/** Deletes the tag and removes it from every item that carried it. */
export async function deleteTag(ctx: RequestContext, name: string): Promise<void> {
  await requirePermission(ctx, 'manageTags')
  const tag = await requireTag(ctx, name)
  await withTransactionDb(ctx, (trx) => repo.deleteTag(trx, tag.id))
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

const KIND_NAMES: Record<MarkedKind, string> = { indicator: 'Indicator', group: 'Group', task: 'Task', victim: 'Victim' }

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

const LISTERS = { indicator: repo.listMarkedIndicators, group: repo.listMarkedGroups, task: repo.listMarkedTasks, victim: repo.listMarkedVictims }

/**
 * The Indicators, Groups, Tasks or Victims carrying a tag or a label, as short records.
 * With an id (or an Indicator value) in the path, exactly one item or not_found.
 */
export async function listMarkedItems(ctx: RequestContext, marker: Marker, kind: MarkedKind, path: MarkedPath, page: Page): Promise<{ items: MarkedItem[]; total: number }> {
  const { rows, total } = await LISTERS[kind](ctx.store.db, marker, markedFilter(kind, path), page)
  const items = (rows as Record<string, any>[]).map((r): MarkedItem => {
    const { id, name, type, summary, owner_name, date_added, last_modified, ...fields } = r
    return { kind, id, name, type, summary, ownerName: owner_name, dateAdded: date_added, lastModified: last_modified, fields }
  })
  if (path.id !== undefined && items.length === 0) {
    throw notFound(`${KIND_NAMES[kind]} ${path.id} does not carry that ${marker.kind === 'tag' ? 'Tag' : 'Security Label'}`)
  }
  return { items, total }
}

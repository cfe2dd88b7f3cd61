/**
 * Any item (Indicator, Group, Task, Victim, Victim Asset, Case, Artifact, Intelligence
 * Requirement) located by kind and id, with the caller's membership in its owner. Reading
 * needs a readable membership; writing also needs the action's permission there.
 */
import type { ItemKind } from '../../model/kinds.js'
import { findItemOwner } from '../../store/repositories/item.repository.js'
import { type ItemInfo, type RequestContext, requirePermission } from '../context.js'
import { membershipFor } from '../access/owner-scope.js'
import { notFound } from '../../core/errors.js'
import type { Action } from '../permissions.js'

export type { ItemInfo } from '../context.js'

export const KIND_WORDS: Record<ItemKind, string> = {
  indicator: 'Indicator',
  group: 'Group',
  task: 'Task',
  victim: 'Victim',
  victimAsset: 'Victim Asset',
  case: 'Case',
  artifact: 'Artifact',
  intelRequirement: 'Intelligence Requirement',
  attribute: 'Attribute',
}

/** @example const group = await findReadableItem(ctx, 'group', 12) */
export async function findReadableItem(ctx: RequestContext, kind: ItemKind, id: number): Promise<ItemInfo> {
  const found = Number.isSafeInteger(id) && id > 0 ? await findItemOwner(ctx.store.db, kind, id) : undefined
  const membership = found && membershipFor(ctx, found.ownerId)
  if (!found || !membership) throw notFound(`${KIND_WORDS[kind]} ${id} not found`)
  return { kind, id, ownerId: found.ownerId, ownerName: found.ownerName, membership, type: found.type }
}

export async function requireWritableItem(
  ctx: RequestContext,
  kind: ItemKind,
  id: number,
  action: Action,
): Promise<ItemInfo> {
  const item = await findReadableItem(ctx, kind, id)
  await requirePermission(ctx, action, item.membership)
  return item
}

/**
 * Parses an id from a path segment; anything but a whole number is "<what> <text> not found".
 * @example parseId('Batch job', req.params.id)
 */
export function parseId(what: string, text: string | undefined): number {
  if (!text || !/^\d{1,15}$/.test(text)) throw notFound(`${what} ${text} not found`)
  return Number(text)
}

/** parseId for an item kind, named as the kind is named in messages. */
export function parseItemId(kind: ItemKind, text: string): number {
  return parseId(KIND_WORDS[kind], text)
}

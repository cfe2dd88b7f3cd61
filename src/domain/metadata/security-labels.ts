/**
 * Security Labels, the one module: one record (SecurityLabel), by name in the call's owner (v2: list, read, define,
 * delete) and by id across the caller's owners (v3 objects, read-only). Every owner
 * has the standard TLP labels from its first label lookup on (see security-label.repository).
 * Putting a label on an item is item-metadata.ts's job.
 */
import * as repo from '../../store/repositories/security-label.repository.js'
import type { LabelFilter } from '../../store/repositories/security-label.repository.js'
import type { Marker } from '../../store/repositories/tag.repository.js'
import { type RequestContext, requirePermission } from '../context.js'
import { conflict, invalid, notFound } from '../../core/errors.js'
import { textValue } from '../../core/input.js'
import { withTransactionDb } from '../transaction.js'
import { markerChanging } from './item-changes.js'
import { findLabelsByIds } from '../../store/repositories/tag-record.repository.js'
import { membershipFor, ownerIdsToRead } from '../access/owner-scope.js'
import { type ListSource, type ObjectListQuery, inIdOrder, listObjectIds } from '../listing/object-lists.js'

export type { LabelFilter } from '../../store/repositories/security-label.repository.js'

export const LABEL_NAME_MAX_LENGTH = 100
export const LABEL_DESCRIPTION_MAX_LENGTH = 4000

/** A Security Label, wherever it is read: by name, by id, or on an item. */
export interface SecurityLabel {
  id: number
  name: string
  description: string | null
  /** Six hex digits, upper case, no '#'. */
  color: string | null
  dateAdded: string
  ownerId: number
  ownerName: string
}

export function toSecurityLabel(row: repo.SecurityLabelRow, ownerName: string): SecurityLabel {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    color: row.color,
    dateAdded: row.date_added,
    ownerId: row.owner_id,
    ownerName,
  }
}

/** @example await listSecurityLabels(ctx, { name: { op: '^', value: 'TLP:' } }) */
export async function listSecurityLabels(ctx: RequestContext, filter: LabelFilter = {}): Promise<SecurityLabel[]> {
  await repo.ensureStandardLabels(ctx.store.db, ctx.owner.id, ctx.now)
  return (await repo.listLabels(ctx.store.db, ctx.owner.id, filter)).map((r) => toSecurityLabel(r, ctx.owner.name))
}

async function requireLabel(ctx: RequestContext, name: string): Promise<repo.SecurityLabelRow> {
  const label = await repo.findLabelByName(ctx.store.db, ctx.owner.id, name)
  if (!label) throw notFound(`Security Label '${name}' does not exist in ${ctx.owner.name}`)
  return label
}

/** One label by name (exact spelling, or the one differing only in case). */
export async function getSecurityLabel(ctx: RequestContext, name: string): Promise<SecurityLabel> {
  return toSecurityLabel(await requireLabel(ctx, name), ctx.owner.name)
}

export async function requireLabelMarker(ctx: RequestContext, name: string): Promise<Marker> {
  return { kind: 'label', id: (await requireLabel(ctx, name)).id }
}

/** `#ff0000`, `FF0000` → `FF0000`; anything else is invalid. */
export function normalizeColor(color: unknown): string | null {
  if (color === undefined || color === null || color === '') return null
  if (typeof color !== 'string' || !/^#?[0-9A-Fa-f]{6}$/.test(color.trim())) {
    throw invalid(`A Security Label color is six hex digits such as FFC000, not '${String(color)}'`)
  }
  return color.trim().replace(/^#/, '').toUpperCase()
}

/** Empty and absent are the same: no value. */
const optionalText = (value: unknown, field: string, max: number) => textValue(value, field, { max }) || null

/**
 * Defines a label in the call's owner (batch files, the CLI, POST /v2/securityLabels).
 * A name already taken, in any letter case, is a conflict.
 * @example await createSecurityLabel(ctx, { name: 'PII', description: 'Personal data', color: '#7F00FF' })
 */
export async function createSecurityLabel(
  ctx: RequestContext,
  input: { name?: unknown; description?: unknown; color?: unknown },
): Promise<SecurityLabel> {
  const db = ctx.store.db
  await requirePermission(ctx, 'manageLabels')
  if (typeof input.name !== 'string' || !input.name.trim()) throw invalid('A Security Label needs a name')
  const name = input.name.trim()
  if (name.length > LABEL_NAME_MAX_LENGTH)
    throw invalid(`Security Label names are at most ${LABEL_NAME_MAX_LENGTH} characters`)
  const description = optionalText(input.description, 'description', LABEL_DESCRIPTION_MAX_LENGTH)
  const color = normalizeColor(input.color)
  const taken = () => conflict(`Security Label '${name}' already exists in ${ctx.owner.name}`)
  if (await repo.findLabelByName(db, ctx.owner.id, name)) throw taken()
  const row = await repo.insertLabel(db, { ownerId: ctx.owner.id, name, description, color, now: ctx.now })
  if (!row) throw taken()
  return toSecurityLabel(row, ctx.owner.name)
}

/** Deletes the label and removes it from every item and attribute that had it. */
export async function deleteSecurityLabel(ctx: RequestContext, name: string): Promise<{ unlinked: number }> {
  await requirePermission(ctx, 'manageLabels')
  const label = await requireLabel(ctx, name)
  const unlinked = await withTransactionDb(ctx, async (trx) => {
    await markerChanging(trx, { kind: 'label', id: label.id }, ctx.now)
    return repo.deleteLabel(trx, label.id)
  })
  return { unlinked }
}

// Security Labels as v3 objects addressed by id (read-only); every owner's standard TLP labels are in place before
// labels are listed.
export const SECURITY_LABEL_SOURCE: ListSource = {
  objectType: 'securityLabels',
  table: 'security_label',
  owner: 'owned',
}

async function ensureLabels(ctx: RequestContext, scope: ObjectListQuery['ownerScope']) {
  const owners = ownerIdsToRead(ctx, scope)
  for (const ownerId of owners) await repo.ensureStandardLabels(ctx.store.db, ownerId, ctx.now)
}

export async function loadLabelRecords(ctx: RequestContext, ids: readonly number[]): Promise<SecurityLabel[]> {
  const rows = (await findLabelsByIds(ctx.store, ids)).filter((r) => membershipFor(ctx, r.owner_id))
  return inIdOrder(
    ids,
    rows.map((r) => toSecurityLabel(r, r.owner_name)),
  )
}

export async function listLabelRecords(ctx: RequestContext, query: ObjectListQuery) {
  await ensureLabels(ctx, query.ownerScope)
  const page = await listObjectIds(ctx, SECURITY_LABEL_SOURCE, query)
  return { ...page, items: await loadLabelRecords(ctx, page.ids) }
}

export async function getLabelRecord(ctx: RequestContext, id: number): Promise<SecurityLabel> {
  const [record] = await loadLabelRecords(ctx, [id])
  if (!record) throw notFound(`Security Label ${id} not found`)
  return record
}

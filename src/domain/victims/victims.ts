/**
 * Victims: the people and organisations that intelligence says were targeted. A name is
 * required on create and on update. Their assets are in victim-assets.ts.
 */
import type { Updateable } from 'kysely'
import type { FieldDeclaration } from '../../model/field.js'
import type { ItemKind } from '../../model/kinds.js'
import { VICTIM } from '../../model/victim.js'
import type { VictimTable } from '../../store/database.js'
import {
  type VictimRow,
  deleteVictimRow,
  findVictimRow,
  insertVictim,
  listVictimRows,
  updateVictimRow,
} from '../../store/repositories/victim.repository.js'
import { type RequestContext, requirePermission } from '../context.js'
import { type OwnerScope, ownerIdsToRead } from '../access/owner-scope.js'
import { invalid, notFound } from '../../core/errors.js'
import { requireBodyObject } from '../groups/input.js'
import { findReadableItem, requireWritableItem } from '../items/items.js'
import { type FieldFilter, toConditions } from '../listing/list-filters.js'
import { deleteItemMetadata } from '../metadata/item-metadata.js'
import { withTransactionDb } from '../transaction.js'
import { declaredRecordReader } from '../declared-record.js'

/** A Victim as the domain hands it on: its declared columns (model/victim.ts) and the owner's name and type. */
export type VictimRecord = ReturnType<typeof readVictimRow>

const OWNER = { ownerName: 'owner_name', ownerType: 'owner_type' } as const
const readVictimRow = declaredRecordReader<typeof VICTIM, VictimRow, typeof OWNER>(VICTIM, OWNER)

export interface VictimQuery {
  filters?: readonly FieldFilter[]
  orParams?: boolean
  /** Victims associated with an item, or (via 'group') sharing a Group with it. */
  associatedWith?: { kind: ItemKind; id: number; via?: 'group' }
  ids?: readonly number[]
  /** Whose rows: the call's owner, or every readable owner (the default depends on the list; see ownerIdsToRead). */
  ownerScope?: OwnerScope
  resultStart?: number
  resultLimit?: number
}

/** Body names and their columns (model/victim.ts); name is handled apart since it is required. */
const TEXT_FIELDS: Record<string, string> = Object.fromEntries(
  VICTIM.fields
    .filter(
      (f: FieldDeclaration) => f.type === 'text' && f.column && f.name !== 'name' && (f.write ?? 'always') === 'always',
    )
    .map((f: FieldDeclaration) => [f.name, f.column!]),
)

export function toVictimRecord(row: VictimRow): VictimRecord {
  return readVictimRow(row)
}

/**
 * A Victim always has a name: required on create, and on update unless `keepName` (the v3
 * PUT, which changes only the fields it is given) lets an omitted name stand.
 */
function victimColumns(input: unknown, options: { keepName?: boolean } = {}): Updateable<VictimTable> {
  const body = requireBodyObject(input)
  const name = body.name
  const columns: Record<string, string | null> = {}
  if (!(options.keepName && (name === undefined || name === null))) {
    if (typeof name !== 'string' || !name.trim()) throw invalid('name is required for a Victim')
    if (name.length > 500) throw invalid('name is longer than 500 characters')
    columns.name = name.trim()
  }
  for (const [field, column] of Object.entries(TEXT_FIELDS)) {
    const value = body[field]
    if (value === undefined) continue
    if (value !== null && typeof value !== 'string') throw invalid(`${field} must be a string`)
    if (typeof value === 'string' && value.length > 10_000) throw invalid(`${field} is longer than 10000 characters`)
    columns[column] = value === null || value === '' ? null : value
  }
  return columns
}

async function loadRecord(ctx: RequestContext, id: number): Promise<VictimRecord> {
  const row = await findVictimRow(ctx.store.db, id)
  if (!row) throw notFound(`Victim ${id} not found`)
  return toVictimRecord(row)
}

export async function getVictim(ctx: RequestContext, id: number): Promise<VictimRecord> {
  await findReadableItem(ctx, 'victim', id)
  return loadRecord(ctx, id)
}

/** @example await createVictim(ctx, { name: 'HR Department', org: 'Example Org' }) */
export async function createVictim(ctx: RequestContext, input: unknown): Promise<VictimRecord> {
  await requirePermission(ctx, 'create')
  const columns = victimColumns(input)
  const id = await insertVictim(ctx.store.db, {
    ...columns,
    name: String(columns.name),
    owner_id: ctx.owner.id,
    date_added: ctx.now,
    last_modified: ctx.now,
  })
  return loadRecord(ctx, id)
}

/** Updates a Victim; name is required in every update, as the platform documents. */
export async function updateVictim(
  ctx: RequestContext,
  id: number,
  input: unknown,
  options: { keepName?: boolean } = {},
): Promise<VictimRecord> {
  await requireWritableItem(ctx, 'victim', id, 'update')
  await updateVictimRow(ctx.store.db, id, { ...victimColumns(input, options), last_modified: ctx.now })
  return loadRecord(ctx, id)
}

/** Deletes the Victim, its assets and everything attached to either. */
export async function deleteVictim(ctx: RequestContext, id: number): Promise<void> {
  await requireWritableItem(ctx, 'victim', id, 'delete')
  await withTransactionDb(ctx, async (trx) => {
    await deleteItemMetadata(trx, 'victim', [id])
    const assetIds = await deleteVictimRow(trx, id)
    await deleteItemMetadata(trx, 'victimAsset', assetIds)
  })
}

/**
 * Lists Victims in ctx.owner, or in every readable owner for an association scope.
 * @example await listVictims(ctx, { associatedWith: { kind: 'victim', id: 3, via: 'group' } })
 */
export async function listVictims(
  ctx: RequestContext,
  query: VictimQuery = {},
): Promise<{ items: VictimRecord[]; total: number }> {
  const conditions = toConditions(
    { resource: 'Victims', specs: { name: { column: 'name', kind: 'string', ops: ['='] } } },
    query.filters ?? [],
  )
  if (query.associatedWith) await findReadableItem(ctx, query.associatedWith.kind, query.associatedWith.id)
  const ownerIds = ownerIdsToRead(ctx, query.ownerScope, { associations: !!query.associatedWith })
  const { rows, total } = await listVictimRows(ctx.store.db, {
    ownerIds,
    conditions,
    combine: query.orParams ? 'or' : 'and',
    associatedWith: query.associatedWith,
    ids: query.ids,
    offset: query.resultStart ?? 0,
    limit: query.resultLimit ?? 100,
  })
  return { items: rows.map(toVictimRecord), total }
}

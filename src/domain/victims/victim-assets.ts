/**
 * Victim Assets (email addresses, network accounts, phone numbers, social networks, web
 * sites) of a Victim. Each type has one required value field and maybe a detail field
 * (model/group-types.ts). Assets live in their Victim's owner.
 */
import { type AssetTypeDef, VICTIM_ASSET_TYPES, findVictimAssetType } from '../../model/group-types.js'
import type { ItemKind } from '../../model/kinds.js'
import {
  type VictimAssetRow,
  deleteVictimAssetRow,
  findVictimAssetRow,
  findVictimAssetRowsByIds,
  insertVictimAsset,
  listVictimAssetRows,
  updateVictimAssetRow,
} from '../../store/repositories/victim.repository.js'
import type { RequestContext } from '../context.js'
import { type OwnerScope, keepReadableRows, ownerIdsToRead } from '../access/owner-scope.js'
import { invalid, notFound } from '../../core/errors.js'
import { requireBodyObject } from '../groups/input.js'
import { findReadableItem, requireWritableItem } from '../items/items.js'
import { deleteItemMetadata } from '../metadata/item-metadata.js'
import { withTransactionDb } from '../transaction.js'

export interface VictimAssetRecord {
  id: number
  victimId: number
  ownerId: number
  /** EmailAddress, NetworkAccount, Phone, SocialNetwork or WebSite. */
  type: string
  value: string
  detail: string | null
  dateAdded: string
}

export interface VictimAssetQuery {
  victimId?: number
  /** Type name or branch (`emailAddresses`). */
  type?: string
  associatedWith?: { kind: ItemKind; id: number; via?: 'group' }
  ids?: readonly number[]
  /** false when no total is needed (a load by ids), which spares a count query. */
  countTotal?: false
  /** Whose rows: the call's owner, or every readable owner (the default depends on the list; see ownerIdsToRead). */
  ownerScope?: OwnerScope
  resultStart?: number
  resultLimit?: number
}

/** Unknown asset types are 404, like an unknown path. */
export function requireVictimAssetType(nameOrBranch: string): AssetTypeDef {
  const def = findVictimAssetType(nameOrBranch)
  if (!def)
    throw notFound(
      `Unknown Victim Asset type '${nameOrBranch}'; use ${VICTIM_ASSET_TYPES.map((t) => t.apiBranch).join(', ')}`,
    )
  return def
}

function toRecord(row: VictimAssetRow): VictimAssetRecord {
  return {
    id: row.id,
    victimId: row.victim_id,
    ownerId: row.owner_id,
    type: row.type,
    value: row.value,
    detail: row.detail,
    dateAdded: row.date_added,
  }
}

function readFields(def: AssetTypeDef, input: unknown): { value: string; detail?: string | null } {
  const body = requireBodyObject(input)
  const value = body[def.valueField]
  if (typeof value !== 'string' || !value.trim()) throw invalid(`${def.valueField} is required for ${def.apiBranch}`)
  if (value.length > 500) throw invalid(`${def.valueField} is longer than 500 characters`)
  const fields: { value: string; detail?: string | null } = { value: value.trim() }
  if (def.detailField && body[def.detailField] !== undefined) {
    const detail = body[def.detailField]
    if (detail !== null && typeof detail !== 'string') throw invalid(`${def.detailField} must be a string`)
    fields.detail = detail === null || detail === '' ? null : detail
  }
  return fields
}

export async function getVictimAsset(
  ctx: RequestContext,
  victimId: number,
  type: string,
  assetId: number,
): Promise<VictimAssetRecord> {
  await findReadableItem(ctx, 'victim', victimId)
  const def = requireVictimAssetType(type)
  const row = await findVictimAssetRow(ctx.store.db, assetId)
  if (!row || row.victim_id !== victimId || row.type !== def.name) throw notFound(`Victim Asset ${assetId} not found`)
  return toRecord(row)
}

/** A Victim Asset by id alone (for association paths). */
export async function getVictimAssetById(
  ctx: RequestContext,
  assetId: number,
  type?: string,
): Promise<VictimAssetRecord> {
  await findReadableItem(ctx, 'victimAsset', assetId)
  const row = await findVictimAssetRow(ctx.store.db, assetId)
  if (!row || (type !== undefined && row.type !== requireVictimAssetType(type).name))
    throw notFound(`Victim Asset ${assetId} not found`)
  return toRecord(row)
}

/** @example await createVictimAsset(ctx, 7, 'networkAccounts', { account: 'jdoe', network: 'Active Directory' }) */
export async function createVictimAsset(
  ctx: RequestContext,
  victimId: number,
  type: string,
  input: unknown,
): Promise<VictimAssetRecord> {
  const victim = await requireWritableItem(ctx, 'victim', victimId, 'create')
  const def = requireVictimAssetType(type)
  const fields = readFields(def, input)
  const id = await insertVictimAsset(ctx.store.db, {
    victim_id: victimId,
    owner_id: victim.ownerId,
    type: def.name,
    value: fields.value,
    detail: fields.detail ?? null,
    date_added: ctx.now,
  })
  return {
    id,
    victimId,
    ownerId: victim.ownerId,
    type: def.name,
    value: fields.value,
    detail: fields.detail ?? null,
    dateAdded: ctx.now,
  }
}

/** The value field is required on update too (the spec's table). */
export async function updateVictimAsset(
  ctx: RequestContext,
  victimId: number,
  type: string,
  assetId: number,
  input: unknown,
): Promise<VictimAssetRecord> {
  await requireWritableItem(ctx, 'victim', victimId, 'update')
  const current = await getVictimAsset(ctx, victimId, type, assetId)
  const fields = readFields(requireVictimAssetType(type), input)
  await updateVictimAssetRow(ctx.store.db, assetId, fields)
  return { ...current, value: fields.value, detail: fields.detail === undefined ? current.detail : fields.detail }
}

export async function deleteVictimAsset(
  ctx: RequestContext,
  victimId: number,
  type: string,
  assetId: number,
): Promise<void> {
  await requireWritableItem(ctx, 'victim', victimId, 'delete')
  await getVictimAsset(ctx, victimId, type, assetId)
  await withTransactionDb(ctx, async (trx) => {
    await deleteItemMetadata(trx, 'victimAsset', [assetId])
    await deleteVictimAssetRow(trx, assetId)
  })
}

/** Victim assets by id, in any owner the caller can read, in no particular order. */
export async function loadReadableVictimAssets(
  ctx: RequestContext,
  ids: readonly number[],
): Promise<VictimAssetRecord[]> {
  return keepReadableRows(ctx.caller, await findVictimAssetRowsByIds(ctx.store, ids)).map(toRecord)
}

/**
 * Lists Victim Assets of a Victim, of an association scope, or of ctx.owner.
 * @example await listVictimAssets(ctx, { associatedWith: { kind: 'group', id: 12 }, type: 'emailAddresses' })
 */
export async function listVictimAssets(
  ctx: RequestContext,
  query: VictimAssetQuery = {},
): Promise<{ items: VictimAssetRecord[]; total: number }> {
  const def = query.type === undefined ? undefined : requireVictimAssetType(query.type)
  if (query.victimId !== undefined) await findReadableItem(ctx, 'victim', query.victimId)
  if (query.associatedWith) await findReadableItem(ctx, query.associatedWith.kind, query.associatedWith.id)
  const scoped = query.victimId !== undefined || query.associatedWith !== undefined
  const ownerIds = ownerIdsToRead(ctx, query.ownerScope, { associations: scoped })
  const { rows, total } = await listVictimAssetRows(ctx.store.db, {
    ownerIds,
    victimId: query.victimId,
    type: def?.name,
    associatedWith: query.associatedWith,
    ids: query.ids,
    countTotal: query.countTotal,
    offset: query.resultStart ?? 0,
    limit: query.resultLimit ?? 100,
  })
  return { items: rows.map(toRecord), total }
}

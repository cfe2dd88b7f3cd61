/**
 * Adversary Assets: the handles, phone numbers and URLs an Adversary uses. They belong to
 * their Adversary; reading needs read access to it, writing needs the write permission there.
 */
import { ADVERSARY_ASSET_TYPES } from '../../model/group-types.js'
import {
  deleteAdversaryAssetRow,
  findAdversaryAssetRow,
  insertAdversaryAsset,
  listAdversaryAssetRows,
  updateAdversaryAssetValue,
} from '../../store/repositories/group.repository.js'
import type { RequestContext } from '../context.js'
import { invalid, notFound } from '../../core/errors.js'
import { findReadableGroup, findWritableGroup } from './groups.js'
import { requireBodyObject } from './input.js'

export type AdversaryAssetType = (typeof ADVERSARY_ASSET_TYPES)[number]

export interface AdversaryAssetRecord {
  id: number
  adversaryId: number
  /** Handle, PhoneNumber or URL. */
  type: string
  value: string
  dateAdded: string
}

/** Finds an asset type by branch (`phoneNumbers`) or name; unknown is 404 like an unknown path. */
export function requireAdversaryAssetType(nameOrBranch: string): AdversaryAssetType {
  const key = nameOrBranch.toLowerCase()
  const def = ADVERSARY_ASSET_TYPES.find((t) => t.apiBranch.toLowerCase() === key || t.name.toLowerCase() === key)
  if (!def) throw notFound(`Unknown Adversary Asset type '${nameOrBranch}'; use handles, phoneNumbers or urls`)
  return def
}

function toRecord(row: {
  id: number
  group_id: number
  type: string
  value: string
  date_added: string
}): AdversaryAssetRecord {
  return { id: row.id, adversaryId: row.group_id, type: row.type, value: row.value, dateAdded: row.date_added }
}

function readValue(def: AdversaryAssetType, input: unknown): string {
  const value = requireBodyObject(input)[def.valueField]
  if (typeof value !== 'string' || !value.trim()) throw invalid(`${def.valueField} is required for ${def.apiBranch}`)
  if (value.length > 500) throw invalid(`${def.valueField} is longer than 500 characters`)
  return value.trim()
}

/** @example await listAdversaryAssets(ctx, 12, 'handles') */
export async function listAdversaryAssets(
  ctx: RequestContext,
  adversaryId: number,
  type?: string,
): Promise<AdversaryAssetRecord[]> {
  await findReadableGroup(ctx, adversaryId, 'adversaries')
  const def = type === undefined ? undefined : requireAdversaryAssetType(type)
  return (await listAdversaryAssetRows(ctx.store.db, adversaryId, def?.name)).map(toRecord)
}

export async function getAdversaryAsset(
  ctx: RequestContext,
  adversaryId: number,
  type: string,
  assetId: number,
): Promise<AdversaryAssetRecord> {
  await findReadableGroup(ctx, adversaryId, 'adversaries')
  const def = requireAdversaryAssetType(type)
  const row = await findAdversaryAssetRow(ctx.store.db, adversaryId, assetId)
  if (!row || row.type !== def.name) throw notFound(`Adversary Asset ${assetId} not found`)
  return toRecord(row)
}

/** @example await createAdversaryAsset(ctx, 12, 'handles', { handle: 'Pierre' }) */
export async function createAdversaryAsset(
  ctx: RequestContext,
  adversaryId: number,
  type: string,
  input: unknown,
): Promise<AdversaryAssetRecord> {
  await findWritableGroup(ctx, adversaryId, 'adversaries', 'create')
  const def = requireAdversaryAssetType(type)
  const value = readValue(def, input)
  const id = await insertAdversaryAsset(ctx.store.db, {
    group_id: adversaryId,
    type: def.name,
    value,
    date_added: ctx.now,
  })
  return { id, adversaryId, type: def.name, value, dateAdded: ctx.now }
}

export async function updateAdversaryAsset(
  ctx: RequestContext,
  adversaryId: number,
  type: string,
  assetId: number,
  input: unknown,
): Promise<AdversaryAssetRecord> {
  await findWritableGroup(ctx, adversaryId, 'adversaries', 'update')
  const current = await getAdversaryAsset(ctx, adversaryId, type, assetId)
  const def = requireAdversaryAssetType(type)
  const body = requireBodyObject(input)
  if (body[def.valueField] === undefined) return current
  const value = readValue(def, body)
  await updateAdversaryAssetValue(ctx.store.db, assetId, value)
  return { ...current, value }
}

export async function deleteAdversaryAsset(
  ctx: RequestContext,
  adversaryId: number,
  type: string,
  assetId: number,
): Promise<void> {
  await findWritableGroup(ctx, adversaryId, 'adversaries', 'delete')
  await getAdversaryAsset(ctx, adversaryId, type, assetId)
  await deleteAdversaryAssetRow(ctx.store.db, assetId)
}

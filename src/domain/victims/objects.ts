/**
 * Victims and Victim Assets as v3 objects. v3 names the asset value fields differently from
 * v2 (accountName/networkType, phone, website, socialNetwork); they are mapped here onto the
 * rules in domain/victims/victim-assets.ts. A Victim body may nest new `assets`, created before its
 * associations so that a new Victim can be associated in the same request.
 */
import { type AssetTypeDef, VICTIM_ASSET_TYPES, findVictimAssetType } from '../../model/group-types.js'
import type { RequestContext } from '../context.js'
import { contextForNewObject, keepReadableRows } from '../access/owner-scope.js'
import { findVictimRowsByIds } from '../../store/repositories/victim.repository.js'
import { invalid, notFound } from '../../core/errors.js'
import { type ItemInfo, findReadableItem, requireWritableItem } from '../items/items.js'
import { type Body, type MemberName, applyMembers, isBody, takeMembers } from '../items/nested-writes.js'
import {
  type ListSource,
  type ObjectListQuery,
  findMatchingIds,
  inIdOrder,
  listObjectIds,
} from '../listing/object-lists.js'
import { withTransaction } from '../transaction.js'
import {
  type VictimAssetRecord,
  createVictimAsset,
  deleteVictimAsset,
  getVictimAssetById,
  listVictimAssets,
  loadReadableVictimAssets,
  updateVictimAsset,
} from './victim-assets.js'
import { type VictimRecord, createVictim, deleteVictim, getVictim, toVictimRecord, updateVictim } from './victims.js'
import { bodyId } from '../../core/input.js'

export const VICTIM_SOURCE: ListSource = { objectType: 'victims', table: 'victim', owner: 'owned' }
export const VICTIM_ASSET_SOURCE: ListSource = { objectType: 'victimAssets', table: 'victim_asset', owner: 'owned' }

export const VICTIM_MEMBERS: readonly MemberName[] = ['tags', 'securityLabels', 'attributes', 'associatedGroups']
export const VICTIM_ASSET_MEMBERS: readonly MemberName[] = ['associatedGroups']

export async function loadVictimRecords(ctx: RequestContext, ids: readonly number[]): Promise<VictimRecord[]> {
  if (ids.length === 0) return []
  return inIdOrder(ids, keepReadableRows(ctx.caller, await findVictimRowsByIds(ctx.store, ids)).map(toVictimRecord))
}

export async function loadVictimAssetRecords(
  ctx: RequestContext,
  ids: readonly number[],
): Promise<VictimAssetRecord[]> {
  if (ids.length === 0) return []
  return inIdOrder(ids, await loadReadableVictimAssets(ctx, ids))
}

export async function listVictimObjects(ctx: RequestContext, query: ObjectListQuery) {
  const page = await listObjectIds(ctx, VICTIM_SOURCE, query)
  return { ...page, items: await loadVictimRecords(ctx, page.ids) }
}

export async function listVictimAssetObjects(ctx: RequestContext, query: ObjectListQuery) {
  const page = await listObjectIds(ctx, VICTIM_ASSET_SOURCE, query)
  return { ...page, items: await loadVictimAssetRecords(ctx, page.ids) }
}

/** The assets of many Victims (fields=assets). */
export async function loadAssetsOfVictims(
  ctx: RequestContext,
  victimIds: readonly number[],
): Promise<Map<number, VictimAssetRecord[]>> {
  const map = new Map<number, VictimAssetRecord[]>()
  for (const victimId of victimIds) {
    map.set(victimId, (await listVictimAssets(ctx, { victimId, ownerScope: 'readable', resultLimit: 10_000 })).items)
  }
  return map
}

function requireAssetType(value: unknown): AssetTypeDef {
  const def = typeof value === 'string' ? findVictimAssetType(value) : undefined
  if (!def) throw invalid(`A Victim Asset needs a 'type': one of ${VICTIM_ASSET_TYPES.map((t) => t.name).join(', ')}`)
  return def
}

/** A v3 asset body in v2 names (the form domain/victims/victim-assets.ts reads). */
function v2AssetBody(def: AssetTypeDef, body: Body, current?: VictimAssetRecord): Body {
  const value = body[def.v3ValueField] ?? body[def.valueField] ?? current?.value
  const out: Body = { [def.valueField]: value }
  if (def.detailField && def.v3DetailField) {
    const detail = body[def.v3DetailField] ?? body[def.detailField]
    if (detail !== undefined) out[def.detailField] = detail
  }
  return out
}

async function createAssetIn(ctx: RequestContext, victimId: number, body: Body): Promise<ItemInfo> {
  const { fields, members } = takeMembers(body, VICTIM_ASSET_MEMBERS)
  const def = requireAssetType(fields.type)
  const asset = await createVictimAsset(ctx, victimId, def.apiBranch, v2AssetBody(def, fields))
  const item = await findReadableItem(ctx, 'victimAsset', asset.id)
  await applyMembers(ctx, item, members, { action: 'create' })
  return item
}

/** Nested creator for `associatedVictimAssets`: `{type, victimId, <value field>}`. */
export async function createVictimAssetIn(ctx: RequestContext, body: Body): Promise<ItemInfo> {
  const victimId = bodyId(body.victimId)
  if (victimId === undefined) throw invalid('A new Victim Asset needs a victimId')
  return createAssetIn(ctx, victimId, body)
}

function takeAssets(fields: Body): Body[] {
  const assets = fields.assets
  delete fields.assets
  if (assets === undefined || assets === null) return []
  if (!isBody(assets) || !Array.isArray(assets.data) || !assets.data.every(isBody))
    throw invalid("'assets' must be an object with a 'data' array of objects")
  return assets.data as Body[]
}

export async function createVictimObject(ctx: RequestContext, body: unknown): Promise<VictimRecord> {
  if (!isBody(body)) throw invalid('The request body must be a JSON object')
  const id = await withTransaction(ctx, async (raw) => {
    const tctx = contextForNewObject(raw, body)
    const { fields, members } = takeMembers(body, VICTIM_MEMBERS)
    const assets = takeAssets(fields)
    const victim = await createVictim(tctx, fields)
    for (const asset of assets) await createAssetIn(tctx, victim.id, asset)
    await applyMembers(tctx, await findReadableItem(tctx, 'victim', victim.id), members, { action: 'create' })
    return victim.id
  })
  return getVictim(ctx, id)
}

/** Updates the fields given (an omitted name stays: victims.ts's keepName), adds nested assets. */
export async function updateVictimObject(ctx: RequestContext, id: number, body: unknown): Promise<VictimRecord> {
  await withTransaction(ctx, async (tctx) => {
    const item = await requireWritableItem(tctx, 'victim', id, 'update')
    const { fields, members } = takeMembers(body, VICTIM_MEMBERS)
    const assets = takeAssets(fields)
    for (const key of ['id', 'ownerId', 'ownerName', 'webLink', 'dateAdded', 'lastModified']) delete fields[key]
    const columns = { ...fields, org: fields.org ?? fields.organization, suborg: fields.suborg ?? fields.subOrg }
    await updateVictim(tctx, id, columns, { keepName: true })
    for (const asset of assets) await createAssetIn(tctx, id, asset)
    await applyMembers(tctx, item, members, { action: 'update' })
  })
  return getVictim(ctx, id)
}

export async function deleteVictimObject(ctx: RequestContext, id: number): Promise<void> {
  await withTransaction(ctx, (tctx) => deleteVictim(tctx, id))
}

export async function deleteVictimsMatching(
  ctx: RequestContext,
  tql: string | undefined,
  scope: ObjectListQuery['ownerScope'],
): Promise<number> {
  return withTransaction(ctx, async (tctx) => {
    const ids = await findMatchingIds(tctx, VICTIM_SOURCE, tql, scope)
    for (const id of ids) await deleteVictim(tctx, id)
    return ids.length
  })
}

async function getAsset(ctx: RequestContext, id: number): Promise<VictimAssetRecord> {
  const [record] = await loadVictimAssetRecords(ctx, [id])
  if (!record) throw notFound(`Victim Asset ${id} not found`)
  return record
}

export async function createVictimAssetObject(ctx: RequestContext, body: unknown): Promise<VictimAssetRecord> {
  if (!isBody(body)) throw invalid('The request body must be a JSON object')
  const item = await withTransaction(ctx, (tctx) => createVictimAssetIn(tctx, body))
  return getAsset(ctx, item.id)
}

/** Updates the value or detail of an asset (its type and Victim stay). */
export async function updateVictimAssetObject(
  ctx: RequestContext,
  id: number,
  body: unknown,
): Promise<VictimAssetRecord> {
  await withTransaction(ctx, async (tctx) => {
    const current = await getVictimAssetById(tctx, id)
    const item = await requireWritableItem(tctx, 'victimAsset', id, 'update')
    const { fields, members } = takeMembers(body, VICTIM_ASSET_MEMBERS)
    const def = requireAssetType(current.type)
    await updateVictimAsset(tctx, current.victimId, def.apiBranch, id, v2AssetBody(def, fields, current))
    await applyMembers(tctx, item, members, { action: 'update' })
  })
  return getAsset(ctx, id)
}

export async function deleteVictimAssetObject(ctx: RequestContext, id: number): Promise<void> {
  await withTransaction(ctx, async (tctx) => {
    const current = await getVictimAssetById(tctx, id)
    await deleteVictimAsset(tctx, current.victimId, requireAssetType(current.type).apiBranch, id)
  })
}

export async function deleteVictimAssetsMatching(
  ctx: RequestContext,
  tql: string | undefined,
  scope: ObjectListQuery['ownerScope'],
): Promise<number> {
  return withTransaction(ctx, async (tctx) => {
    const ids = await findMatchingIds(tctx, VICTIM_ASSET_SOURCE, tql, scope)
    for (const record of await loadVictimAssetRecords(tctx, ids)) {
      await deleteVictimAsset(tctx, record.victimId, requireAssetType(record.type).apiBranch, record.id)
    }
    return ids.length
  })
}

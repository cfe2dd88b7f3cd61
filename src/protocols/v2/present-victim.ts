/**
 * Victims, Victim Assets and Adversary Assets in v2's shape. Asset lists use the generic
 * entity (victimAsset, bucketAsset: id, name, type, webLink); one type's list or a single
 * asset uses the type's entity with its own value fields (victimNetworkAccount: account, network).
 */
import type { AdversaryAssetRecord } from '../../domain/groups/adversary-assets.js'
import type { RequestContext } from '../../domain/context.js'
import type { VictimAssetRecord } from '../../domain/victims/victim-assets.js'
import type { VictimRecord } from '../../domain/victims/victims.js'
import { ADVERSARY_ASSET_TYPES, findVictimAssetType } from '../../model/group-types.js'
import { legacyLink } from '../http/links.js'
import type { Include } from './params.js'
import { type V2Extras, loadV2Extras, ownerObject } from './present-group.js'

export function presentVictimV2(v: VictimRecord, options: { publicUrl: string; single: boolean; extras?: V2Extras }) {
  return {
    id: v.id,
    name: v.name,
    ownerName: v.ownerName,
    ...(options.single ? { owner: ownerObject(v) } : {}),
    description: v.description ?? undefined,
    org: v.org ?? undefined,
    suborg: v.suborg ?? undefined,
    workLocation: v.workLocation ?? undefined,
    nationality: v.nationality ?? undefined,
    webLink: legacyLink(options.publicUrl, 'victim', v.id),
    ...options.extras,
  }
}

export async function presentVictimsV2(
  ctx: RequestContext,
  victims: VictimRecord[],
  includes: ReadonlySet<Include>,
  single = false,
) {
  const extras = await loadV2Extras(
    ctx,
    'victim',
    victims.map((v) => v.id),
    includes,
  )
  return victims.map((v) => presentVictimV2(v, { publicUrl: ctx.services.publicUrl, single, extras: extras.get(v.id) }))
}

/** `victimAsset` list entries: id, name (the value), type, webLink (the Victim's page). */
export function presentVictimAssetSummaryV2(publicUrl: string, a: VictimAssetRecord) {
  return { id: a.id, name: a.value, type: a.type, webLink: legacyLink(publicUrl, 'victim', a.victimId) }
}

/**
 * The per-type entity name and body (`victimEmailAddress`: address, addressType). Every asset record
 * has id, name, type and webLink, as the platform gives them; the value fields follow.
 */
export function presentVictimAssetV2(
  publicUrl: string,
  a: VictimAssetRecord,
): { entity: string; body: Record<string, unknown> } {
  const def = findVictimAssetType(a.type)
  const body: Record<string, unknown> = {
    id: a.id,
    name: a.value,
    type: a.type,
    webLink: legacyLink(publicUrl, 'victim', a.victimId),
  }
  if (def) {
    body[def.valueField] = a.value
    if (def.detailField && a.detail !== null) body[def.detailField] = a.detail
  }
  return { entity: def?.apiEntity ?? 'victimAsset', body }
}

/** `bucketAsset` list entries. */
export function presentAdversaryAssetSummaryV2(publicUrl: string, a: AdversaryAssetRecord) {
  return { id: a.id, name: a.value, type: a.type, webLink: legacyLink(publicUrl, 'adversary', a.adversaryId) }
}

export function presentAdversaryAssetV2(
  publicUrl: string,
  a: AdversaryAssetRecord,
): { entity: string; body: Record<string, unknown> } {
  const def = ADVERSARY_ASSET_TYPES.find((t) => t.name === a.type)
  const body: Record<string, unknown> = {
    id: a.id,
    name: a.value,
    type: a.type,
    webLink: legacyLink(publicUrl, 'adversary', a.adversaryId),
  }
  if (def) body[def.valueField] = a.value
  return { entity: def?.apiEntity ?? 'bucketAsset', body }
}

/**
 * Associations between items, with every rule in one place:
 * - which kinds may be associated (a Victim never directly with an Indicator or a Victim);
 * - a Victim needs at least one Victim Asset before it can be associated with anything;
 * - Victims and Victim Assets associate only within their own owner; other kinds may cross owners;
 * - typed Indicator-to-Indicator associations must fit their type's pair of Indicator types;
 * - the caller needs the `associate` permission in the owner of each side.
 */
import type { Kysely } from 'kysely'
import { ASSOCIATION_SOURCES, type AssociationSource } from '../../model/group-types.js'
import type { ItemKind } from '../../model/kinds.js'
import {
  type AssociationKey,
  deleteAssociation,
  findAssociationTypeByBranch,
  findAssociationTypeById,
  insertAssociation,
  listPartners,
} from '../../store/repositories/association.repository.js'
import type { Database } from '../../store/database.js'
import { countVictimAssets } from '../../store/repositories/item.repository.js'
import { type RequestContext, requirePermission } from '../context.js'
import { invalid, notFound } from '../../core/errors.js'
import { type ItemInfo, KIND_WORDS } from './items.js'

type Pair = `${ItemKind}:${ItemKind}`

const ALLOWED = new Set<Pair>()
function allow(a: ItemKind, ...others: ItemKind[]) {
  for (const b of others) {
    ALLOWED.add(`${a}:${b}`)
    ALLOWED.add(`${b}:${a}`)
  }
}
allow('group', 'group', 'indicator', 'victim', 'task', 'victimAsset', 'case', 'artifact', 'intelRequirement')
allow('indicator', 'indicator', 'task', 'case', 'artifact', 'intelRequirement')
allow('task', 'victim')
allow('victimAsset', 'intelRequirement')
allow('case', 'case', 'artifact', 'intelRequirement')
allow('artifact', 'intelRequirement')

/** Kinds that never associate across owners (the spec's v3 table: victims and victim assets). */
const SAME_OWNER_ONLY = new Set<ItemKind>(['victim', 'victimAsset'])

export function isAssociable(a: ItemKind, b: ItemKind): boolean {
  return ALLOWED.has(`${a}:${b}`)
}

export interface AssociateOptions {
  /** A typed Indicator-to-Indicator association (association_type id); 0 or absent for the plain one. */
  associationTypeId?: number
  source?: AssociationSource
}

async function checkRules(ctx: RequestContext, a: ItemInfo, b: ItemInfo, options: AssociateOptions) {
  if (!isAssociable(a.kind, b.kind)) {
    const why =
      (a.kind === 'victim' && b.kind === 'indicator') || (a.kind === 'indicator' && b.kind === 'victim')
        ? 'a Victim cannot be associated with an Indicator directly; associate both with a Group'
        : `${KIND_WORDS[a.kind]}s cannot be associated with ${KIND_WORDS[b.kind]}s`
    throw invalid(`Association not allowed: ${why}`)
  }
  if (a.kind === b.kind && a.id === b.id) throw invalid('An item cannot be associated with itself')
  if ((SAME_OWNER_ONLY.has(a.kind) || SAME_OWNER_ONLY.has(b.kind)) && a.ownerId !== b.ownerId) {
    throw invalid(
      `Association not allowed: ${SAME_OWNER_ONLY.has(a.kind) ? KIND_WORDS[a.kind] : KIND_WORDS[b.kind]}s associate only within their own owner`,
    )
  }
  await requirePermission(ctx, 'associate', a.membership)
  if (b.ownerId !== a.ownerId) await requirePermission(ctx, 'associate', b.membership)
  const db = ctx.store.db
  for (const side of [a, b]) {
    if (side.kind === 'victim' && (await countVictimAssets(db, side.id)) === 0) {
      throw invalid(`Victim ${side.id} needs at least one Victim Asset before it can be associated`)
    }
  }
  if (options.associationTypeId) await checkTypedPair(db, options.associationTypeId, a, b)
  if (options.source !== undefined && !ASSOCIATION_SOURCES.includes(options.source))
    throw invalid(`Unknown association source '${options.source}'`)
}

async function checkTypedPair(db: Kysely<Database>, typeId: number, a: ItemInfo, b: ItemInfo) {
  const type = await findAssociationTypeById(db, typeId)
  if (!type) throw notFound(`Association type ${typeId} not found`)
  if (a.kind !== 'indicator' || b.kind !== 'indicator') throw invalid(`'${type.name}' associates Indicators only`)
  const fits = (x?: string, y?: string) =>
    type.from_type.split(',').includes(x ?? '') && type.to_type.split(',').includes(y ?? '')
  if (!fits(a.type, b.type) && !fits(b.type, a.type)) {
    throw invalid(
      `Association cannot be applied to the indicator types: '${type.name}' links ${type.from_type} and ${type.to_type}`,
    )
  }
}

function keyOf(a: ItemInfo, b: ItemInfo, typeId = 0): AssociationKey {
  return { fromKind: a.kind, fromId: a.id, toKind: b.kind, toId: b.id, associationTypeId: typeId }
}

/** Associates two items; associating twice is harmless. Returns true when a new association was made. */
export async function associate(
  ctx: RequestContext,
  a: ItemInfo,
  b: ItemInfo,
  options: AssociateOptions = {},
): Promise<boolean> {
  await checkRules(ctx, a, b, options)
  return insertAssociation(ctx.store.db, keyOf(a, b, options.associationTypeId), options.source ?? 'API', ctx.now)
}

export async function dissociate(
  ctx: RequestContext,
  a: ItemInfo,
  b: ItemInfo,
  options: AssociateOptions = {},
): Promise<void> {
  await requirePermission(ctx, 'associate', a.membership)
  if (b.ownerId !== a.ownerId) await requirePermission(ctx, 'associate', b.membership)
  if (!(await deleteAssociation(ctx.store.db, keyOf(a, b, options.associationTypeId)))) {
    throw notFound(`${KIND_WORDS[a.kind]} ${a.id} is not associated with ${KIND_WORDS[b.kind]} ${b.id}`)
  }
}

/** Finds a custom association type by its API branch (`cidrToAddress`) or name. */
export async function requireAssociationType(db: Kysely<Database>, nameOrBranch: string) {
  const type = await findAssociationTypeByBranch(db, nameOrBranch)
  if (!type) throw notFound(`Association type '${nameOrBranch}' not found`)
  return type
}

/** Partner ids per item, for presenting many items' associations at once. */
export async function loadPartnerIds(
  db: Kysely<Database>,
  fromKind: ItemKind,
  ids: readonly number[],
  toKind: ItemKind,
  associationTypeId?: number,
) {
  const map = new Map<number, number[]>()
  for (const row of await listPartners(db, fromKind, ids, toKind, associationTypeId)) {
    const list = map.get(row.from_id)
    if (list) list.push(row.to_id)
    else map.set(row.from_id, [row.to_id])
  }
  return map
}

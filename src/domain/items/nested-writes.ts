/**
 * The members a v3 create or update body may nest: tags, securityLabels, attributes, the
 * associated* lists and case children (artifacts, notes). Each member is `{data: [...], mode?}`
 * with mode append (default), replace or delete. Members are applied inside the caller's
 * transaction, so one bad entry rejects the whole request and nothing is written.
 *
 * @example
 *   const { fields, members } = takeMembers(body, ['tags', 'attributes', 'associatedGroups'])
 *   await withTransaction(ctx, async (tctx) => { const item = await insertX(tctx, fields); await applyMembers(tctx, item, members, { action: 'create' }) })
 */
import type { ItemKind } from '../../model/kinds.js'
import { deleteAttributes, listAttributeIdsOf } from '../../store/repositories/metadata.repository.js'
import { listTagsOf, unlinkLabel, unlinkTag, listLabelsOf } from '../../store/repositories/metadata.repository.js'
import { findLabelByName } from '../../store/repositories/security-label.repository.js'
import { associate, dissociate, loadPartnerIds } from './associations.js'
import { type RequestContext, requirePermission } from '../context.js'
import { contextForNestedItem } from '../access/owner-scope.js'
import { DomainError, invalid, notFound } from '../../core/errors.js'
import { type ItemInfo, findReadableItem } from './items.js'
import { addAttribute, applyLabel, addTag } from '../metadata/item-metadata.js'
import { checkTagName } from '../metadata/tags.js'
import { markingsChanged } from '../metadata/item-changes.js'
import type { Action } from '../permissions.js'
import { bodyId } from '../../core/input.js'

export const MEMBER_MODES = ['append', 'replace', 'delete'] as const
export type MemberMode = (typeof MEMBER_MODES)[number]

/** Association members and the kind of item each one lists. */
export const ASSOCIATION_MEMBERS = {
  associatedArtifacts: 'artifact',
  associatedCases: 'case',
  associatedGroups: 'group',
  associatedIndicators: 'indicator',
  associatedVictimAssets: 'victimAsset',
} as const satisfies Record<string, ItemKind>

export type AssociationMember = keyof typeof ASSOCIATION_MEMBERS
export type MemberName = 'tags' | 'securityLabels' | 'attributes' | AssociationMember | 'artifacts' | 'notes'
export const MEMBER_NAMES: readonly MemberName[] = [
  'tags',
  'securityLabels',
  'attributes',
  ...(Object.keys(ASSOCIATION_MEMBERS) as AssociationMember[]),
  'artifacts',
  'notes',
]

export type Body = Record<string, unknown>

export interface NestedMember {
  name: MemberName
  /** Absent: the endpoint's default for the member (ApplyOptions.defaultModes), else append. */
  mode?: MemberMode
  data: Body[]
}

/** Creates a child item (an artifact or note of a case) from a nested body. */
export type ChildCreator = (ctx: RequestContext, parent: ItemInfo, body: Body) => Promise<unknown>

export interface ApplyOptions {
  /** Permission used for tags and attributes: 'create' while creating, 'update' on update, 'caseWrite' for case management. */
  action: Action
  /** Mode used when a member gives none (the platform: append; tags on case objects: replace). */
  defaultModes?: Partial<Record<MemberName, MemberMode>>
  /** How to create the children a member lists (case → artifacts, notes). */
  children?: Partial<Record<'artifacts' | 'notes', ChildCreator>>
}

export function isBody(value: unknown): value is Body {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * Splits a body into plain fields and the nested members the endpoint accepts. A member
 * the endpoint does not accept is a 400, not silently dropped.
 */
export function takeMembers(body: unknown, accepted: readonly MemberName[]): { fields: Body; members: NestedMember[] } {
  if (!isBody(body)) throw invalid('The request body must be a JSON object')
  const fields: Body = {}
  const members: NestedMember[] = []
  for (const [key, value] of Object.entries(body)) {
    if (!(MEMBER_NAMES as readonly string[]).includes(key)) {
      fields[key] = value
      continue
    }
    if (!accepted.includes(key as MemberName)) throw invalid(`'${key}' cannot be written on this endpoint`)
    if (value === null || value === undefined) continue
    if (!isBody(value) || !Array.isArray(value.data)) throw invalid(`'${key}' must be an object with a 'data' array`)
    const mode = value.mode === undefined || value.mode === null ? undefined : String(value.mode).toLowerCase()
    if (mode !== undefined && !(MEMBER_MODES as readonly string[]).includes(mode))
      throw invalid(`'${key}.mode' must be append, replace or delete`)
    value.data.forEach((entry, i) => {
      if (!isBody(entry)) throw invalid(`'${key}.data[${i}]' must be an object`)
    })
    members.push({ name: key as MemberName, mode: mode as MemberMode | undefined, data: value.data as Body[] })
  }
  return { fields, members }
}

/** Applies every member to the item, in body order. Call inside withTransaction. */
export async function applyMembers(
  ctx: RequestContext,
  item: ItemInfo,
  members: readonly NestedMember[],
  options: ApplyOptions,
): Promise<void> {
  if (!ctx.store.db.isTransaction) throw new Error('applyMembers must run inside withTransaction')
  for (const member of members) {
    const mode = member.mode ?? options.defaultModes?.[member.name] ?? 'append'
    try {
      await applyMember(ctx, item, { ...member, mode }, options)
    } catch (error) {
      if (error instanceof DomainError)
        throw new DomainError(error.code, `${member.name}: ${error.message}`, error.details)
      throw error
    }
  }
}

async function applyMember(ctx: RequestContext, item: ItemInfo, member: Required<NestedMember>, options: ApplyOptions) {
  switch (member.name) {
    case 'tags':
      return applyTags(ctx, item, member, options.action)
    case 'securityLabels':
      return applyLabels(ctx, item, member)
    case 'attributes':
      return applyAttributes(ctx, item, member, options.action)
    case 'artifacts':
    case 'notes': {
      const create = options.children?.[member.name]
      if (!create) throw invalid(`'${member.name}' cannot be written on this endpoint`)
      if (member.mode !== 'append')
        throw invalid(`only append is supported; existing ${member.name} are changed on their own, not nested`)
      for (const body of member.data) {
        if (body.id !== undefined) throw invalid(`existing ${member.name} are changed on their own, not nested`)
        await create(ctx, item, body)
      }
      return
    }
    default:
      return applyAssociations(ctx, item, member, ASSOCIATION_MEMBERS[member.name])
  }
}

function entryName(entry: Body, what: string): string {
  if (typeof entry.name !== 'string' || !entry.name.trim()) throw invalid(`every ${what} needs a name`)
  return entry.name.trim()
}

async function applyTags(ctx: RequestContext, item: ItemInfo, member: Required<NestedMember>, action: Action) {
  const db = ctx.store.db
  const names = member.data.map((e) => checkTagName(entryName(e, 'tag')))
  if (member.mode === 'append') {
    for (const name of names) await addTag(ctx, item, name, action)
    return
  }
  await requirePermission(ctx, action, item.membership)
  const current = await listTagsOf(db, item.kind, [item.id])
  const remove =
    member.mode === 'delete'
      ? current.filter((t) => names.includes(t.name))
      : current.filter((t) => !names.includes(t.name))
  for (const tag of remove) await unlinkTag(db, tag.id, item.kind, item.id)
  if (remove.length) await markingsChanged(db, item, ctx.now)
  if (member.mode === 'replace') for (const name of names) await addTag(ctx, item, name, action)
}

async function applyLabels(ctx: RequestContext, item: ItemInfo, member: Required<NestedMember>) {
  const db = ctx.store.db
  const names = member.data.map((e) => entryName(e, 'security label'))
  if (member.mode === 'append') {
    for (const name of names) await applyLabel(ctx, item, name)
    return
  }
  await requirePermission(ctx, 'applyLabel', item.membership)
  if (member.mode === 'delete') {
    for (const name of names) {
      const label = await findLabelByName(db, item.ownerId, name)
      if (!label) throw notFound(`Security Label '${name}' does not exist in ${item.ownerName}`)
      if (await unlinkLabel(db, label.id, item.kind, item.id)) await markingsChanged(db, item, ctx.now)
    }
    return
  }
  const wanted = new Set<number>()
  for (const name of names) {
    const label = await findLabelByName(db, item.ownerId, name)
    if (!label) throw notFound(`Security Label '${name}' does not exist in ${item.ownerName}`)
    wanted.add(label.id)
  }
  const unwanted = (await listLabelsOf(db, item.kind, [item.id])).filter((label) => !wanted.has(label.id))
  for (const label of unwanted) await unlinkLabel(db, label.id, item.kind, item.id)
  if (unwanted.length) await markingsChanged(db, item, ctx.now)
  for (const name of names) await applyLabel(ctx, item, name)
}

/** Adds one attribute from a v3 body ({type, value, source?, default?, pinned?, securityLabels?}). */
export async function addAttributeFromBody(ctx: RequestContext, item: ItemInfo, entry: Body, action: Action) {
  const added = await addAttribute(
    ctx,
    item,
    {
      type: entry.type,
      value: entry.value,
      source: entry.source,
      pinned: entry.pinned,
      displayed: entry.default ?? entry.displayed,
    },
    action,
  )
  const labels = entry.securityLabels
  if (labels !== undefined && labels !== null) {
    if (!isBody(labels) || !Array.isArray(labels.data))
      throw invalid("an attribute's 'securityLabels' must be an object with a 'data' array")
    const attributeItem: ItemInfo = { ...item, kind: 'attribute', id: added.id }
    for (const label of labels.data) {
      if (!isBody(label)) throw invalid('every security label must be an object')
      await applyLabel(ctx, attributeItem, entryName(label, 'security label'))
    }
  }
  return added
}

async function applyAttributes(ctx: RequestContext, item: ItemInfo, member: Required<NestedMember>, action: Action) {
  const db = ctx.store.db
  if (member.mode === 'delete') {
    await requirePermission(ctx, action, item.membership)
    const own = new Set((await listAttributeIdsOf(db, item.kind, item.id)).map((r) => r.id))
    const ids = member.data.map((e) => {
      const id = Number(e.id)
      if (!Number.isSafeInteger(id) || !own.has(id)) throw notFound(`attribute ${String(e.id)} is not on this item`)
      return id
    })
    await deleteAttributes(db, ids)
    return
  }
  if (member.mode === 'replace') {
    await requirePermission(ctx, action, item.membership)
    await deleteAttributes(
      db,
      (await listAttributeIdsOf(db, item.kind, item.id)).map((r) => r.id),
    )
  }
  for (const entry of member.data) await addAttributeFromBody(ctx, item, entry, action)
}

async function resolvePartner(ctx: RequestContext, kind: ItemKind, entry: Body, mode: MemberMode): Promise<ItemInfo> {
  const id = bodyId(entry.id)
  if (id !== undefined) return findReadableItem(ctx, kind, id)
  if (mode === 'delete') throw invalid('items to dissociate must be given by id')
  const resolver = ctx.services.nestedItems.resolvers[kind]
  const existing = resolver && (await resolver(ctx, entry))
  if (existing) return existing
  const create = ctx.services.nestedItems.creators[kind]
  if (!create) throw invalid(`new ${kind} items cannot be created here; give the id of an existing one`)
  return create(contextForNestedItem(ctx, entry), entry)
}

async function applyAssociations(ctx: RequestContext, item: ItemInfo, member: Required<NestedMember>, kind: ItemKind) {
  const db = ctx.store.db
  const partners: ItemInfo[] = []
  for (const entry of member.data) partners.push(await resolvePartner(ctx, kind, entry, member.mode))
  const current = new Set((await loadPartnerIds(db, item.kind, [item.id], kind, 0)).get(item.id) ?? [])
  if (member.mode === 'delete') {
    for (const partner of partners) if (current.has(partner.id)) await dissociate(ctx, item, partner)
    return
  }
  if (member.mode === 'replace') {
    const wanted = new Set(partners.map((p) => p.id))
    for (const id of current) if (!wanted.has(id)) await dissociate(ctx, item, await findReadableItem(ctx, kind, id))
  }
  for (const partner of partners) await associate(ctx, item, partner, { source: 'API' })
}

/**
 * Groups in v2's shape: lists carry ownerName, a single Group also carries the owner
 * object. Each type adds its own fields (eventDate, fileName…); includeAdditional adds xid and
 * status; includeTags / includeAttributes / includes=labels add tag, attribute, securityLabel.
 * Also the bulk loader for those includes, shared by the Task and Victim presenters.
 */
import type { RequestContext } from '../../domain/context.js'
import type { GroupRecord } from '../../domain/groups/groups.js'
import { loadAttributes, loadLabels, loadTags } from '../../domain/metadata/item-metadata.js'
import { toApiTime } from '../../core/time.js'
import { findGroupType } from '../../model/group-types.js'
import type { ItemKind } from '../../model/kinds.js'
import { legacyLink } from '../http/links.js'
import type { Include } from './params.js'
import { presentAttributeV2, presentSecurityLabelV2, presentTagV2 } from './present-metadata.js'

export interface V2Extras {
  tag?: unknown[]
  attribute?: unknown[]
  securityLabel?: unknown[]
}

/** Tags, attributes and labels of many items at once, keyed by item id, as the includes ask. */
export async function loadV2Extras(
  ctx: RequestContext,
  kind: ItemKind,
  ids: number[],
  includes: ReadonlySet<Include>,
): Promise<Map<number, V2Extras>> {
  const out = new Map<number, V2Extras>(ids.map((id) => [id, {}]))
  if (ids.length === 0) return out
  const db = ctx.store.db
  const [tags, attributes, labels] = await Promise.all([
    includes.has('tags') ? loadTags(db, kind, ids) : undefined,
    includes.has('attributes') ? loadAttributes(db, kind, ids) : undefined,
    includes.has('labels') ? loadLabels(db, kind, ids) : undefined,
  ])
  for (const id of ids) {
    const extras = out.get(id)!
    if (tags) extras.tag = (tags.get(id) ?? []).map((t) => presentTagV2(ctx.services.publicUrl, t))
    if (attributes) extras.attribute = (attributes.get(id) ?? []).map(presentAttributeV2)
    if (labels) extras.securityLabel = (labels.get(id) ?? []).map(presentSecurityLabelV2)
  }
  return out
}

export function ownerObject(r: { ownerId: number; ownerName: string; ownerType: string }) {
  return { id: r.ownerId, name: r.ownerName, type: r.ownerType }
}

export function groupEntity(type: string): string {
  return findGroupType(type)?.apiEntity ?? 'group'
}

export function groupWebLink(publicUrl: string, g: Pick<GroupRecord, 'id' | 'type'>): string {
  return legacyLink(publicUrl, groupEntity(g.type), g.id)
}

function typeFields(g: GroupRecord, single: boolean, additional: boolean): Record<string, unknown> {
  switch (g.type) {
    case 'Campaign':
      return { firstSeen: toApiTime(g.firstSeen) }
    case 'Document':
      return {
        fileName: g.fileName ?? undefined,
        fileSize: g.fileSize ?? undefined,
        status: g.status ?? undefined,
        malware: g.malware,
      }
    case 'Report':
      return {
        fileName: g.fileName ?? undefined,
        fileSize: g.fileSize ?? undefined,
        status: g.status ?? undefined,
        publishDate: toApiTime(g.publishDate),
      }
    case 'Email':
      return single
        ? {
            to: g.emailTo ?? undefined,
            from: g.emailFrom ?? undefined,
            subject: g.emailSubject ?? undefined,
            header: g.emailHeader ?? undefined,
            body: g.emailBody ?? undefined,
            score: g.emailScore ?? undefined,
          }
        : {}
    case 'Event':
    case 'Incident':
      return { eventDate: toApiTime(g.eventDate), ...(additional ? { status: g.status ?? undefined } : {}) }
    case 'Signature':
      return {
        fileName: g.fileName ?? undefined,
        fileType: g.fileType ?? undefined,
        ...(additional && single ? { fileText: g.fileText ?? undefined } : {}),
      }
    default:
      return {}
  }
}

/**
 * One Group in v2's shape.
 * @example presentGroupV2(record, { publicUrl, includes: new Set(['additional']), single: true })
 */
export function presentGroupV2(
  g: GroupRecord,
  options: { publicUrl: string; includes: ReadonlySet<Include>; single: boolean; extras?: V2Extras },
) {
  const additional = options.includes.has('additional')
  return {
    id: g.id,
    name: g.name,
    type: g.type,
    ownerName: g.ownerName,
    ...(options.single ? { owner: ownerObject(g) } : {}),
    dateAdded: toApiTime(g.dateAdded),
    lastModified: toApiTime(g.lastModified),
    webLink: groupWebLink(options.publicUrl, g),
    ...typeFields(g, options.single, additional),
    ...(additional ? { xid: g.xid ?? undefined, status: g.status ?? undefined } : {}),
    ...options.extras,
  }
}

/** A page of Groups with their includes loaded in bulk. */
export async function presentGroupsV2(ctx: RequestContext, groups: GroupRecord[], includes: ReadonlySet<Include>) {
  const extras = await loadV2Extras(
    ctx,
    'group',
    groups.map((g) => g.id),
    includes,
  )
  return groups.map((g) =>
    presentGroupV2(g, { publicUrl: ctx.services.publicUrl, includes, single: false, extras: extras.get(g.id) }),
  )
}

export async function presentOneGroupV2(ctx: RequestContext, group: GroupRecord, includes: ReadonlySet<Include>) {
  const extras = await loadV2Extras(ctx, 'group', [group.id], includes)
  return presentGroupV2(group, {
    publicUrl: ctx.services.publicUrl,
    includes,
    single: true,
    extras: extras.get(group.id),
  })
}

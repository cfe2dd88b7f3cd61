/** Victims and Victim Assets in v3. Asset values go by their v3 names (accountName, phone, website …). */
import type { RequestContext } from '../../domain/context.js'
import { toApiTime } from '../../core/time.js'
import type { VictimAssetRecord } from '../../domain/victims/victim-assets.js'
import type { VictimRecord } from '../../domain/victims/victims.js'
import { findVictimAssetType } from '../../model/group-types.js'
import { detailsLink } from '../http/links.js'
import { compact } from './present-metadata.js'

export function presentVictimV3(v: VictimRecord, { ctx }: { ctx: RequestContext }): Record<string, unknown> {
  return compact({
    id: v.id,
    ownerId: v.ownerId,
    ownerName: v.ownerName,
    webLink: detailsLink(ctx.services.publicUrl, 'victims', v.id),
    name: v.name,
    description: v.description,
    org: v.org,
    suborg: v.suborg,
    workLocation: v.workLocation,
    nationality: v.nationality,
    dateAdded: toApiTime(v.dateAdded),
    lastModified: toApiTime(v.lastModified),
  })
}

export function presentVictimAssetV3(a: VictimAssetRecord, { ctx }: { ctx: RequestContext }): Record<string, unknown> {
  const def = findVictimAssetType(a.type)
  return compact({
    id: a.id,
    type: a.type,
    victimId: a.victimId,
    webLink: detailsLink(ctx.services.publicUrl, 'victimAssets', a.id),
    [def?.v3ValueField ?? 'value']: a.value,
    ...(def?.v3DetailField ? { [def.v3DetailField]: a.detail } : {}),
    dateAdded: toApiTime(a.dateAdded),
  })
}

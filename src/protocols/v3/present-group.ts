/**
 * A Group in v3: the common default fields, the fields of its type, and the fields= values
 * the record holds (sightings, externalDates, insights). Vote counts are strings, as the
 * platform sends them.
 */
import type { RequestContext } from '../../domain/context.js'
import type { GroupObject } from '../../domain/groups/objects.js'
import { toApiTime } from '../../core/time.js'
import { GROUP } from '../../model/group.js'
import { findGroupType } from '../../model/group-types.js'
import { detailsLink, legacyLink } from '../http/links.js'
import { presentOption } from './declared-present.js'
import type { FieldTree } from './params.js'
import { compact, presentUser } from './present-metadata.js'

const WITH_INSIGHTS = new Set(['Document', 'Event', 'Report'])
const SIGHTINGS = presentOption(GROUP, 'sightings')
const EXTERNAL_DATES = presentOption(GROUP, 'externalDates')

function typeFields(g: GroupObject): Record<string, unknown> {
  const document = {
    fileName: g.fileName,
    fileSize: g.fileSize,
    status: g.status,
    documentType: g.documentType,
    documentDateAdded: toApiTime(g.documentDateAdded),
  }
  switch (g.type) {
    case 'Document':
      return { ...document, malware: g.malware, password: g.password }
    case 'Report':
      return { ...document, publishDate: toApiTime(g.publishDate), generatedReport: g.generatedReport }
    case 'Event':
      return { eventDate: toApiTime(g.eventDate), status: g.status, eventType: g.eventType }
    case 'Incident':
      return { eventDate: toApiTime(g.eventDate), status: g.status }
    case 'Campaign':
      return { firstSeen: toApiTime(g.firstSeen) }
    case 'Email':
      return {
        to: g.emailTo,
        from: g.emailFrom,
        subject: g.emailSubject,
        header: g.emailHeader,
        body: g.emailBody,
        emailDate: toApiTime(g.emailDate),
        score: g.emailScore,
      }
    case 'Signature':
      return { fileName: g.fileName, fileType: g.fileType, fileText: g.fileText }
    default:
      return {}
  }
}

/** insights is stored as the platform's JSON object; plain text is shown as its summary. */
function insightsOf(g: GroupObject): Record<string, unknown> | undefined {
  if (!g.insights) return undefined
  try {
    const parsed = JSON.parse(g.insights) as unknown
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>
  } catch {
    // not JSON: fall through
  }
  return compact({ summary: g.insights, aiProvider: g.aiProvider })
}

export function presentGroupV3(
  g: GroupObject,
  { ctx, fields }: { ctx: RequestContext; fields: FieldTree },
): Record<string, unknown> {
  const publicUrl = ctx.services.publicUrl
  const out: Record<string, unknown> = {
    id: g.id,
    dateAdded: toApiTime(g.dateAdded),
    ownerId: g.ownerId,
    ownerName: g.ownerName,
    webLink: detailsLink(publicUrl, 'groups', g.id),
    type: g.type,
    name: g.name,
    xid: g.xid,
    createdBy: presentUser(g.creator),
    upVoteCount: String(g.upVoteCount),
    downVoteCount: String(g.downVoteCount),
    lastModified: toApiTime(g.lastModified),
    ...typeFields(g),
    legacyLink: legacyLink(publicUrl, findGroupType(g.type)?.apiEntity ?? 'group', g.id),
  }
  if (fields.has('sightings')) Object.assign(out, SIGHTINGS(g))
  if (fields.has('externalDates')) Object.assign(out, EXTERNAL_DATES(g))
  if (fields.has('insights') && WITH_INSIGHTS.has(g.type))
    Object.assign(out, { customAiContent: g.customAiContent, insights: insightsOf(g) })
  return compact(out)
}

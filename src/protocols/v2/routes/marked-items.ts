/**
 * The item lists under a tag or a label (/v2/tags/{name}/groups…, /v2/securityLabels/{name}/
 * indicators…), shared by both route modules, and the `filters=` parser they share.
 * Items are short v2 records (id, name or summary, type, owner, dates, webLink).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { RequestContext } from '../../../domain/context.js'
import { invalid } from '../../../core/errors.js'
import { type MarkedItem, type MarkedPath, listMarkedItems } from '../../../domain/metadata/tags.js'
import { toApiTime } from '../../../core/time.js'
import { findGroupType } from '../../../model/group-types.js'
import { findIndicatorType, findIndicatorTypeByBranch } from '../../../model/indicator-types.js'
import type { Marker, MarkedKind } from '../../../store/repositories/tag.repository.js'
import { legacyIndicatorLink, legacyLink } from '../../http/links.js'
import { type FilterExpression, type Query, flag, parseFilterExpressions, parsePaging, query } from '../params.js'
import { sendItem, sendList } from '../present.js'
import * as S from '../schemas.js'

/** The shared `filters=` syntax, each expression checked against the fields and operators this resource allows. */
export function parseFilters(
  q: Query,
  allowed: Record<string, readonly string[]>,
): { expressions: FilterExpression[]; any: boolean } {
  const expressions = parseFilterExpressions(q).map((e) => {
    if (!allowed[e.field]) throw invalid(`Unknown filter '${e.field}': use ${Object.keys(allowed).join(' or ')}`)
    if (!allowed[e.field].includes(e.op))
      throw invalid(`Filter ${e.field} takes the operators ${allowed[e.field].join(' ')}, not ${e.op}`)
    return e
  })
  return { expressions, any: flag(q, 'orParams') }
}

function bool(value: unknown): boolean {
  return value === 1 || value === true
}

export function presentMarkedItemV2(publicUrl: string, item: MarkedItem): Record<string, unknown> {
  const f = item.fields
  if (item.kind === 'indicator') {
    const def = findIndicatorType(item.type ?? '')
    const entity = def?.apiEntity ?? 'indicator'
    const record: Record<string, unknown> = {
      id: item.id,
      ownerName: item.ownerName,
      type: item.type,
      dateAdded: toApiTime(item.dateAdded),
      lastModified: toApiTime(item.lastModified),
      rating: f.rating ?? undefined,
      confidence: f.confidence ?? undefined,
      threatAssessRating: f.threat_assess_rating ?? undefined,
      threatAssessConfidence: f.threat_assess_confidence ?? undefined,
      threatAssessScore: f.threat_assess_score ?? undefined,
      calScore: f.cal_score ?? undefined,
      webLink: legacyIndicatorLink(publicUrl, entity, item.summary ?? '', item.ownerName),
      summary: item.summary,
    }
    // The value fields too, as in every v2 Indicator record: the v2 SDK's parser reads them (present-indicator.ts).
    const values = [f.value1, f.value2, f.value3]
    def?.fields.forEach((field, i) => {
      if (values[i]) record[field.name] = values[i]
    })
    if (def?.name === 'Host')
      Object.assign(record, { dnsActive: String(bool(f.dns_active)), whoisActive: String(bool(f.whois_active)) })
    return record
  }
  if (item.kind === 'group') {
    const entity = findGroupType(item.type ?? '')?.apiEntity ?? 'group'
    return {
      id: item.id,
      name: item.name,
      type: item.type,
      ownerName: item.ownerName,
      dateAdded: toApiTime(item.dateAdded),
      lastModified: toApiTime(item.lastModified),
      webLink: legacyLink(publicUrl, entity, item.id),
    }
  }
  if (item.kind === 'task') {
    const due = f.due_date as string | null
    return {
      id: item.id,
      name: item.name,
      ownerName: item.ownerName,
      dateAdded: toApiTime(item.dateAdded),
      lastModified: toApiTime(item.lastModified),
      webLink: legacyLink(publicUrl, 'task', item.id),
      status: f.status,
      escalated: bool(f.escalated),
      reminded: bool(f.reminded),
      overdue: !!due && !f.completed_date && due < new Date().toISOString(),
      dueDate: toApiTime(due),
      reminderDate: toApiTime(f.reminder_date as string | null),
      escalationDate: toApiTime(f.escalation_date as string | null),
    }
  }
  return {
    id: item.id,
    name: item.name,
    ownerName: item.ownerName,
    description: f.description ?? undefined,
    org: f.org ?? undefined,
    suborg: f.suborg ?? undefined,
    workLocation: f.work_location ?? undefined,
    nationality: f.nationality ?? undefined,
    webLink: legacyLink(publicUrl, 'victim', item.id),
  }
}

const ENTITIES: Record<MarkedKind, string> = { indicator: 'indicator', group: 'group', task: 'task', victim: 'victim' }

/** v2 names a typed list after the type (`incident`, `address`), an untyped one after the kind. */
function entityFor(kind: MarkedKind, type: string | undefined): string {
  if (type === undefined) return ENTITIES[kind]
  if (kind === 'indicator') return findIndicatorTypeByBranch(type)?.apiEntity ?? ENTITIES[kind]
  if (kind === 'group') return findGroupType(type)?.apiEntity ?? ENTITIES[kind]
  return ENTITIES[kind]
}

type Params = { name: string; type?: string; id?: string }
type ResolveMarker = (ctx: RequestContext, name: string) => Promise<Marker>

/** Registers <prefix>/groups[/{type}[/{id}]], /indicators[/{type}[/{value}]], /tasks[/{id}], /victims[/{id}]. */
export function registerMarkedItemRoutes(app: FastifyInstance, prefix: string, resolveMarker: ResolveMarker): void {
  const serve =
    (kind: MarkedKind, path: (p: Params) => MarkedPath) =>
    async (req: FastifyRequest<{ Params: Params }>, reply: any) => {
      const marker = await resolveMarker(req.ctx, req.params.name)
      const where = path(req.params)
      const paging = parsePaging(query(req))
      const publicUrl = req.ctx.services.publicUrl
      const { items, total } = await listMarkedItems(req.ctx, marker, kind, where, {
        offset: paging.resultStart,
        limit: paging.resultLimit,
      })
      const entity = entityFor(kind, where.type)
      if (where.id !== undefined) return sendItem(req, reply, entity, presentMarkedItemV2(publicUrl, items[0]))
      return sendList(
        req,
        reply,
        entity,
        items.map((i) => presentMarkedItemV2(publicUrl, i)),
        paging,
        total,
      )
    }
  app.get(
    `${prefix}/groups`,
    { schema: S.v2List(S.ANY_ITEM, { summary: 'Groups carrying it' }) },
    serve('group', () => ({})),
  )
  app.get(
    `${prefix}/groups/:type`,
    { schema: S.v2List(S.ANY_ITEM, { summary: 'Groups of one type carrying it' }) },
    serve('group', (p) => ({ type: p.type })),
  )
  app.get(
    `${prefix}/groups/:type/:id`,
    { schema: S.v2Item(S.ANY_ITEM, { summary: 'One Group carrying it' }) },
    serve('group', (p) => ({ type: p.type, id: p.id })),
  )
  app.get(
    `${prefix}/indicators`,
    { schema: S.v2List(S.ANY_ITEM, { summary: 'Indicators carrying it' }) },
    serve('indicator', () => ({})),
  )
  app.get(
    `${prefix}/indicators/:type`,
    { schema: S.v2List(S.ANY_ITEM, { summary: 'Indicators of one type carrying it' }) },
    serve('indicator', (p) => ({ type: p.type })),
  )
  app.get(
    `${prefix}/indicators/:type/:id`,
    { schema: S.v2Item(S.ANY_ITEM, { summary: 'One Indicator carrying it' }) },
    serve('indicator', (p) => ({ type: p.type, id: p.id })),
  )
  app.get(
    `${prefix}/tasks`,
    { schema: S.v2List(S.ANY_ITEM, { summary: 'Tasks carrying it' }) },
    serve('task', () => ({})),
  )
  app.get(
    `${prefix}/tasks/:id`,
    { schema: S.v2Item(S.ANY_ITEM, { summary: 'One Task carrying it' }) },
    serve('task', (p) => ({ id: p.id })),
  )
  app.get(
    `${prefix}/victims`,
    { schema: S.v2List(S.ANY_ITEM, { summary: 'Victims carrying it' }) },
    serve('victim', () => ({})),
  )
  app.get(
    `${prefix}/victims/:id`,
    { schema: S.v2Item(S.ANY_ITEM, { summary: 'One Victim carrying it' }) },
    serve('victim', (p) => ({ id: p.id })),
  )
}

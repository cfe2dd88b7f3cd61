/**
 * /v2/indicators sub-resources about use: observations, observationCount, falsePositive,
 * the most-observed list, the owners holding an Indicator, and deleted Indicators.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import {
  addObservations,
  getObservationCount,
  listDeletedIndicators,
  listHostDnsResolutions,
  listIndicatorOwners,
  listMostObservedIndicators,
  listObservations,
  reportFalsePositive,
} from '../../../domain/indicators/activity.js'
import { toApiTime } from '../../../core/time.js'
import { legacyIndicatorLink } from '../../http/links.js'
import { pageOf, parsePaging, query, single } from '../params.js'
import { sendData, sendList, sendNoBody } from '../present.js'
import { type IndicatorParams, indicatorTypeParam, objectBody, resolveIndicator } from './indicators-params.js'
import * as S from '../schemas.js'

async function sendDeleted(req: FastifyRequest, reply: FastifyReply, type?: string) {
  const q = query(req)
  const paging = parsePaging(q)
  const { items, total } = await listDeletedIndicators(req.ctx, {
    type,
    deletedSince: single(q, 'deletedSince'),
    ...paging,
  })
  const presented = items.map((d) => ({
    ownerName: d.ownerName,
    type: d.type,
    dateAdded: toApiTime(d.dateAdded),
    dateDeleted: toApiTime(d.dateDeleted),
    summary: d.summary,
  }))
  return sendList(req, reply, 'indicator', presented, paging, total)
}

export async function indicatorActivityRoutes(app: FastifyInstance) {
  app.get(
    '/indicators/observed',
    {
      schema: S.v2List(S.OBSERVED_INDICATOR, {
        summary: 'Indicators observed, most observed first',
        query: S.OBSERVED_QUERY,
      }),
    },
    async (req, reply) => {
      const items = await listMostObservedIndicators(req.ctx, { dateObserved: single(query(req), 'dateObserved') })
      const paging = parsePaging(query(req))
      const presented = pageOf(items, paging).map((i) => ({
        summary: i.summary,
        type: i.type,
        observationCount: i.observationCount,
        lastObserved: toApiTime(i.lastObserved),
        userObservedList: i.userObservedList.map((u) => ({
          ...u,
          userLastObservedDate: toApiTime(u.userLastObservedDate),
        })),
      }))
      return sendList(req, reply, 'indicator', presented, paging, items.length)
    },
  )

  app.get(
    '/indicators/deleted',
    { schema: S.v2List(S.DELETED_INDICATOR, { summary: 'Indicators deleted recently', query: S.DELETED_QUERY }) },
    async (req, reply) => sendDeleted(req, reply),
  )
  app.get<{ Params: Pick<IndicatorParams, 'type'> }>(
    '/indicators/:type/deleted',
    {
      schema: S.v2List(S.DELETED_INDICATOR, {
        summary: 'Indicators of one type deleted recently',
        query: S.DELETED_QUERY,
      }),
    },
    async (req, reply) => sendDeleted(req, reply, indicatorTypeParam(req.params.type).name),
  )

  app.post<{ Params: IndicatorParams }>(
    '/indicators/:type/:indicator/observations',
    { schema: S.v2NoBody({ summary: 'Report observations', body: S.OBSERVATION_BODY }) },
    async (req, reply) => {
      await addObservations(req.ctx, await resolveIndicator(req), objectBody(req))
      return sendNoBody(req, reply, 1)
    },
  )

  app.get<{ Params: IndicatorParams }>(
    '/indicators/:type/:indicator/observations',
    { schema: S.v2List(S.OBSERVATION, { summary: 'Observations of an Indicator' }) },
    async (req, reply) => {
      const all = await listObservations(req.ctx, await resolveIndicator(req))
      const paging = parsePaging(query(req))
      const presented = pageOf(all, paging).map((o) => ({ count: o.count, dateObserved: toApiTime(o.dateObserved) }))
      return sendList(req, reply, 'observation', presented, paging, all.length)
    },
  )

  app.get<{ Params: IndicatorParams }>(
    '/indicators/:type/:indicator/observationCount',
    { schema: S.v2Item(S.OBSERVATION_COUNT, { summary: 'How often it was observed' }) },
    async (req, reply) => {
      const c = await getObservationCount(req.ctx, await resolveIndicator(req))
      return sendData(req, reply, 'observationCount', {
        observationCount: {
          count: c.count,
          lastObserved: toApiTime(c.lastObserved),
          yourCount: c.yourCount,
          yourLastObserved: toApiTime(c.yourLastObserved),
        },
      })
    },
  )

  app.post<{ Params: IndicatorParams }>(
    '/indicators/:type/:indicator/falsePositive',
    { schema: S.v2Item(S.FALSE_POSITIVE, { summary: 'Report a false positive' }) },
    async (req, reply) => {
      const fp = await reportFalsePositive(req.ctx, await resolveIndicator(req))
      return sendData(req, reply, 'falsePositive', {
        falsePositive: { count: fp.count, lastReported: toApiTime(fp.lastReported) },
      })
    },
  )

  // The platform's shape (and what the v2 SDK's load_dns_resolutions reads): one entry per resolution time.
  app.get<{ Params: IndicatorParams }>(
    '/indicators/:type/:indicator/dnsResolutions',
    { schema: S.v2List(S.DNS_RESOLUTION, { summary: 'DNS resolutions of a Host or Address' }) },
    async (req, reply) => {
      const all = await listHostDnsResolutions(req.ctx, await resolveIndicator(req))
      const paging = parsePaging(query(req))
      const publicUrl = req.ctx.services.publicUrl
      const presented = pageOf(all, paging).map((r) => ({
        resolutionDate: toApiTime(r.resolutionDate),
        addresses: r.addresses.map((a) => ({
          id: a.id,
          ownerName: a.ownerName,
          dateAdded: toApiTime(a.dateAdded),
          lastModified: toApiTime(a.lastModified),
          threatAssessRating: a.threatAssessRating ?? undefined,
          threatAssessConfidence: a.threatAssessConfidence ?? undefined,
          webLink: legacyIndicatorLink(publicUrl, 'address', a.summary, a.ownerName),
          ip: a.summary,
        })),
      }))
      return sendList(req, reply, 'dnsResolution', presented, paging, all.length)
    },
  )

  app.get<{ Params: IndicatorParams }>(
    '/indicators/:type/:indicator/owners',
    { schema: S.v2List(S.OWNER, { summary: 'Owners holding the same Indicator' }) },
    async (req, reply) => {
      const owners = await listIndicatorOwners(req.ctx, await resolveIndicator(req))
      const paging = parsePaging(query(req))
      return sendList(req, reply, 'owner', pageOf(owners, paging), paging, owners.length)
    },
  )
}

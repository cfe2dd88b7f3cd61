/**
 * /v2/indicators: lists (all types, one type), one Indicator by its summary, create (a POST
 * of an Indicator the owner holds updates it), update and delete, plus the shared metadata
 * sub-paths. Sub-resources live in indicators-*.ts and are registered from here.
 */
import type { FastifyInstance } from 'fastify'
import {
  createOrUpdateIndicator,
  deleteIndicator,
  listIndicators,
  updateIndicator,
} from '../../../domain/indicators/indicators.js'
import { parseIncludes, query } from '../params.js'
import { presentIndicatorsV2 } from '../present-indicator.js'
import { sendItem, sendList, sendNoBody } from '../present.js'
import { indicatorActivityRoutes } from './indicators-activity.js'
import { indicatorAssociationRoutes } from './indicators-associations.js'
import { indicatorBulkRoutes } from './indicators-bulk.js'
import { indicatorFileRoutes } from './indicators-files.js'
import { registerMetadataRoutes } from './metadata.js'
import {
  type IndicatorParams,
  indicatorListQuery,
  indicatorTypeParam,
  objectBody,
  resolveIndicator,
  resolveIndicatorItem,
} from './indicators-params.js'
import * as S from '../schemas.js'

export async function indicatorRoutes(app: FastifyInstance) {
  app.get(
    '/indicators',
    { schema: S.v2List(S.INDICATOR, { summary: 'Indicators of every type', query: S.INDICATOR_LIST_QUERY }) },
    async (req, reply) => {
      const listQuery = indicatorListQuery(req)
      const { items, total } = await listIndicators(req.ctx, listQuery)
      const presented = await presentIndicatorsV2(req.ctx, items, parseIncludes(query(req)))
      return sendList(req, reply, 'indicator', presented, listQuery, total)
    },
  )

  app.get<{ Params: Pick<IndicatorParams, 'type'> }>(
    '/indicators/:type',
    { schema: S.v2List(S.INDICATOR, { summary: 'Indicators of one type', query: S.INDICATOR_LIST_QUERY }) },
    async (req, reply) => {
      const def = indicatorTypeParam(req.params.type)
      const listQuery = indicatorListQuery(req, def.name)
      const { items, total } = await listIndicators(req.ctx, listQuery)
      const presented = await presentIndicatorsV2(req.ctx, items, parseIncludes(query(req)), { typed: true })
      return sendList(req, reply, def.apiEntity, presented, listQuery, total)
    },
  )

  app.post<{ Params: Pick<IndicatorParams, 'type'> }>(
    '/indicators/:type',
    {
      schema: S.v2Item(S.INDICATOR, {
        summary: 'Create an Indicator (or update the one with these values)',
        body: S.INDICATOR_BODY,
        status: 201,
      }),
    },
    async (req, reply) => {
      const def = indicatorTypeParam(req.params.type)
      const { indicator, created } = await createOrUpdateIndicator(req.ctx, { ...objectBody(req), type: def.name })
      const [presented] = await presentIndicatorsV2(req.ctx, [indicator], parseIncludes(query(req)), {
        typed: true,
        single: true,
      })
      return sendItem(req, reply, def.apiEntity, presented, created ? 201 : 200)
    },
  )

  app.get<{ Params: IndicatorParams }>(
    '/indicators/:type/:indicator',
    { schema: S.v2Item(S.INDICATOR, { summary: 'One Indicator by its value', query: S.ONE_QUERY }) },
    async (req, reply) => {
      const indicator = await resolveIndicator(req)
      const [presented] = await presentIndicatorsV2(req.ctx, [indicator], parseIncludes(query(req)), {
        typed: true,
        single: true,
      })
      return sendItem(req, reply, indicatorTypeParam(req.params.type).apiEntity, presented)
    },
  )

  app.put<{ Params: IndicatorParams }>(
    '/indicators/:type/:indicator',
    { schema: S.v2Item(S.INDICATOR, { summary: 'Update an Indicator', body: S.INDICATOR_BODY }) },
    async (req, reply) => {
      const indicator = await updateIndicator(req.ctx, await resolveIndicator(req), objectBody(req))
      const [presented] = await presentIndicatorsV2(req.ctx, [indicator], parseIncludes(query(req)), {
        typed: true,
        single: true,
      })
      return sendItem(req, reply, indicatorTypeParam(req.params.type).apiEntity, presented)
    },
  )

  app.delete<{ Params: IndicatorParams }>(
    '/indicators/:type/:indicator',
    { schema: S.v2NoBody({ summary: 'Delete an Indicator' }) },
    async (req, reply) => {
      await deleteIndicator(req.ctx, await resolveIndicator(req))
      return sendNoBody(req, reply)
    },
  )

  registerMetadataRoutes(app, '/indicators/:type/:indicator', resolveIndicatorItem)
  for (const register of [
    indicatorActivityRoutes,
    indicatorFileRoutes,
    indicatorAssociationRoutes,
    indicatorBulkRoutes,
  ])
    await register(app)
}

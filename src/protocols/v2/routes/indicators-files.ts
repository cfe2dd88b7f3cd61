/**
 * File-only sub-resources: /fileOccurrences and the File actions
 * (/actions/{action}/indicators[/{type}[/{indicator}]]).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { parseId } from '../../../domain/items/items.js'
import { getIndicatorBySummary } from '../../../domain/indicators/indicators.js'
import {
  type FileOccurrenceView,
  addFileAction,
  addFileOccurrence,
  deleteFileOccurrence,
  getFileOccurrence,
  listFileActionTargets,
  listFileOccurrences,
  removeFileAction,
  updateFileOccurrence,
} from '../../../domain/indicators/files.js'
import { toApiTime } from '../../../core/time.js'
import { pageOf, parseIncludes, parsePaging, query } from '../params.js'
import { indicatorEntity, presentIndicatorsV2 } from '../present-indicator.js'
import { sendItem, sendList, sendNoBody } from '../present.js'
import {
  type IndicatorParams,
  indicatorListQuery,
  indicatorTypeParam,
  objectBody,
  resolveIndicator,
} from './indicators-params.js'
import * as S from '../schemas.js'

type OccurrenceParams = IndicatorParams & { occurrenceId: string }
type ActionParams = IndicatorParams & { action: string; targetType?: string; target?: string }

function occurrenceId(text: string): number {
  return parseId('File occurrence', text)
}

function presentOccurrence(o: FileOccurrenceView) {
  return { id: o.id, fileName: o.fileName ?? undefined, path: o.path ?? undefined, date: toApiTime(o.date) }
}

function resolveTarget(req: FastifyRequest<{ Params: ActionParams }>) {
  const def = indicatorTypeParam(req.params.targetType!)
  return getIndicatorBySummary(req.ctx, def.name, req.params.target!)
}

export async function indicatorFileRoutes(app: FastifyInstance) {
  const occurrences = '/indicators/:type/:indicator/fileOccurrences'

  app.get<{ Params: IndicatorParams }>(
    occurrences,
    { schema: S.v2List(S.FILE_OCCURRENCE, { summary: 'Where a File was seen' }) },
    async (req, reply) => {
      const all = await listFileOccurrences(req.ctx, await resolveIndicator(req))
      const paging = parsePaging(query(req))
      const pageItems = pageOf(all, paging)
      return sendList(req, reply, 'fileOccurrence', pageItems.map(presentOccurrence), paging, all.length)
    },
  )
  app.post<{ Params: IndicatorParams }>(
    occurrences,
    {
      schema: S.v2Item(S.FILE_OCCURRENCE, {
        summary: 'Record where a File was seen',
        body: S.FILE_OCCURRENCE_BODY,
        status: 201,
      }),
    },
    async (req, reply) => {
      const created = await addFileOccurrence(req.ctx, await resolveIndicator(req), objectBody(req))
      return sendItem(req, reply, 'fileOccurrence', presentOccurrence(created), 201)
    },
  )
  app.get<{ Params: OccurrenceParams }>(
    `${occurrences}/:occurrenceId`,
    { schema: S.v2Item(S.FILE_OCCURRENCE, { summary: 'One File occurrence' }) },
    async (req, reply) => {
      const found = await getFileOccurrence(req.ctx, await resolveIndicator(req), occurrenceId(req.params.occurrenceId))
      return sendItem(req, reply, 'fileOccurrence', presentOccurrence(found))
    },
  )
  app.put<{ Params: OccurrenceParams }>(
    `${occurrences}/:occurrenceId`,
    { schema: S.v2Item(S.FILE_OCCURRENCE, { summary: 'Update a File occurrence', body: S.FILE_OCCURRENCE_BODY }) },
    async (req, reply) => {
      const updated = await updateFileOccurrence(
        req.ctx,
        await resolveIndicator(req),
        occurrenceId(req.params.occurrenceId),
        objectBody(req),
      )
      return sendItem(req, reply, 'fileOccurrence', presentOccurrence(updated))
    },
  )
  app.delete<{ Params: OccurrenceParams }>(
    `${occurrences}/:occurrenceId`,
    { schema: S.v2NoBody({ summary: 'Delete a File occurrence' }) },
    async (req, reply) => {
      await deleteFileOccurrence(req.ctx, await resolveIndicator(req), occurrenceId(req.params.occurrenceId))
      return sendNoBody(req, reply)
    },
  )

  const actions = '/indicators/:type/:indicator/actions/:action/indicators'
  const listTargets = async (req: FastifyRequest<{ Params: ActionParams }>, reply: FastifyReply) => {
    const def = req.params.targetType ? indicatorTypeParam(req.params.targetType) : undefined
    const listQuery = indicatorListQuery(req, def?.name)
    const { items, total } = await listFileActionTargets(
      req.ctx,
      await resolveIndicator(req),
      req.params.action,
      listQuery,
    )
    const presented = await presentIndicatorsV2(req.ctx, items, parseIncludes(query(req)), { typed: !!def })
    return sendList(req, reply, def ? indicatorEntity(def.name) : 'indicator', presented, listQuery, total)
  }
  app.get<{ Params: ActionParams }>(
    actions,
    { schema: S.v2List(S.INDICATOR, { summary: 'Indicators linked to a File by a File action' }) },
    listTargets,
  )
  app.get<{ Params: ActionParams }>(
    `${actions}/:targetType`,
    { schema: S.v2List(S.INDICATOR, { summary: 'Indicators of one type linked by a File action' }) },
    listTargets,
  )
  app.post<{ Params: ActionParams }>(
    `${actions}/:targetType/:target`,
    { schema: S.v2NoBody({ summary: 'Link an Indicator by a File action' }) },
    async (req, reply) => {
      await addFileAction(req.ctx, await resolveIndicator(req), req.params.action, await resolveTarget(req))
      return sendNoBody(req, reply, 1)
    },
  )
  app.delete<{ Params: ActionParams }>(
    `${actions}/:targetType/:target`,
    { schema: S.v2NoBody({ summary: 'Remove a File action link' }) },
    async (req, reply) => {
      await removeFileAction(req.ctx, await resolveIndicator(req), req.params.action, await resolveTarget(req))
      return sendNoBody(req, reply)
    },
  )
}

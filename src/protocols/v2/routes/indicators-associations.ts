/**
 * What an Indicator is associated with: typed Indicator-to-Indicator associations
 * (/associations/{type}/indicators…), Groups and Tasks (direct), and Victims, Victim Assets
 * and other Indicators (through shared Groups, since they never associate directly).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { associate, dissociate } from '../../../domain/items/associations.js'
import { notFound } from '../../../core/errors.js'
import { findReadableGroup, getGroup, listGroups } from '../../../domain/groups/groups.js'
import { getIndicatorBySummary, indicatorItem, listIndicators } from '../../../domain/indicators/indicators.js'
import { addTypedAssociation, listTypedAssociations, removeTypedAssociation } from '../../../domain/indicators/links.js'
import { findReadableItem, parseItemId } from '../../../domain/items/items.js'
import { getTask, listTasks } from '../../../domain/tasks/tasks.js'
import { listVictimAssets, requireVictimAssetType } from '../../../domain/victims/victim-assets.js'
import { getVictim, listVictims } from '../../../domain/victims/victims.js'
import { flag, parseFilterExpressions, parseIncludes, parsePaging, query } from '../params.js'
import { groupEntity, presentGroupsV2, presentOneGroupV2 } from '../present-group.js'
import { indicatorEntity, presentIndicatorsV2 } from '../present-indicator.js'
import { presentTasksV2 } from '../present-task.js'
import { presentVictimAssetSummaryV2, presentVictimAssetV2, presentVictimsV2 } from '../present-victim.js'
import { sendItem, sendList, sendNoBody } from '../present.js'
import { type IndicatorParams, indicatorListQuery, indicatorTypeParam, resolveIndicator } from './indicators-params.js'
import * as S from '../schemas.js'

type Params = IndicatorParams & {
  associationType?: string
  targetType?: string
  target?: string
  groupType?: string
  groupId?: string
  taskId?: string
  victimId?: string
  assetType?: string
  assetId?: string
}
type Req = FastifyRequest<{ Params: Params }>

const BASE = '/indicators/:type/:indicator'

function listOptions(req: FastifyRequest) {
  const q = query(req)
  return { ...parsePaging(q), filters: parseFilterExpressions(q), orParams: flag(q, 'orParams') }
}

async function resolveTarget(req: Req) {
  return getIndicatorBySummary(req.ctx, indicatorTypeParam(req.params.targetType!).name, req.params.target!)
}

async function sendIndicatorPage(
  req: Req,
  reply: FastifyReply,
  page: { items: Parameters<typeof presentIndicatorsV2>[1]; total: number },
  typedAs?: string,
) {
  const presented = await presentIndicatorsV2(req.ctx, page.items, parseIncludes(query(req)), { typed: !!typedAs })
  return sendList(
    req,
    reply,
    typedAs ? indicatorEntity(typedAs) : 'indicator',
    presented,
    parsePaging(query(req)),
    page.total,
  )
}

export async function indicatorAssociationRoutes(app: FastifyInstance) {
  const typed = async (req: Req, reply: FastifyReply) => {
    const def = req.params.targetType ? indicatorTypeParam(req.params.targetType) : undefined
    const page = await listTypedAssociations(
      req.ctx,
      await resolveIndicator(req),
      req.params.associationType!,
      indicatorListQuery(req, def?.name),
    )
    return sendIndicatorPage(req, reply, page, def?.name)
  }
  app.get<{ Params: Params }>(
    `${BASE}/associations/:associationType/indicators`,
    { schema: S.v2List(S.INDICATOR, { summary: 'Indicators linked by a custom association type' }) },
    typed,
  )
  app.get<{ Params: Params }>(
    `${BASE}/associations/:associationType/indicators/:targetType`,
    { schema: S.v2List(S.INDICATOR, { summary: 'Indicators of one type linked by a custom association type' }) },
    typed,
  )
  app.post<{ Params: Params }>(
    `${BASE}/associations/:associationType/indicators/:targetType/:target`,
    { schema: S.v2NoBody({ summary: 'Link two Indicators by a custom association type' }) },
    async (req, reply) => {
      await addTypedAssociation(
        req.ctx,
        await resolveIndicator(req),
        req.params.associationType!,
        await resolveTarget(req),
      )
      return sendNoBody(req, reply, 1)
    },
  )
  app.delete<{ Params: Params }>(
    `${BASE}/associations/:associationType/indicators/:targetType/:target`,
    { schema: S.v2NoBody({ summary: 'Remove a custom association' }) },
    async (req, reply) => {
      await removeTypedAssociation(
        req.ctx,
        await resolveIndicator(req),
        req.params.associationType!,
        await resolveTarget(req),
      )
      return sendNoBody(req, reply)
    },
  )

  const groups = async (req: Req, reply: FastifyReply) => {
    const item = indicatorItem(req.ctx, await resolveIndicator(req))
    const options = listOptions(req)
    const page = await listGroups(req.ctx, {
      ...options,
      type: req.params.groupType,
      associatedWith: { kind: 'indicator', id: item.id },
    })
    return sendList(
      req,
      reply,
      req.params.groupType ? groupEntity(page.items[0]?.type ?? req.params.groupType) : 'group',
      await presentGroupsV2(req.ctx, page.items, parseIncludes(query(req))),
      options,
      page.total,
    )
  }
  app.get<{ Params: Params }>(`${BASE}/groups`, { schema: S.v2List(S.GROUP, { summary: 'Associated Groups' }) }, groups)
  app.get<{ Params: Params }>(
    `${BASE}/groups/:groupType`,
    { schema: S.v2List(S.GROUP, { summary: 'Associated Groups of one type' }) },
    groups,
  )
  app.get<{ Params: Params }>(
    `${BASE}/groups/:groupType/:groupId`,
    { schema: S.v2Item(S.GROUP, { summary: 'One associated Group', query: S.ONE_QUERY }) },
    async (req, reply) => {
      const item = indicatorItem(req.ctx, await resolveIndicator(req))
      const id = parseItemId('group', req.params.groupId!)
      const page = await listGroups(req.ctx, {
        type: req.params.groupType,
        ids: [id],
        associatedWith: { kind: 'indicator', id: item.id },
      })
      if (!page.items.length) throw notFound(`Group ${id} is not associated with this Indicator`)
      const group = await getGroup(req.ctx, id, req.params.groupType)
      return sendItem(
        req,
        reply,
        groupEntity(group.type),
        await presentOneGroupV2(req.ctx, group, parseIncludes(query(req))),
      )
    },
  )
  app.post<{ Params: Params }>(
    `${BASE}/groups/:groupType/:groupId`,
    { schema: S.v2NoBody({ summary: 'Associate a Group' }) },
    async (req, reply) => {
      const item = indicatorItem(req.ctx, await resolveIndicator(req))
      await associate(
        req.ctx,
        item,
        await findReadableGroup(req.ctx, parseItemId('group', req.params.groupId!), req.params.groupType),
      )
      return sendNoBody(req, reply, 1)
    },
  )
  app.delete<{ Params: Params }>(
    `${BASE}/groups/:groupType/:groupId`,
    { schema: S.v2NoBody({ summary: 'Dissociate a Group' }) },
    async (req, reply) => {
      const item = indicatorItem(req.ctx, await resolveIndicator(req))
      await dissociate(
        req.ctx,
        item,
        await findReadableGroup(req.ctx, parseItemId('group', req.params.groupId!), req.params.groupType),
      )
      return sendNoBody(req, reply)
    },
  )

  app.get<{ Params: Params }>(
    `${BASE}/tasks`,
    { schema: S.v2List(S.TASK, { summary: 'Associated Tasks' }) },
    async (req, reply) => {
      const item = indicatorItem(req.ctx, await resolveIndicator(req))
      const options = listOptions(req)
      const page = await listTasks(req.ctx, { ...options, associatedWith: { kind: 'indicator', id: item.id } })
      return sendList(
        req,
        reply,
        'task',
        await presentTasksV2(req.ctx, page.items, parseIncludes(query(req))),
        options,
        page.total,
      )
    },
  )
  app.get<{ Params: Params }>(
    `${BASE}/tasks/:taskId`,
    { schema: S.v2Item(S.TASK, { summary: 'One associated Task', query: S.ONE_QUERY }) },
    async (req, reply) => {
      const item = indicatorItem(req.ctx, await resolveIndicator(req))
      const id = parseItemId('task', req.params.taskId!)
      const page = await listTasks(req.ctx, { ids: [id], associatedWith: { kind: 'indicator', id: item.id } })
      if (!page.items.length) throw notFound(`Task ${id} is not associated with this Indicator`)
      const [task] = await presentTasksV2(req.ctx, [await getTask(req.ctx, id)], parseIncludes(query(req)), true)
      return sendItem(req, reply, 'task', task)
    },
  )
  const taskLink =
    (link: typeof associate | typeof dissociate, status: number) => async (req: Req, reply: FastifyReply) => {
      const item = indicatorItem(req.ctx, await resolveIndicator(req))
      await link(req.ctx, item, await findReadableItem(req.ctx, 'task', parseItemId('task', req.params.taskId!)))
      return sendNoBody(req, reply, status)
    }
  app.post<{ Params: Params }>(
    `${BASE}/tasks/:taskId`,
    { schema: S.v2NoBody({ summary: 'Associate a Task' }) },
    taskLink(associate, 1),
  )
  app.delete<{ Params: Params }>(
    `${BASE}/tasks/:taskId`,
    { schema: S.v2NoBody({ summary: 'Dissociate a Task' }) },
    taskLink(dissociate, 0),
  )

  app.get<{ Params: Params }>(
    `${BASE}/victims`,
    { schema: S.v2List(S.VICTIM, { summary: 'Victims sharing a Group with the Indicator' }) },
    async (req, reply) => {
      const item = indicatorItem(req.ctx, await resolveIndicator(req))
      const options = listOptions(req)
      const page = await listVictims(req.ctx, {
        ...options,
        associatedWith: { kind: 'indicator', id: item.id, via: 'group' },
      })
      return sendList(
        req,
        reply,
        'victim',
        await presentVictimsV2(req.ctx, page.items, parseIncludes(query(req))),
        options,
        page.total,
      )
    },
  )
  app.get<{ Params: Params }>(
    `${BASE}/victims/:victimId`,
    { schema: S.v2Item(S.VICTIM, { summary: 'One Victim sharing a Group', query: S.ONE_QUERY }) },
    async (req, reply) => {
      const item = indicatorItem(req.ctx, await resolveIndicator(req))
      const id = parseItemId('victim', req.params.victimId!)
      const page = await listVictims(req.ctx, {
        ids: [id],
        associatedWith: { kind: 'indicator', id: item.id, via: 'group' },
      })
      if (!page.items.length) throw notFound(`Victim ${id} shares no Group with this Indicator`)
      const [victim] = await presentVictimsV2(req.ctx, [await getVictim(req.ctx, id)], parseIncludes(query(req)), true)
      return sendItem(req, reply, 'victim', victim)
    },
  )

  const assets = async (req: Req, reply: FastifyReply) => {
    const item = indicatorItem(req.ctx, await resolveIndicator(req))
    const paging = parsePaging(query(req))
    const def = req.params.assetType ? requireVictimAssetType(req.params.assetType) : undefined
    const ids = req.params.assetId ? [parseItemId('victimAsset', req.params.assetId)] : undefined
    const page = await listVictimAssets(req.ctx, {
      ...paging,
      type: def?.name,
      ids,
      associatedWith: { kind: 'indicator', id: item.id, via: 'group' },
    })
    if (ids) {
      if (!page.items.length) throw notFound(`Victim Asset ${ids[0]} shares no Group with this Indicator`)
      const one = presentVictimAssetV2(req.ctx.services.publicUrl, page.items[0])
      return sendItem(req, reply, one.entity, one.body)
    }
    if (def) {
      const bodies = page.items.map((a) => presentVictimAssetV2(req.ctx.services.publicUrl, a))
      return sendList(
        req,
        reply,
        bodies[0]?.entity ?? def.apiEntity,
        bodies.map((b) => b.body),
        paging,
        page.total,
      )
    }
    return sendList(
      req,
      reply,
      'victimAsset',
      page.items.map((a) => presentVictimAssetSummaryV2(req.ctx.services.publicUrl, a)),
      paging,
      page.total,
    )
  }
  app.get<{ Params: Params }>(
    `${BASE}/victimAssets`,
    { schema: S.v2List(S.ASSET, { summary: 'Victim Assets sharing a Group' }) },
    assets,
  )
  app.get<{ Params: Params }>(
    `${BASE}/victimAssets/:assetType`,
    { schema: S.v2List(S.ASSET, { summary: 'Victim Assets of one type sharing a Group' }) },
    assets,
  )
  app.get<{ Params: Params }>(
    `${BASE}/victimAssets/:assetType/:assetId`,
    { schema: S.v2Item(S.ASSET, { summary: 'One Victim Asset sharing a Group' }) },
    assets,
  )

  const sharing = async (req: Req, reply: FastifyReply) => {
    const item = indicatorItem(req.ctx, await resolveIndicator(req))
    const def = req.params.targetType ? indicatorTypeParam(req.params.targetType) : undefined
    const page = await listIndicators(req.ctx, {
      ...indicatorListQuery(req, def?.name),
      associatedWith: { kind: 'indicator', id: item.id, via: 'group' },
    })
    return sendIndicatorPage(req, reply, page, def?.name)
  }
  app.get<{ Params: Params }>(
    `${BASE}/indicators`,
    { schema: S.v2List(S.INDICATOR, { summary: 'Indicators sharing a Group with this one' }) },
    sharing,
  )
  app.get<{ Params: Params }>(
    `${BASE}/indicators/:targetType`,
    { schema: S.v2List(S.INDICATOR, { summary: 'Indicators of one type sharing a Group with this one' }) },
    sharing,
  )
}

/**
 * Association sub-paths of a Group, Task or Victim (<item>/groups[/type[/id]], /indicators
 * [/type[/summary]], /victims[/id], /tasks[/id], /victimAssets[/type[/id]]): GET lists the
 * partners, POST associates, DELETE dissociates. The rules are domain/items/associations.ts's.
 * Lists span every owner the caller reads, since associations may cross owners.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { associate, dissociate } from '../../../domain/items/associations.js'
import { notFound } from '../../../core/errors.js'
import { findReadableGroup, listGroups, requireGroupType } from '../../../domain/groups/groups.js'
import {
  getIndicatorBySummary,
  indicatorItem,
  listIndicators,
  requireIndicatorType,
} from '../../../domain/indicators/indicators.js'
import { type ItemInfo, findReadableItem, parseItemId } from '../../../domain/items/items.js'
import { listTasks } from '../../../domain/tasks/tasks.js'
import { getVictimAssetById, listVictimAssets, requireVictimAssetType } from '../../../domain/victims/victim-assets.js'
import { listVictims } from '../../../domain/victims/victims.js'
import { parsePaging, query } from '../params.js'
import { presentGroupsV2 } from '../present-group.js'
import { indicatorEntity, presentIndicatorsV2 } from '../present-indicator.js'
import { presentTasksV2 } from '../present-task.js'
import { presentVictimAssetSummaryV2, presentVictimAssetV2, presentVictimsV2 } from '../present-victim.js'
import { sendItem, sendList, sendNoBody } from '../present.js'
import * as S from '../schemas.js'
import { listQuery, parseListParams } from './groups-params.js'

export type AssociationTarget = 'groups' | 'indicators' | 'victims' | 'tasks' | 'victimAssets'

export interface AssociationRouteOptions {
  /** Targets with GET, POST and DELETE. */
  targets: AssociationTarget[]
  /** Targets listed through a shared Group (GET only): a Victim's indicators and victims. */
  viaGroup?: ('indicators' | 'victims')[]
}

type Resolve = (req: FastifyRequest) => Promise<ItemInfo>
type Scope = { kind: ItemInfo['kind']; id: number; via?: 'group' }
type P = Record<string, string>

async function scopeOf(req: FastifyRequest, resolve: Resolve, via?: 'group'): Promise<Scope> {
  const item = await resolve(req)
  return { kind: item.kind, id: item.id, via }
}

/** One associated item: the list narrowed to it, or 404. */
function sendOne(req: FastifyRequest, reply: FastifyReply, entity: string, items: unknown[], what: string) {
  if (items.length === 0) throw notFound(`${what} is not associated with this item`)
  return sendItem(req, reply, entity, items[0])
}

function registerWrites(
  app: FastifyInstance,
  path: string,
  resolve: Resolve,
  target: (req: FastifyRequest) => Promise<ItemInfo>,
) {
  app.post(path, { schema: S.v2NoBody({ summary: 'Associate' }) }, async (req, reply) => {
    const [source, partner] = [await resolve(req), await target(req)]
    await associate(req.ctx, source, partner)
    return sendNoBody(req, reply, 1)
  })
  app.delete(path, { schema: S.v2NoBody({ summary: 'Dissociate' }) }, async (req, reply) => {
    const [source, partner] = [await resolve(req), await target(req)]
    await dissociate(req.ctx, source, partner)
    return sendNoBody(req, reply)
  })
}

function groupTargets(app: FastifyInstance, prefix: string, resolve: Resolve) {
  const list = async (req: FastifyRequest, type: string | undefined, ids?: number[]) => {
    const p = parseListParams(query(req))
    const { items, total } = await listGroups(req.ctx, {
      ...listQuery(p),
      type,
      ids,
      associatedWith: await scopeOf(req, resolve),
    })
    return { p, total, items: await presentGroupsV2(req.ctx, items, p.includes) }
  }
  app.get(`${prefix}/groups`, { schema: S.v2List(S.GROUP, { summary: 'Associated Groups' }) }, async (req, reply) => {
    const { p, total, items } = await list(req, undefined)
    return sendList(req, reply, 'group', items, p.paging, total)
  })
  app.get<{ Params: P }>(
    `${prefix}/groups/:assocType`,
    { schema: S.v2List(S.GROUP, { summary: 'Associated Groups of one type' }) },
    async (req, reply) => {
      const def = requireGroupType(req.params.assocType)
      const { p, total, items } = await list(req, def.name)
      return sendList(req, reply, def.apiEntity, items, p.paging, total)
    },
  )
  app.get<{ Params: P }>(
    `${prefix}/groups/:assocType/:assocId`,
    { schema: S.v2Item(S.GROUP, { summary: 'One associated Group', query: S.ONE_QUERY }) },
    async (req, reply) => {
      const def = requireGroupType(req.params.assocType)
      const { items } = await list(req, def.name, [parseItemId('group', req.params.assocId)])
      return sendOne(req, reply, def.apiEntity, items, `${def.name} ${req.params.assocId}`)
    },
  )
  registerWrites(app, `${prefix}/groups/:assocType/:assocId`, resolve, (req) => {
    const params = req.params as P
    requireGroupType(params.assocType)
    return findReadableGroup(req.ctx, parseItemId('group', params.assocId), params.assocType)
  })
}

function indicatorTargets(
  app: FastifyInstance,
  prefix: string,
  resolve: Resolve,
  via: 'group' | undefined,
  writable: boolean,
) {
  const list = async (req: FastifyRequest, type: string | undefined, summary?: string) => {
    const p = parseListParams(query(req))
    const filters =
      summary === undefined ? p.filters : [...p.filters, { field: 'summary', op: '=' as const, value: summary }]
    const { items, total } = await listIndicators(req.ctx, {
      ...listQuery(p),
      filters,
      type,
      associatedWith: await scopeOf(req, resolve, via),
    })
    return { p, total, items: await presentIndicatorsV2(req.ctx, items, p.includes, { typed: type !== undefined }) }
  }
  app.get(
    `${prefix}/indicators`,
    { schema: S.v2List(S.INDICATOR, { summary: 'Associated Indicators' }) },
    async (req, reply) => {
      const { p, total, items } = await list(req, undefined)
      return sendList(req, reply, 'indicator', items, p.paging, total)
    },
  )
  app.get<{ Params: P }>(
    `${prefix}/indicators/:assocType`,
    { schema: S.v2List(S.INDICATOR, { summary: 'Associated Indicators of one type' }) },
    async (req, reply) => {
      const def = requireIndicatorType(req.params.assocType)
      const { p, total, items } = await list(req, def.name)
      return sendList(req, reply, indicatorEntity(def.name), items, p.paging, total)
    },
  )
  if (!writable) return
  app.get<{ Params: P }>(
    `${prefix}/indicators/:assocType/:summary`,
    { schema: S.v2Item(S.INDICATOR, { summary: 'One associated Indicator', query: S.ONE_QUERY }) },
    async (req, reply) => {
      const def = requireIndicatorType(req.params.assocType)
      const { items } = await list(req, def.name, req.params.summary)
      return sendOne(req, reply, indicatorEntity(def.name), items, `${def.name} ${req.params.summary}`)
    },
  )
  registerWrites(app, `${prefix}/indicators/:assocType/:summary`, resolve, async (req) => {
    const params = req.params as P
    return indicatorItem(req.ctx, await getIndicatorBySummary(req.ctx, params.assocType, params.summary))
  })
}

function victimTargets(
  app: FastifyInstance,
  prefix: string,
  resolve: Resolve,
  via: 'group' | undefined,
  writable: boolean,
) {
  const list = async (req: FastifyRequest, ids?: number[]) => {
    const p = parseListParams(query(req))
    const { items, total } = await listVictims(req.ctx, {
      ...listQuery(p),
      ids,
      associatedWith: await scopeOf(req, resolve, via),
    })
    return { p, total, items: await presentVictimsV2(req.ctx, items, p.includes) }
  }
  app.get(
    `${prefix}/victims`,
    { schema: S.v2List(S.VICTIM, { summary: 'Associated Victims' }) },
    async (req, reply) => {
      const { p, total, items } = await list(req)
      return sendList(req, reply, 'victim', items, p.paging, total)
    },
  )
  app.get<{ Params: P }>(
    `${prefix}/victims/:assocId`,
    { schema: S.v2Item(S.VICTIM, { summary: 'One associated Victim', query: S.ONE_QUERY }) },
    async (req, reply) => {
      const { items } = await list(req, [parseItemId('victim', req.params.assocId)])
      return sendOne(req, reply, 'victim', items, `Victim ${req.params.assocId}`)
    },
  )
  if (writable) {
    registerWrites(app, `${prefix}/victims/:assocId`, resolve, (req) =>
      findReadableItem(req.ctx, 'victim', parseItemId('victim', (req.params as P).assocId)),
    )
  }
}

function taskTargets(app: FastifyInstance, prefix: string, resolve: Resolve) {
  const list = async (req: FastifyRequest, ids?: number[]) => {
    const p = parseListParams(query(req))
    const { items, total } = await listTasks(req.ctx, {
      ...listQuery(p),
      ids,
      associatedWith: await scopeOf(req, resolve),
    })
    return { p, total, items: await presentTasksV2(req.ctx, items, p.includes) }
  }
  app.get(`${prefix}/tasks`, { schema: S.v2List(S.TASK, { summary: 'Associated Tasks' }) }, async (req, reply) => {
    const { p, total, items } = await list(req)
    return sendList(req, reply, 'task', items, p.paging, total)
  })
  app.get<{ Params: P }>(
    `${prefix}/tasks/:assocId`,
    { schema: S.v2Item(S.TASK, { summary: 'One associated Task', query: S.ONE_QUERY }) },
    async (req, reply) => {
      const { items } = await list(req, [parseItemId('task', req.params.assocId)])
      return sendOne(req, reply, 'task', items, `Task ${req.params.assocId}`)
    },
  )
  registerWrites(app, `${prefix}/tasks/:assocId`, resolve, (req) =>
    findReadableItem(req.ctx, 'task', parseItemId('task', (req.params as P).assocId)),
  )
}

function victimAssetTargets(app: FastifyInstance, prefix: string, resolve: Resolve) {
  const list = async (req: FastifyRequest, type: string | undefined, ids?: number[]) => {
    const paging = parsePaging(query(req))
    const { items, total } = await listVictimAssets(req.ctx, {
      type,
      ids,
      associatedWith: await scopeOf(req, resolve),
      ...paging,
    })
    return { paging, total, items }
  }
  app.get(
    `${prefix}/victimAssets`,
    { schema: S.v2List(S.ASSET, { summary: 'Associated Victim Assets' }) },
    async (req, reply) => {
      const { paging, total, items } = await list(req, undefined)
      return sendList(
        req,
        reply,
        'victimAsset',
        items.map((a) => presentVictimAssetSummaryV2(req.ctx.services.publicUrl, a)),
        paging,
        total,
      )
    },
  )
  app.get<{ Params: P }>(
    `${prefix}/victimAssets/:assocType`,
    { schema: S.v2List(S.ASSET, { summary: 'Associated Victim Assets of one type' }) },
    async (req, reply) => {
      const def = requireVictimAssetType(req.params.assocType)
      const { paging, total, items } = await list(req, def.name)
      return sendList(
        req,
        reply,
        def.apiEntity,
        items.map((a) => presentVictimAssetV2(req.ctx.services.publicUrl, a).body),
        paging,
        total,
      )
    },
  )
  app.get<{ Params: P }>(
    `${prefix}/victimAssets/:assocType/:assocId`,
    { schema: S.v2Item(S.ASSET, { summary: 'One associated Victim Asset' }) },
    async (req, reply) => {
      const def = requireVictimAssetType(req.params.assocType)
      const { items } = await list(req, def.name, [parseItemId('victimAsset', req.params.assocId)])
      return sendOne(
        req,
        reply,
        def.apiEntity,
        items.map((a) => presentVictimAssetV2(req.ctx.services.publicUrl, a).body),
        `Victim Asset ${req.params.assocId}`,
      )
    },
  )
  registerWrites(app, `${prefix}/victimAssets/:assocType/:assocId`, resolve, async (req) => {
    const params = req.params as P
    const asset = await getVictimAssetById(req.ctx, parseItemId('victimAsset', params.assocId), params.assocType)
    return findReadableItem(req.ctx, 'victimAsset', asset.id)
  })
}

/**
 * Registers the association sub-paths under an item's prefix.
 * @example registerAssociationRoutes(app, '/tasks/:taskId', resolveTask, { targets: ['groups', 'indicators', 'victims', 'victimAssets'] })
 */
export function registerAssociationRoutes(
  app: FastifyInstance,
  prefix: string,
  resolve: Resolve,
  options: AssociationRouteOptions,
): void {
  const targets = new Set(options.targets)
  const via = new Set(options.viaGroup ?? [])
  if (targets.has('groups')) groupTargets(app, prefix, resolve)
  if (targets.has('indicators') || via.has('indicators'))
    indicatorTargets(app, prefix, resolve, via.has('indicators') ? 'group' : undefined, targets.has('indicators'))
  if (targets.has('victims') || via.has('victims'))
    victimTargets(app, prefix, resolve, via.has('victims') ? 'group' : undefined, targets.has('victims'))
  if (targets.has('tasks')) taskTargets(app, prefix, resolve)
  if (targets.has('victimAssets')) victimAssetTargets(app, prefix, resolve)
}

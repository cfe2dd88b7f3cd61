/**
 * /v2/groups: every Group type's list, create, read, update and delete, plus (in the
 * groups-*.ts modules) files, PDF, publish, Adversary Assets and associations. Metadata
 * sub-paths come from registerMetadataRoutes.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import {
  createGroup,
  deleteGroup,
  findReadableGroup,
  getGroup,
  listGroups,
  requireGroupType,
  updateGroup,
} from '../../../domain/groups/groups.js'
import { parseIncludes, query } from '../params.js'
import { presentGroupsV2, presentOneGroupV2 } from '../present-group.js'
import { sendItem, sendList, sendNoBody } from '../present.js'
import { registerAssociationRoutes } from './groups-associations.js'
import { adversaryAssetRoutes } from './groups-adversary-assets.js'
import { groupFileRoutes } from './groups-files.js'
import { GROUP_PREFIX, groupPath, listQuery, parseListParams } from './groups-params.js'
import { registerMetadataRoutes } from './metadata.js'
import * as S from '../schemas.js'

export async function groupRoutes(app: FastifyInstance) {
  app.get('/groups', { schema: S.v2List(S.GROUP, { summary: 'Groups of every type' }) }, async (req, reply) => {
    const params = parseListParams(query(req))
    const { items, total } = await listGroups(req.ctx, listQuery(params))
    return sendList(req, reply, 'group', await presentGroupsV2(req.ctx, items, params.includes), params.paging, total)
  })

  app.get<{ Params: { groupType: string } }>(
    '/groups/:groupType',
    { schema: S.v2List(S.GROUP, { summary: 'Groups of one type' }) },
    async (req, reply) => {
      const def = requireGroupType(req.params.groupType)
      const params = parseListParams(query(req))
      const { items, total } = await listGroups(req.ctx, { ...listQuery(params), type: def.name })
      return sendList(
        req,
        reply,
        def.apiEntity,
        await presentGroupsV2(req.ctx, items, params.includes),
        params.paging,
        total,
      )
    },
  )

  app.post<{ Params: { groupType: string } }>(
    '/groups/:groupType',
    { schema: S.v2Item(S.GROUP, { summary: 'Create a Group', body: S.GROUP_BODY, status: 201 }) },
    async (req, reply) => {
      const def = requireGroupType(req.params.groupType)
      const group = await createGroup(req.ctx, def.name, req.body)
      return sendItem(
        req,
        reply,
        def.apiEntity,
        await presentOneGroupV2(req.ctx, group, parseIncludes(query(req))),
        201,
      )
    },
  )

  app.get(
    GROUP_PREFIX,
    { schema: S.v2Item(S.GROUP, { summary: 'One Group', query: S.ONE_QUERY }) },
    async (req, reply) => {
      const { type, id } = groupPath(req)
      const group = await getGroup(req.ctx, id, type)
      return sendItem(
        req,
        reply,
        requireGroupType(type).apiEntity,
        await presentOneGroupV2(req.ctx, group, parseIncludes(query(req))),
      )
    },
  )

  app.put(
    GROUP_PREFIX,
    { schema: S.v2Item(S.GROUP, { summary: 'Update a Group', body: S.GROUP_BODY }) },
    async (req, reply) => {
      const { type, id } = groupPath(req)
      const group = await updateGroup(req.ctx, id, type, req.body)
      return sendItem(
        req,
        reply,
        requireGroupType(type).apiEntity,
        await presentOneGroupV2(req.ctx, group, parseIncludes(query(req))),
      )
    },
  )

  app.delete(GROUP_PREFIX, { schema: S.v2NoBody({ summary: 'Delete a Group' }) }, async (req, reply) => {
    const { type, id } = groupPath(req)
    await deleteGroup(req.ctx, id, type)
    return sendNoBody(req, reply)
  })

  const resolveGroup = (req: FastifyRequest) => {
    const { type, id } = groupPath(req)
    return findReadableGroup(req.ctx, id, type)
  }
  registerMetadataRoutes(app, GROUP_PREFIX, resolveGroup)
  registerAssociationRoutes(app, GROUP_PREFIX, resolveGroup, {
    targets: ['groups', 'indicators', 'victims', 'tasks', 'victimAssets'],
  })
  await groupFileRoutes(app)
  await adversaryAssetRoutes(app)
}

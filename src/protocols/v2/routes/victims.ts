/**
 * /v2/victims: list, create, read, update, delete; the Victim's own assets
 * (victimAssets[/{type}[/{id}]]); associations with Groups and Tasks; Indicators and Victims
 * that share a Group with it (read only); metadata.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { findReadableItem, parseItemId } from '../../../domain/items/items.js'
import {
  createVictimAsset,
  deleteVictimAsset,
  getVictimAsset,
  listVictimAssets,
  requireVictimAssetType,
  updateVictimAsset,
} from '../../../domain/victims/victim-assets.js'
import { createVictim, deleteVictim, getVictim, listVictims, updateVictim } from '../../../domain/victims/victims.js'
import { parseIncludes, parsePaging, query } from '../params.js'
import { presentVictimAssetSummaryV2, presentVictimAssetV2, presentVictimsV2 } from '../present-victim.js'
import { sendItem, sendList, sendNoBody } from '../present.js'
import { registerAssociationRoutes } from './groups-associations.js'
import { listQuery, parseListParams } from './groups-params.js'
import { registerMetadataRoutes } from './metadata.js'
import * as S from '../schemas.js'

const VICTIM = '/victims/:victimId'
const ASSETS = `${VICTIM}/victimAssets`
type P = { assetType: string; assetId: string }

function victimId(req: FastifyRequest): number {
  return parseItemId('victim', (req.params as { victimId: string }).victimId)
}

function assetId(req: FastifyRequest): number {
  return parseItemId('victimAsset', (req.params as P).assetId)
}

async function presentOne(req: FastifyRequest, victim: Awaited<ReturnType<typeof getVictim>>) {
  const [body] = await presentVictimsV2(req.ctx, [victim], parseIncludes(query(req)), true)
  return body
}

function sendAsset(
  req: FastifyRequest,
  reply: Parameters<typeof sendItem>[1],
  asset: Awaited<ReturnType<typeof getVictimAsset>>,
  status = 200,
) {
  const { entity, body } = presentVictimAssetV2(req.ctx.services.publicUrl, asset)
  return sendItem(req, reply, entity, body, status)
}

async function victimAssetRoutes(app: FastifyInstance) {
  app.get(ASSETS, { schema: S.v2List(S.ASSET, { summary: 'Victim Assets' }) }, async (req, reply) => {
    const paging = parsePaging(query(req))
    const { items, total } = await listVictimAssets(req.ctx, { victimId: victimId(req), ...paging })
    return sendList(
      req,
      reply,
      'victimAsset',
      items.map((a) => presentVictimAssetSummaryV2(req.ctx.services.publicUrl, a)),
      paging,
      total,
    )
  })
  app.get<{ Params: P }>(
    `${ASSETS}/:assetType`,
    { schema: S.v2List(S.ASSET, { summary: 'Victim Assets of one type' }) },
    async (req, reply) => {
      const paging = parsePaging(query(req))
      const def = requireVictimAssetType(req.params.assetType)
      const { items, total } = await listVictimAssets(req.ctx, { victimId: victimId(req), type: def.name, ...paging })
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
    `${ASSETS}/:assetType/:assetId`,
    { schema: S.v2Item(S.ASSET, { summary: 'One Victim Asset' }) },
    async (req, reply) =>
      sendAsset(req, reply, await getVictimAsset(req.ctx, victimId(req), req.params.assetType, assetId(req))),
  )
  app.post<{ Params: P }>(
    `${ASSETS}/:assetType`,
    { schema: S.v2Item(S.ASSET, { summary: 'Add a Victim Asset', body: S.ASSET_BODY, status: 201 }) },
    async (req, reply) =>
      sendAsset(req, reply, await createVictimAsset(req.ctx, victimId(req), req.params.assetType, req.body), 201),
  )
  // tcex updates assets with POST to the asset's own path; the platform documents PUT.
  for (const method of ['PUT', 'POST'] as const) {
    app.route<{ Params: P }>({
      method,
      url: `${ASSETS}/:assetType/:assetId`,
      schema: S.v2Item(S.ASSET, { summary: 'Update a Victim Asset (tcex sends POST)', body: S.ASSET_BODY }),
      handler: async (req, reply) =>
        sendAsset(
          req,
          reply,
          await updateVictimAsset(req.ctx, victimId(req), req.params.assetType, assetId(req), req.body),
        ),
    })
  }
  app.delete<{ Params: P }>(
    `${ASSETS}/:assetType/:assetId`,
    { schema: S.v2NoBody({ summary: 'Delete a Victim Asset' }) },
    async (req, reply) => {
      await deleteVictimAsset(req.ctx, victimId(req), req.params.assetType, assetId(req))
      return sendNoBody(req, reply)
    },
  )
}

export async function victimRoutes(app: FastifyInstance) {
  app.get('/victims', { schema: S.v2List(S.VICTIM, { summary: 'Victims' }) }, async (req, reply) => {
    const params = parseListParams(query(req))
    const { items, total } = await listVictims(req.ctx, listQuery(params))
    return sendList(req, reply, 'victim', await presentVictimsV2(req.ctx, items, params.includes), params.paging, total)
  })

  app.post(
    '/victims',
    { schema: S.v2Item(S.VICTIM, { summary: 'Create a Victim', body: S.VICTIM_BODY, status: 201 }) },
    async (req, reply) =>
      sendItem(req, reply, 'victim', await presentOne(req, await createVictim(req.ctx, req.body)), 201),
  )

  app.get(VICTIM, { schema: S.v2Item(S.VICTIM, { summary: 'One Victim', query: S.ONE_QUERY }) }, async (req, reply) =>
    sendItem(req, reply, 'victim', await presentOne(req, await getVictim(req.ctx, victimId(req)))),
  )

  app.put(
    VICTIM,
    { schema: S.v2Item(S.VICTIM, { summary: 'Update a Victim', body: S.VICTIM_BODY }) },
    async (req, reply) =>
      sendItem(req, reply, 'victim', await presentOne(req, await updateVictim(req.ctx, victimId(req), req.body))),
  )

  app.delete(VICTIM, { schema: S.v2NoBody({ summary: 'Delete a Victim' }) }, async (req, reply) => {
    await deleteVictim(req.ctx, victimId(req))
    return sendNoBody(req, reply)
  })

  await victimAssetRoutes(app)
  const resolveVictim = (req: FastifyRequest) => findReadableItem(req.ctx, 'victim', victimId(req))
  registerMetadataRoutes(app, VICTIM, resolveVictim)
  registerAssociationRoutes(app, VICTIM, resolveVictim, {
    targets: ['groups', 'tasks'],
    viaGroup: ['indicators', 'victims'],
  })
}

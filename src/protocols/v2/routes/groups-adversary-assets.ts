/**
 * /v2/groups/adversaries/{id}/adversaryAssets[/{type}[/{assetId}]]: list (bucketAsset),
 * list one type, read, create, update and delete handles, phone numbers and URLs.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import {
  createAdversaryAsset,
  deleteAdversaryAsset,
  getAdversaryAsset,
  listAdversaryAssets,
  requireAdversaryAssetType,
  updateAdversaryAsset,
} from '../../../domain/groups/adversary-assets.js'
import { notFound } from '../../../core/errors.js'
import { requireGroupType } from '../../../domain/groups/groups.js'
import { parseId, parseItemId } from '../../../domain/items/items.js'
import { pageOf, parsePaging, query } from '../params.js'
import { presentAdversaryAssetSummaryV2, presentAdversaryAssetV2 } from '../present-victim.js'
import { sendItem, sendList, sendNoBody } from '../present.js'
import { GROUP_PREFIX, groupPath } from './groups-params.js'
import * as S from '../schemas.js'

const ASSETS = `${GROUP_PREFIX}/adversaryAssets`
type P = { assetType: string; assetId: string }

/** The Adversary's id; other Group types have no assets (404, as an unknown path). */
function adversaryId(req: FastifyRequest): number {
  const { type, id } = groupPath(req)
  if (requireGroupType(type).name !== 'Adversary') throw notFound(`Only Adversaries have Adversary Assets, not ${type}`)
  return id
}

function assetId(text: string): number {
  return parseId('Adversary Asset', text)
}

export async function adversaryAssetRoutes(app: FastifyInstance) {
  const publicUrl = (req: FastifyRequest) => req.ctx.services.publicUrl

  app.get(
    ASSETS,
    { schema: S.v2List(S.ASSET, { summary: 'Adversary assets (handles, phone numbers, URLs)' }) },
    async (req, reply) => {
      const paging = parsePaging(query(req))
      const all = await listAdversaryAssets(req.ctx, adversaryId(req))
      const page = pageOf(all, paging)
      return sendList(
        req,
        reply,
        'bucketAsset',
        page.map((a) => presentAdversaryAssetSummaryV2(publicUrl(req), a)),
        paging,
        all.length,
      )
    },
  )

  app.get<{ Params: P }>(
    `${ASSETS}/:assetType`,
    { schema: S.v2List(S.ASSET, { summary: 'Adversary assets of one type' }) },
    async (req, reply) => {
      const paging = parsePaging(query(req))
      const def = requireAdversaryAssetType(req.params.assetType)
      const all = await listAdversaryAssets(req.ctx, adversaryId(req), def.apiBranch)
      const page = pageOf(all, paging)
      return sendList(
        req,
        reply,
        def.apiEntity,
        page.map((a) => presentAdversaryAssetV2(publicUrl(req), a).body),
        paging,
        all.length,
      )
    },
  )

  app.get<{ Params: P }>(
    `${ASSETS}/:assetType/:assetId`,
    { schema: S.v2Item(S.ASSET, { summary: 'One adversary asset' }) },
    async (req, reply) => {
      const asset = await getAdversaryAsset(
        req.ctx,
        adversaryId(req),
        req.params.assetType,
        assetId(req.params.assetId),
      )
      const { entity, body } = presentAdversaryAssetV2(publicUrl(req), asset)
      return sendItem(req, reply, entity, body)
    },
  )

  app.post<{ Params: P }>(
    `${ASSETS}/:assetType`,
    { schema: S.v2Item(S.ASSET, { summary: 'Add an adversary asset', body: S.ASSET_BODY, status: 201 }) },
    async (req, reply) => {
      const asset = await createAdversaryAsset(req.ctx, adversaryId(req), req.params.assetType, req.body)
      const { entity, body } = presentAdversaryAssetV2(publicUrl(req), asset)
      return sendItem(req, reply, entity, body, 201)
    },
  )

  app.put<{ Params: P }>(
    `${ASSETS}/:assetType/:assetId`,
    { schema: S.v2Item(S.ASSET, { summary: 'Update an adversary asset', body: S.ASSET_BODY }) },
    async (req, reply) => {
      const asset = await updateAdversaryAsset(
        req.ctx,
        adversaryId(req),
        req.params.assetType,
        assetId(req.params.assetId),
        req.body,
      )
      const { entity, body } = presentAdversaryAssetV2(publicUrl(req), asset)
      return sendItem(req, reply, entity, body)
    },
  )

  app.delete<{ Params: P }>(
    `${ASSETS}/:assetType/:assetId`,
    { schema: S.v2NoBody({ summary: 'Delete an adversary asset' }) },
    async (req, reply) => {
      await deleteAdversaryAsset(req.ctx, adversaryId(req), req.params.assetType, assetId(req.params.assetId))
      return sendNoBody(req, reply)
    },
  )
}

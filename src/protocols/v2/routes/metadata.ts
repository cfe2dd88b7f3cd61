/**
 * The metadata sub-paths every v2 item kind shares (groups, indicators, tasks, victims):
 * <item>/attributes…, <item>/securityLabels…, <item>/tags…. Each kind's route module calls
 * registerMetadataRoutes with its path prefix and a resolver for the item.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import * as metadata from '../../../domain/metadata/item-metadata.js'
import { notFound } from '../../../core/errors.js'
import { type ItemInfo, parseId } from '../../../domain/items/items.js'
import { pageOf, parsePaging, query } from '../params.js'
import { presentAttributeV2, presentSecurityLabelV2, presentTagV2 } from '../present-metadata.js'
import { sendItem, sendList, sendNoBody } from '../present.js'
import * as S from '../schemas.js'

type Resolve = (req: FastifyRequest) => Promise<ItemInfo>
type Params = { attributeId?: string; label?: string; tag?: string }

function attributeId(text: string | undefined): number {
  return parseId('Attribute', text)
}

function page<T>(req: FastifyRequest, items: T[]) {
  const paging = parsePaging(query(req))
  return { paging, slice: pageOf(items, paging) }
}

export function registerMetadataRoutes(app: FastifyInstance, prefix: string, resolve: Resolve): void {
  app.get(
    `${prefix}/attributes`,
    { schema: S.v2List(S.ATTRIBUTE, { summary: 'Attributes of the item' }) },
    async (req, reply) => {
      const all = await metadata.listAttributes(req.ctx, await resolve(req))
      const { paging, slice } = page(req, all)
      return sendList(req, reply, 'attribute', slice.map(presentAttributeV2), paging, all.length)
    },
  )
  app.get<{ Params: Params }>(
    `${prefix}/attributes/:attributeId`,
    { schema: S.v2Item(S.ATTRIBUTE, { summary: 'One Attribute' }) },
    async (req, reply) =>
      sendItem(
        req,
        reply,
        'attribute',
        presentAttributeV2(
          await metadata.getAttribute(req.ctx, await resolve(req), attributeId(req.params.attributeId)),
        ),
      ),
  )
  app.post(
    `${prefix}/attributes`,
    { schema: S.v2Item(S.ATTRIBUTE, { summary: 'Add an Attribute', body: S.ATTRIBUTE_BODY, status: 201 }) },
    async (req, reply) => {
      const attribute = await metadata.addAttribute(
        req.ctx,
        await resolve(req),
        (req.body ?? {}) as metadata.AttributeInput,
      )
      return sendItem(req, reply, 'attribute', presentAttributeV2(attribute), 201)
    },
  )
  app.put<{ Params: Params }>(
    `${prefix}/attributes/:attributeId`,
    { schema: S.v2Item(S.ATTRIBUTE, { summary: 'Update an Attribute', body: S.ATTRIBUTE_BODY }) },
    async (req, reply) => {
      const attribute = await metadata.updateAttribute(
        req.ctx,
        await resolve(req),
        attributeId(req.params.attributeId),
        (req.body ?? {}) as metadata.AttributeInput,
      )
      return sendItem(req, reply, 'attribute', presentAttributeV2(attribute))
    },
  )
  app.delete<{ Params: Params }>(
    `${prefix}/attributes/:attributeId`,
    { schema: S.v2NoBody({ summary: 'Delete an Attribute' }) },
    async (req, reply) => {
      await metadata.deleteAttribute(req.ctx, await resolve(req), attributeId(req.params.attributeId))
      return sendNoBody(req, reply)
    },
  )
  app.get<{ Params: Params }>(
    `${prefix}/attributes/:attributeId/securityLabels`,
    { schema: S.v2List(S.LABEL, { summary: 'Security Labels of an Attribute' }) },
    async (req, reply) => {
      const all = await metadata.listAttributeLabels(req.ctx, await resolve(req), attributeId(req.params.attributeId))
      const { paging, slice } = page(req, all)
      return sendList(req, reply, 'securityLabel', slice.map(presentSecurityLabelV2), paging, all.length)
    },
  )
  app.post<{ Params: Params }>(
    `${prefix}/attributes/:attributeId/securityLabels/:label`,
    { schema: S.v2NoBody({ summary: 'Label an Attribute' }) },
    async (req, reply) => {
      await metadata.applyAttributeLabel(
        req.ctx,
        await resolve(req),
        attributeId(req.params.attributeId),
        req.params.label!,
      )
      return sendNoBody(req, reply, 1)
    },
  )
  app.delete<{ Params: Params }>(
    `${prefix}/attributes/:attributeId/securityLabels/:label`,
    { schema: S.v2NoBody({ summary: 'Remove a label from an Attribute' }) },
    async (req, reply) => {
      await metadata.removeAttributeLabel(
        req.ctx,
        await resolve(req),
        attributeId(req.params.attributeId),
        req.params.label!,
      )
      return sendNoBody(req, reply)
    },
  )

  app.get(
    `${prefix}/securityLabels`,
    { schema: S.v2List(S.LABEL, { summary: 'Security Labels of the item' }) },
    async (req, reply) => {
      const all = await metadata.listItemLabels(req.ctx, await resolve(req))
      const { paging, slice } = page(req, all)
      return sendList(req, reply, 'securityLabel', slice.map(presentSecurityLabelV2), paging, all.length)
    },
  )
  app.get<{ Params: Params }>(
    `${prefix}/securityLabels/:label`,
    { schema: S.v2Item(S.LABEL, { summary: 'One Security Label of the item' }) },
    async (req, reply) => {
      const label = (await metadata.listItemLabels(req.ctx, await resolve(req))).find(
        (l) => l.name === req.params.label,
      )
      if (!label) throw notFound(`Security Label '${req.params.label}' is not on this item`)
      return sendItem(req, reply, 'securityLabel', presentSecurityLabelV2(label))
    },
  )
  app.post<{ Params: Params }>(
    `${prefix}/securityLabels/:label`,
    { schema: S.v2NoBody({ summary: 'Label the item' }) },
    async (req, reply) => {
      await metadata.applyLabel(req.ctx, await resolve(req), req.params.label!)
      return sendNoBody(req, reply, 1)
    },
  )
  app.delete<{ Params: Params }>(
    `${prefix}/securityLabels/:label`,
    { schema: S.v2NoBody({ summary: 'Remove a label' }) },
    async (req, reply) => {
      await metadata.removeLabel(req.ctx, await resolve(req), req.params.label!)
      return sendNoBody(req, reply)
    },
  )

  app.get(`${prefix}/tags`, { schema: S.v2List(S.TAG, { summary: 'Tags of the item' }) }, async (req, reply) => {
    const all = await metadata.listItemTags(req.ctx, await resolve(req))
    const { paging, slice } = page(req, all)
    return sendList(
      req,
      reply,
      'tag',
      slice.map((t) => presentTagV2(req.ctx.services.publicUrl, t)),
      paging,
      all.length,
    )
  })
  app.get<{ Params: Params }>(
    `${prefix}/tags/:tag`,
    { schema: S.v2Item(S.TAG, { summary: 'One Tag of the item' }) },
    async (req, reply) => {
      const tag = (await metadata.listItemTags(req.ctx, await resolve(req))).find((t) => t.name === req.params.tag)
      if (!tag) throw notFound(`Tag '${req.params.tag}' is not on this item`)
      return sendItem(req, reply, 'tag', presentTagV2(req.ctx.services.publicUrl, tag))
    },
  )
  app.post<{ Params: Params }>(
    `${prefix}/tags/:tag`,
    { schema: S.v2NoBody({ summary: 'Tag the item' }) },
    async (req, reply) => {
      await metadata.addTag(req.ctx, await resolve(req), req.params.tag!)
      return sendNoBody(req, reply, 1)
    },
  )
  app.delete<{ Params: Params }>(
    `${prefix}/tags/:tag`,
    { schema: S.v2NoBody({ summary: 'Remove a Tag' }) },
    async (req, reply) => {
      await metadata.removeTag(req.ctx, await resolve(req), req.params.tag!)
      return sendNoBody(req, reply)
    },
  )
}

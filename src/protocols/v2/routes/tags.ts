/** /v2/tags: Tags as objects (list with weight, one, create or describe, rename, delete) and the items carrying one. */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { invalid } from '../../../core/errors.js'
import {
  type TagFilter,
  createOrDescribeTag,
  deleteTag,
  getTag,
  listTags,
  requireTagMarker,
  updateTag,
} from '../../../domain/metadata/tags.js'
import { type Query, flag, parsePaging, query } from '../params.js'
import { presentWeighedTagV2 } from '../present-metadata.js'
import { sendItem, sendList, sendNoBody } from '../present.js'
import { parseFilters, registerMarkedItemRoutes } from './marked-items.js'
import * as S from '../schemas.js'

function tagFilter(q: Query): TagFilter {
  const { expressions, any } = parseFilters(q, { name: ['=', '^'], weight: ['=', '<', '>'] })
  const filter: TagFilter = { name: [], weight: [], any }
  for (const e of expressions) {
    if (e.field === 'name') filter.name!.push({ op: e.op as '=' | '^', value: e.value })
    else if (!/^\d{1,9}$/.test(e.value)) throw invalid(`Filter weight takes a whole number, not '${e.value}'`)
    else filter.weight!.push({ op: e.op as '=' | '<' | '>', value: Number(e.value) })
  }
  return filter
}

const body = (req: FastifyRequest) => (req.body ?? {}) as { name?: unknown; description?: unknown }

export async function tagRoutes(app: FastifyInstance) {
  app.get(
    '/tags',
    { schema: S.v2List(S.TAG, { summary: 'Tags of the owner, with their weight' }) },
    async (req, reply) => {
      const q = query(req)
      const paging = parsePaging(q)
      const detailed = flag(q, 'detailed')
      const { items, total } = await listTags(req.ctx, tagFilter(q), {
        offset: paging.resultStart,
        limit: paging.resultLimit,
      })
      return sendList(
        req,
        reply,
        'tag',
        items.map((t) => presentWeighedTagV2(req.ctx.services.publicUrl, t, detailed)),
        paging,
        total,
      )
    },
  )

  app.get<{ Params: { name: string } }>(
    '/tags/:name',
    { schema: S.v2Item(S.TAG, { summary: 'One Tag' }) },
    async (req, reply) =>
      sendItem(
        req,
        reply,
        'tag',
        presentWeighedTagV2(req.ctx.services.publicUrl, await getTag(req.ctx, req.params.name), true),
      ),
  )

  app.post(
    '/tags',
    {
      schema: S.v2Item(S.TAG, {
        summary: 'Create a Tag, or describe an existing one',
        body: S.TAG_BODY,
        status: [201, 200],
      }),
    },
    async (req, reply) => {
      const { tag, created } = await createOrDescribeTag(req.ctx, body(req))
      return sendItem(
        req,
        reply,
        'tag',
        presentWeighedTagV2(req.ctx.services.publicUrl, tag, true),
        created ? 201 : 200,
      )
    },
  )

  app.put<{ Params: { name: string } }>(
    '/tags/:name',
    { schema: S.v2Item(S.TAG, { summary: 'Rename or describe a Tag', body: S.TAG_BODY }) },
    async (req, reply) =>
      sendItem(
        req,
        reply,
        'tag',
        presentWeighedTagV2(req.ctx.services.publicUrl, await updateTag(req.ctx, req.params.name, body(req)), true),
      ),
  )

  app.delete<{ Params: { name: string } }>(
    '/tags/:name',
    { schema: S.v2NoBody({ summary: 'Delete a Tag' }) },
    async (req, reply) => {
      await deleteTag(req.ctx, req.params.name)
      return sendNoBody(req, reply)
    },
  )

  registerMarkedItemRoutes(app, '/tags/:name', requireTagMarker)
}

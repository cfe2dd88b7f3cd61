/** /v2/types: indicatorTypes, attributeTypes, associationTypes. */
import type { FastifyInstance } from 'fastify'
import {
  getAssociationType,
  getAttributeType,
  getIndicatorType,
  listAssociationTypes,
  listAttributeTypes,
  listIndicatorTypes,
} from '../../../domain/metadata/types.js'
import { presentAssociationTypeV2, presentAttributeTypeV2, presentIndicatorTypeV2 } from '../present-metadata.js'
import {
  type FilterExpression,
  type Query,
  flag,
  pageOf,
  parseFilterExpressions,
  parseIncludes,
  parsePaging,
  query,
  single,
} from '../params.js'
import { sendItem, sendList } from '../present.js'
import * as S from '../schemas.js'

/** Attribute type filters, as `filters=system%3Dtrue,maxLength%3E100` or as plain parameters (`system=true`). */
function attributeTypeFilters(q: Query): FilterExpression[] {
  const expressions = parseFilterExpressions(q)
  for (const field of ['system', 'allowMarkdown', 'maxLength']) {
    const value = single(q, field)
    if (value !== undefined) expressions.push({ field, op: '=', value })
  }
  return expressions
}

export async function typeRoutes(app: FastifyInstance) {
  app.get('/types/indicatorTypes', { schema: S.v2List(S.TYPE, { summary: 'Indicator types' }) }, async (req, reply) => {
    const q = query(req)
    const paging = parsePaging(q)
    const additional = parseIncludes(q).has('additional')
    const all = listIndicatorTypes()
    return sendList(
      req,
      reply,
      'indicatorType',
      pageOf(all, paging).map((t) => presentIndicatorTypeV2(t, additional)),
      paging,
      all.length,
    )
  })

  app.get<{ Params: { type: string } }>(
    '/types/indicatorTypes/:type',
    { schema: S.v2Item(S.TYPE, { summary: 'One Indicator type', query: S.ONE_QUERY }) },
    async (req, reply) =>
      sendItem(
        req,
        reply,
        'indicatorType',
        presentIndicatorTypeV2(getIndicatorType(req.params.type), parseIncludes(query(req)).has('additional')),
      ),
  )

  const withRule = (q: Query) =>
    (single(q, 'includes') ?? '').split(',').includes('validationRule') || flag(q, 'includeAdditional')

  app.get('/types/attributeTypes', { schema: S.v2List(S.TYPE, { summary: 'Attribute types' }) }, async (req, reply) => {
    const q = query(req)
    const paging = parsePaging(q)
    const all = await listAttributeTypes(req.ctx, attributeTypeFilters(q))
    return sendList(
      req,
      reply,
      'attributeType',
      pageOf(all, paging).map((t) => presentAttributeTypeV2(t, withRule(q))),
      paging,
      all.length,
    )
  })

  app.get<{ Params: { name: string } }>(
    '/types/attributeTypes/:name',
    { schema: S.v2Item(S.TYPE, { summary: 'One Attribute type', query: S.ONE_QUERY }) },
    async (req, reply) =>
      sendItem(
        req,
        reply,
        'attributeType',
        presentAttributeTypeV2(await getAttributeType(req.ctx, req.params.name), withRule(query(req))),
      ),
  )

  app.get(
    '/types/associationTypes',
    { schema: S.v2List(S.TYPE, { summary: 'Custom association types' }) },
    async (req, reply) => {
      const paging = parsePaging(query(req))
      const all = await listAssociationTypes(req.ctx)
      return sendList(
        req,
        reply,
        'associationType',
        pageOf(all, paging).map(presentAssociationTypeV2),
        paging,
        all.length,
      )
    },
  )

  app.get<{ Params: { name: string } }>(
    '/types/associationTypes/:name',
    { schema: S.v2Item(S.TYPE, { summary: 'One custom association type' }) },
    async (req, reply) =>
      sendItem(
        req,
        reply,
        'associationType',
        presentAssociationTypeV2(await getAssociationType(req.ctx, req.params.name)),
      ),
  )
}

/** /v2/securityLabels: the owner's labels (list, one, define, delete) and the items carrying one. */
import type { FastifyInstance } from 'fastify'
import {
  type LabelFilter,
  createSecurityLabel,
  deleteSecurityLabel,
  getSecurityLabel,
  listSecurityLabels,
  requireLabelMarker,
} from '../../../domain/metadata/security-labels.js'
import { invalid } from '../../../core/errors.js'
import { type Query, pageOf, parsePaging, query } from '../params.js'
import { presentSecurityLabelV2 } from '../present-metadata.js'
import { sendItem, sendList, sendNoBody } from '../present.js'
import { parseFilters, registerMarkedItemRoutes } from './marked-items.js'
import * as S from '../schemas.js'

function labelFilter(q: Query): LabelFilter {
  const { expressions } = parseFilters(q, { name: ['=', '^'] })
  // Labels carry one filterable field, so one expression is all a list can use.
  if (expressions.length > 1) throw invalid('Security Labels take one name filter')
  const [e] = expressions
  return e ? { name: { op: e.op as '=' | '^', value: e.value } } : {}
}

export async function securityLabelRoutes(app: FastifyInstance) {
  app.get(
    '/securityLabels',
    { schema: S.v2List(S.LABEL, { summary: 'Security Labels of the owner' }) },
    async (req, reply) => {
      const q = query(req)
      const paging = parsePaging(q)
      const all = await listSecurityLabels(req.ctx, labelFilter(q))
      const page = pageOf(all, paging)
      return sendList(req, reply, 'securityLabel', page.map(presentSecurityLabelV2), paging, all.length)
    },
  )

  app.get<{ Params: { name: string } }>(
    '/securityLabels/:name',
    { schema: S.v2Item(S.LABEL, { summary: 'One Security Label' }) },
    async (req, reply) =>
      sendItem(req, reply, 'securityLabel', presentSecurityLabelV2(await getSecurityLabel(req.ctx, req.params.name))),
  )

  // Not in the platform's v2 API: an administrator's convenience, the same rule batch files use.
  app.post(
    '/securityLabels',
    {
      schema: S.v2Item(S.LABEL, {
        summary: 'Define a Security Label (administrators)',
        body: S.LABEL_BODY,
        status: 201,
      }),
    },
    async (req, reply) => {
      const label = await createSecurityLabel(req.ctx, (req.body ?? {}) as Record<string, unknown>)
      return sendItem(req, reply, 'securityLabel', presentSecurityLabelV2(label), 201)
    },
  )

  app.delete<{ Params: { name: string } }>(
    '/securityLabels/:name',
    { schema: S.v2NoBody({ summary: 'Delete a Security Label' }) },
    async (req, reply) => {
      await deleteSecurityLabel(req.ctx, req.params.name)
      return sendNoBody(req, reply)
    },
  )

  registerMarkedItemRoutes(app, '/securityLabels/:name', requireLabelMarker)
}

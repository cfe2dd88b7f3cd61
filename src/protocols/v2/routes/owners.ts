/** /v2/owners, /v2/owners/mine, members, metrics, and /v2/whoami. */
import type { FastifyInstance } from 'fastify'
import { invalid } from '../../../core/errors.js'
import {
  getAccessibleOwner,
  getMyOrganization,
  listAccessibleOwners,
  listMyOrganizationMembers,
  ownerMetrics,
  whoami,
} from '../../../domain/access/owners.js'
import { pageOf, parsePaging, query } from '../params.js'
import { presentMemberV2, presentOwnerMetricV2, presentOwnerV2, presentWhoamiV2 } from '../present-owner.js'
import { sendData, sendList } from '../present.js'
import * as S from '../schemas.js'

function ownerId(text: string): number {
  if (!/^\d+$/.test(text)) throw invalid(`Owner id must be a whole number, not '${text}'`)
  return Number(text)
}

export async function ownerRoutes(app: FastifyInstance) {
  app.get('/owners', { schema: S.v2List(S.OWNER, { summary: 'Owners the caller reads' }) }, async (req, reply) => {
    const paging = parsePaging(query(req))
    const owners = listAccessibleOwners(req.ctx)
    return sendList(req, reply, 'owner', pageOf(owners, paging).map(presentOwnerV2), paging, owners.length)
  })

  app.get('/owners/mine', { schema: S.v2Item(S.OWNER, { summary: "The caller's Organization" }) }, async (req, reply) =>
    sendData(req, reply, 'owner', { resultCount: 1, owner: presentOwnerV2(getMyOrganization(req.ctx)) }),
  )

  app.get(
    '/owners/mine/members',
    { schema: S.v2List(S.USER, { summary: "Members of the caller's Organization", query: S.OWNER_QUERY }) },
    async (req, reply) => {
      const members = await listMyOrganizationMembers(req.ctx)
      return sendData(req, reply, 'user', { resultCount: members.length, user: members.map(presentMemberV2) })
    },
  )

  app.get(
    '/owners/metrics',
    {
      schema: S.v2List(S.OWNER_METRIC, {
        summary: 'Daily counts of every owner the caller reads',
        query: S.OWNER_QUERY,
      }),
    },
    async (req, reply) => {
      const metrics = await ownerMetrics(
        req.ctx,
        listAccessibleOwners(req.ctx).map((o) => o.id),
      )
      return sendData(req, reply, 'ownerMetric', {
        resultCount: metrics.length,
        ownerMetric: metrics.map(presentOwnerMetricV2),
      })
    },
  )

  app.get<{ Params: { id: string } }>(
    '/owners/:id/metrics',
    { schema: S.v2List(S.OWNER_METRIC, { summary: 'Daily counts of one owner', query: S.OWNER_QUERY }) },
    async (req, reply) => {
      const owner = getAccessibleOwner(req.ctx, ownerId(req.params.id))
      const metrics = await ownerMetrics(req.ctx, [owner.id])
      return sendData(req, reply, 'ownerMetric', {
        resultCount: metrics.length,
        ownerMetric: metrics.map(presentOwnerMetricV2),
      })
    },
  )

  app.get<{ Params: { id: string } }>(
    '/owners/:id',
    { schema: S.v2Item(S.OWNER, { summary: 'One owner' }) },
    async (req, reply) =>
      sendData(req, reply, 'owner', {
        resultCount: 1,
        owner: presentOwnerV2(getAccessibleOwner(req.ctx, ownerId(req.params.id))),
      }),
  )

  app.get('/whoami', { schema: S.v2Item(S.USER, { summary: 'The calling account' }) }, async (req, reply) =>
    sendData(req, reply, 'user', { user: presentWhoamiV2(whoami(req.ctx)) }),
  )
}

/**
 * /v2/playbooks: install (the body is the playbook file), new major versions, list, search,
 * one, export, activate, deactivate, delete. A Playbook is addressed by id or xid.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import {
  type PlaybookRecord,
  deletePlaybook,
  exportPlaybook,
  getPlaybook,
  installPlaybook,
  searchPlaybooks,
  setPlaybookStatus,
  uploadPlaybookVersion,
} from '../../../domain/platform/playbooks.js'
import { toApiTime } from '../../../core/time.js'
import { type Query, flag, parsePaging, query, single } from '../params.js'
import { sendItem, sendList, sendNoBody } from '../present.js'
import { JSON_MEDIA_TYPE } from '../../http/media-types.js'
import { jsonResponse } from '../../http/route-schema.js'
import * as S from '../schemas.js'

type Params = { id: string }

export function presentPlaybookV2(p: PlaybookRecord) {
  return {
    id: p.id,
    xid: p.xid ?? undefined,
    name: p.name,
    description: p.description ?? undefined,
    triggerType: p.triggerType ?? undefined,
    status: p.status,
    labels: p.labels,
    version: p.version,
    ownerName: p.ownerName,
    dateAdded: toApiTime(p.dateAdded),
    lastModified: toApiTime(p.lastModified),
  }
}

async function list(req: FastifyRequest, reply: any, q: Query, criteria: boolean) {
  const paging = parsePaging(q)
  const search = criteria
    ? {
        name: single(q, 'name'),
        triggerType: single(q, 'triggerType'),
        status: single(q, 'status'),
        sortOn: single(q, 'sortOn'),
        sortAscending: single(q, 'sortAscending') === undefined ? undefined : flag(q, 'sortAscending'),
        labels: single(q, 'labels'),
      }
    : {}
  const { items, total } = await searchPlaybooks(req.ctx, search, {
    offset: paging.resultStart,
    limit: paging.resultLimit,
  })
  return sendList(req, reply, 'playbook', items.map(presentPlaybookV2), paging, total)
}

export async function playbookRoutes(app: FastifyInstance) {
  app.get('/playbooks', { schema: S.v2List(S.PLAYBOOK, { summary: 'Playbooks' }) }, async (req, reply) =>
    list(req, reply, query(req), false),
  )
  app.get(
    '/playbooks/search',
    { schema: S.v2List(S.PLAYBOOK, { summary: 'Playbooks matching criteria', query: S.PLAYBOOK_SEARCH_QUERY }) },
    async (req, reply) => list(req, reply, query(req), true),
  )

  app.post(
    '/playbooks',
    {
      schema: S.v2Item(S.PLAYBOOK, {
        summary: 'Install a Playbook (the body is its file)',
        body: S.anyObject,
        status: 201,
      }),
    },
    async (req, reply) =>
      sendItem(req, reply, 'playbook', presentPlaybookV2(await installPlaybook(req.ctx, req.body)), 201),
  )

  app.get<{ Params: Params }>(
    '/playbooks/:id',
    { schema: S.v2Item(S.PLAYBOOK, { summary: 'One Playbook by id or xid' }) },
    async (req, reply) =>
      sendItem(req, reply, 'playbook', presentPlaybookV2(await getPlaybook(req.ctx, req.params.id))),
  )

  app.get<{ Params: Params }>(
    '/playbooks/:id/export',
    { schema: S.v2Other({ summary: 'The Playbook file' }, jsonResponse('The Playbook as installed', S.anyObject)) },
    async (req, reply) =>
      reply
        .code(200)
        .type(JSON_MEDIA_TYPE)
        .send(JSON.stringify(await exportPlaybook(req.ctx, req.params.id))),
  )

  app.post<{ Params: Params }>(
    '/playbooks/:id',
    { schema: S.v2Item(S.PLAYBOOK, { summary: 'Upload a new major version', body: S.anyObject }) },
    async (req, reply) =>
      sendItem(
        req,
        reply,
        'playbook',
        presentPlaybookV2(await uploadPlaybookVersion(req.ctx, req.params.id, req.body)),
      ),
  )

  app.post<{ Params: Params }>(
    '/playbooks/:id/activate',
    { schema: S.v2Item(S.PLAYBOOK, { summary: 'Activate' }) },
    async (req, reply) =>
      sendItem(req, reply, 'playbook', presentPlaybookV2(await setPlaybookStatus(req.ctx, req.params.id, 'Active'))),
  )

  app.post<{ Params: Params }>(
    '/playbooks/:id/deactivate',
    { schema: S.v2Item(S.PLAYBOOK, { summary: 'Deactivate' }) },
    async (req, reply) =>
      sendItem(req, reply, 'playbook', presentPlaybookV2(await setPlaybookStatus(req.ctx, req.params.id, 'Inactive'))),
  )

  app.delete<{ Params: Params }>(
    '/playbooks/:id',
    { schema: S.v2NoBody({ summary: 'Delete a Playbook' }) },
    async (req, reply) => {
      await deletePlaybook(req.ctx, req.params.id)
      return sendNoBody(req, reply)
    },
  )
}

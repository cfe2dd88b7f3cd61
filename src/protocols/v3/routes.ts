/**
 * Turns an endpoint declaration into its routes: OPTIONS (descriptor, /fields, /tql), GET
 * list and one, POST, PUT, DELETE one and bulk DELETE. Methods the declaration leaves out
 * answer 400 naming the endpoint as read-only (or without bulk delete).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { invalid, notFound } from '../../core/errors.js'
import { parseId } from '../../domain/items/items.js'
import { requireBulkDelete } from '../../domain/listing/object-lists.js'
import type { RequestContext } from '../../domain/context.js'
import type { AnyEndpoint, EndpointDirectory } from './endpoint.js'
import { checkFields, presentRecords } from './fields.js'
import { fieldDescriptor, fieldOptions, tqlOptions } from './options.js'
import { pageLinks } from './paging.js'
import { endpointSchemas } from './schemas.js'
import { type FieldTree, ownerScope, parseFieldTree, parseListQuery, query, showReadOnly, single } from './params.js'
import {
  sendV3Created,
  sendV3Data,
  sendV3Deleted,
  sendV3List,
  sendV3Options,
  sendV3Raw,
  sendV3Updated,
} from './present.js'

type IdRequest = FastifyRequest<{ Params: { id: string } }>

async function resolveId(endpoint: AnyEndpoint, ctx: RequestContext, text: string): Promise<number> {
  return endpoint.resolveId ? endpoint.resolveId(ctx, text) : parseId(endpoint.word, text)
}

async function presentOne(
  endpoint: AnyEndpoint,
  ctx: RequestContext,
  record: { id: number },
  fields: FieldTree,
  endpointFor: EndpointDirectory,
) {
  const [presented] = await presentRecords(endpoint, [record], fields, { ctx, depth: 0, endpointFor })
  return presented
}

/** Loads one readable record or answers 404. */
export async function loadOne(endpoint: AnyEndpoint, ctx: RequestContext, id: number): Promise<{ id: number }> {
  const [record] = await endpoint.load(ctx, [id])
  if (!record) throw notFound(`${endpoint.word} ${id} not found`)
  return record
}

function readOnly(endpoint: AnyEndpoint, what: string): never {
  throw invalid(`/v3/${endpoint.path} is read-only: ${what} is not supported`)
}

/**
 * Registers every endpoint of the list; each item kind is presented by the one endpoint that
 * declares it (attributes, per parent kind, are never association partners).
 *
 * @example await registerEndpoints(app, V3_ENDPOINTS)
 */
export async function registerEndpoints(app: FastifyInstance, endpoints: readonly AnyEndpoint[]): Promise<void> {
  const byKind = new Map<string, AnyEndpoint>()
  for (const endpoint of endpoints) {
    if (!endpoint.kind || endpoint.kind === 'attribute') continue
    if (byKind.has(endpoint.kind)) throw new Error(`two v3 endpoints declare the kind ${endpoint.kind}`)
    byKind.set(endpoint.kind, endpoint)
  }
  const endpointFor: EndpointDirectory = (kind) => byKind.get(kind)
  for (const endpoint of endpoints) registerEndpoint(app, endpoint, endpointFor)
}

function registerEndpoint(app: FastifyInstance, endpoint: AnyEndpoint, endpointFor: EndpointDirectory): void {
  const base = `/${endpoint.path}`
  // Each route's schema comes from the declaration; the OpenAPI document is generated from them.
  const schemas = endpointSchemas(endpoint)

  app.options(base, { schema: schemas.descriptor }, async (req, reply) =>
    sendV3Raw(reply, fieldDescriptor(endpoint, showReadOnly(query(req)))),
  )
  app.options(`${base}/fields`, { schema: schemas.fieldOptions }, async (_req, reply) =>
    sendV3Options(reply, fieldOptions(endpoint)),
  )
  app.options(`${base}/tql`, { schema: schemas.tqlOptions }, async (_req, reply) =>
    sendV3Options(reply, tqlOptions(endpoint)),
  )

  app.get(base, { schema: schemas.list }, async (req, reply) => {
    const q = query(req)
    const list = parseListQuery(q)
    const fields = parseFieldTree(q)
    checkFields(endpoint, fields)
    const page = await endpoint.list(req.ctx, list)
    const data = await presentRecords(endpoint, page.items, fields, { ctx: req.ctx, depth: 0, endpointFor })
    const links = pageLinks(req.ctx.services.publicUrl, req, {
      ...list,
      hasMore: page.hasMore,
      lastId: page.items.at(-1)?.id,
    })
    return sendV3List(reply, data, links, list.count && list.resultStart === 0 ? page.total : undefined)
  })

  app.get(`${base}/:id`, { schema: schemas.one }, async (req: IdRequest, reply) => {
    const fields = parseFieldTree(query(req))
    checkFields(endpoint, fields)
    const record = await loadOne(endpoint, req.ctx, await resolveId(endpoint, req.ctx, req.params.id))
    return sendV3Data(reply, await presentOne(endpoint, req.ctx, record, fields, endpointFor))
  })

  app.post(base, { schema: schemas.create }, async (req, reply) => {
    if (!endpoint.create) readOnly(endpoint, 'POST')
    const fields = parseFieldTree(query(req))
    checkFields(endpoint, fields)
    const record = await endpoint.create(req.ctx, req.body ?? {})
    return sendV3Created(reply, await presentOne(endpoint, req.ctx, record, fields, endpointFor))
  })

  app.put(`${base}/:id`, { schema: schemas.update }, async (req: IdRequest, reply) => {
    if (!endpoint.update) readOnly(endpoint, 'PUT')
    const fields = parseFieldTree(query(req))
    checkFields(endpoint, fields)
    const record = await endpoint.update(req.ctx, await resolveId(endpoint, req.ctx, req.params.id), req.body ?? {})
    return sendV3Updated(reply, await presentOne(endpoint, req.ctx, record, fields, endpointFor))
  })

  app.delete(`${base}/:id`, { schema: schemas.remove }, async (req: IdRequest, reply) => {
    if (!endpoint.remove) readOnly(endpoint, 'DELETE')
    await endpoint.remove(req.ctx, await resolveId(endpoint, req.ctx, req.params.id))
    return sendV3Deleted(reply)
  })

  app.delete(base, { schema: schemas.removeMatching }, async (req, reply) => {
    if (!endpoint.removeMatching) throw invalid(`Bulk delete is not available on /v3/${endpoint.path}`)
    const q = query(req)
    await requireBulkDelete(req.ctx)
    const tql = single(q, 'tql')
    // Deleting everything in reach takes an explicit filter, never an empty one.
    if (!tql?.trim()) throw invalid(`Bulk delete needs a tql filter, e.g. DELETE /v3/${endpoint.path}?tql=id in (1,2)`)
    const count = await endpoint.removeMatching(req.ctx, tql, ownerScope(q))
    return sendV3Deleted(reply, count)
  })
}

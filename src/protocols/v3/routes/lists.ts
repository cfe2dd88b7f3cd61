/**
 * /v3/lists (beyond the interface specification): outbound lists, saved TQL queries over
 * Indicators that firewalls read at a stable URL (domain/lists/, docs/lists.md). Administrators
 * manage them as JSON; anyone who may read Indicators reads a list's values as plain text
 * (`values.txt`, one per line) or CSV (`values.csv`), with a token, Bearer or Basic credentials,
 * an ETag and 304, streamed a page at a time.
 */
import { Readable } from 'node:stream'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { DomainError } from '../../../core/errors.js'
import { createList, deleteList, getList, listLists, updateList } from '../../../domain/lists/lists.js'
import { LIST_FILES, type ListFormat } from '../../../domain/lists/outbound-list.js'
import { etagMatches, openListValues, planListValues } from '../../../domain/lists/values.js'
import type { RestAuthConfig } from '../../http/rest-auth.js'
import {
  type JsonSchema,
  type RouteSchema,
  arrayOf,
  dateTime,
  integer,
  jsonResponse,
  object,
  pathParams,
  string,
} from '../../http/route-schema.js'
import { sessionTokenOf } from '../../http/session-cookie.js'
import { sendV3Body, sendV3Created, sendV3Data, sendV3Deleted, sendV3Updated } from '../present.js'
import { V3_ERROR } from '../schemas.js'

const BEYOND = ' — beyond the interface specification'
const REFUSED = { '4XX': jsonResponse('Refused: `{errCode, message, status: "Error"}`', V3_ERROR) }
const SUCCESS = { const: 'Success' }
const NAME = pathParams({ name: 'The list name' })

const LIST = object(
  {
    name: string('Part of its URL: letters, digits, dots, dashes, underscores'),
    tql: string('TQL over Indicators; only active Indicators are ever served'),
    savedSearch: object({ id: integer(), name: string() }, ['id', 'name']),
    types: arrayOf(string('An Indicator type name')),
    owners: arrayOf(string('An owner name')),
    urls: object({ text: string('One value per line'), csv: string('CSV with a header') }, ['text', 'csv']),
    createdBy: integer('The administrator who saved it (absent when saved with the CLI)'),
    dateAdded: dateTime(),
    lastModified: dateTime(),
  },
  ['name', 'tql', 'urls', 'dateAdded', 'lastModified'],
)

const LIST_BODY = object(
  {
    name: string('The list name (create only)'),
    tql: string('TQL over Indicators, e.g. `typeName in ("Address", "CIDR") and rating >= 3`'),
    savedSearch: integer(
      'Instead of tql: a saved search of Indicators (visible to you) whose current TQL the list follows',
    ),
    types: arrayOf(string('Indicator type names (Address, Host, URL, File …); none: every type')),
    owners: arrayOf(string('Owner names; none: every owner the reader may read')),
  },
  [],
)

const one = (description: string) =>
  jsonResponse(description, object({ data: LIST, status: SUCCESS }, ['data', 'status']))

const SCHEMAS: Record<string, RouteSchema> = {
  list: {
    summary: `Every outbound list (system administrators)${BEYOND}`,
    response: {
      200: jsonResponse(
        'The lists',
        object({ data: arrayOf(LIST), count: integer(), status: SUCCESS }, ['data', 'count', 'status']),
      ),
      ...REFUSED,
    },
  },
  create: {
    summary: `Save an outbound list (system administrators)${BEYOND}`,
    body: LIST_BODY,
    response: { 201: one('Saved'), ...REFUSED },
  },
  get: {
    summary: `One outbound list (system administrators)${BEYOND}`,
    params: NAME,
    response: { 200: one('The list'), ...REFUSED },
  },
  update: {
    summary: `Change an outbound list's TQL, types or owners (system administrators)${BEYOND}`,
    params: NAME,
    body: LIST_BODY,
    response: { 200: one('Changed'), ...REFUSED },
  },
  delete: {
    summary: `Remove an outbound list (system administrators)${BEYOND}`,
    params: NAME,
    response: { 200: jsonResponse('Removed', object({ message: string(), status: SUCCESS })), ...REFUSED },
  },
}

const MEDIA_TYPES: Record<ListFormat, string> = { text: 'text/plain; charset=utf-8', csv: 'text/csv; charset=utf-8' }

function valuesSchema(format: ListFormat): RouteSchema {
  const body: JsonSchema = { type: 'string' }
  return {
    summary: `An outbound list's values, ${format === 'text' ? 'one per line' : 'as CSV'}; token, Bearer or Basic credentials${BEYOND}`,
    params: NAME,
    querystring: object({ type: string('Only these Indicator types, comma-separated (Address, Host, URL, File …)') }),
    response: {
      200: { description: 'The values', content: { [MEDIA_TYPES[format].split(';')[0]!]: { schema: body } } },
      304: { description: 'Unchanged since the ETag given in If-None-Match' },
      ...REFUSED,
    },
  }
}

const nameOf = (req: FastifyRequest) => (req.params as { name: string }).name
const bodyOf = (req: FastifyRequest) => (req.body ?? {}) as Record<string, unknown>

/**
 * A request with no credential at all is asked for one (401 with a Basic challenge, which some
 * readers wait for before they send theirs), where the REST gate would answer the spec's 403.
 */
async function challengeUnauthenticated(req: FastifyRequest) {
  if (req.headers.authorization === undefined && sessionTokenOf(req) === undefined)
    throw new DomainError(
      'unauthenticated',
      'Authorization required: use Basic <credentials>, Bearer <API token> or TC-Token <token>',
    )
}

async function basicChallenge(_req: FastifyRequest, reply: FastifyReply, payload: unknown) {
  if (reply.statusCode === 401) reply.header('www-authenticate', 'Basic realm="Bulwark lists", charset="UTF-8"')
  return payload
}

function valuesRoute(app: FastifyInstance, format: ListFormat) {
  const config: RestAuthConfig = { anyCredential: true }
  app.get(
    `/lists/:name/${LIST_FILES[format]}`,
    {
      schema: valuesSchema(format),
      config: config as Record<string, unknown>,
      onRequest: challengeUnauthenticated,
      onSend: basicChallenge,
    },
    async (req, reply) => {
      const type = (req.query as { type?: string | string[] }).type
      const plan = await planListValues(req.ctx, nameOf(req), {
        format,
        type: Array.isArray(type) ? type.join(',') : type,
      })
      reply.header('etag', plan.etag).header('cache-control', 'no-cache')
      if (etagMatches(req.headers['if-none-match'], plan.etag)) return reply.code(304).send()
      // A HEAD (a reader checking the ETag) gets the headers without the list being read.
      if (req.method === 'HEAD') return reply.type(MEDIA_TYPES[format]).send()
      const chunks = await openListValues(req.ctx, plan)
      return reply.type(MEDIA_TYPES[format]).send(Readable.from(chunks, { objectMode: false }))
    },
  )
}

export async function listRoutes(app: FastifyInstance) {
  app.get('/lists', { schema: SCHEMAS.list }, async (req, reply) => {
    const lists = await listLists(req.ctx)
    return sendV3Body(reply, 200, { data: lists, count: lists.length, status: 'Success' })
  })
  app.post('/lists', { schema: SCHEMAS.create }, async (req, reply) =>
    sendV3Created(reply, await createList(req.ctx, bodyOf(req))),
  )
  app.get('/lists/:name', { schema: SCHEMAS.get }, async (req, reply) =>
    sendV3Data(reply, await getList(req.ctx, nameOf(req))),
  )
  app.put('/lists/:name', { schema: SCHEMAS.update }, async (req, reply) =>
    sendV3Updated(reply, await updateList(req.ctx, nameOf(req), bodyOf(req))),
  )
  app.delete('/lists/:name', { schema: SCHEMAS.delete }, async (req, reply) => {
    await deleteList(req.ctx, nameOf(req))
    return sendV3Deleted(reply)
  })
  valuesRoute(app, 'text')
  valuesRoute(app, 'csv')
}

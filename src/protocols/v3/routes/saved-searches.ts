/**
 * /v3/savedSearches (beyond the interface specification): named TQL queries, private or shared with an
 * owner's members (domain/saved-searches/, docs/console.md). The console's saved-searches page, dashboard
 * cards and graph filter read them; outbound lists may follow one.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { parseId } from '../../../domain/items/items.js'
import {
  type SavedSearchInput,
  changeSavedSearch,
  createSavedSearch,
  getSavedSearch,
  listSavedSearches,
  removeSavedSearch,
} from '../../../domain/saved-searches/saved-searches.js'
import {
  type RouteSchema,
  arrayOf,
  boolean,
  dateTime,
  integer,
  jsonResponse,
  object,
  pathParams,
  string,
} from '../../http/route-schema.js'
import { sendV3Body, sendV3Created, sendV3Data, sendV3Deleted, sendV3Updated } from '../present.js'
import { V3_ERROR } from '../schemas.js'

const BEYOND = ' — beyond the interface specification'
const REFUSED = { '4XX': jsonResponse('Refused: `{errCode, message, status: "Error"}`', V3_ERROR) }
const SUCCESS = { const: 'Success' }
const ID = pathParams({ id: 'The saved search id' })

const SAVED_SEARCH = object(
  {
    id: integer(),
    name: string(),
    tql: string('TQL over the kind'),
    kind: { type: 'string', enum: ['indicators', 'groups'] },
    shared: boolean('Shared with the members of `owner`; false: private to its creator'),
    owner: string('The owner it is shared with'),
    createdBy: string("The creator's user name"),
    mine: boolean('Saved by the caller'),
    pinned: boolean("On the caller's dashboard"),
    editable: boolean('The caller may change and delete it'),
    dateAdded: dateTime(),
    lastModified: dateTime(),
  },
  ['id', 'name', 'tql', 'kind', 'shared', 'createdBy', 'mine', 'pinned', 'dateAdded', 'lastModified'],
)

const BODY = object({
  name: string('1 to 100 characters'),
  tql: string('TQL over the kind, e.g. `typeName = "Host" and rating >= 4`'),
  kind: { type: 'string', enum: ['indicators', 'groups'], description: 'indicators unless given' },
  owner: string('Share with the members of this owner (you must be one); null or empty: private'),
  pinned: boolean("Put it on (or take it off) the caller's dashboard; any viewer may set their own"),
})

const one = (description: string) =>
  jsonResponse(description, object({ data: SAVED_SEARCH, status: SUCCESS }, ['data', 'status']))

const SCHEMAS: Record<string, RouteSchema> = {
  list: {
    summary: `The caller's saved searches and those shared with owners they read${BEYOND}`,
    response: {
      200: jsonResponse(
        'The saved searches',
        object({ data: arrayOf(SAVED_SEARCH), count: integer(), status: SUCCESS }, ['data', 'status']),
      ),
      ...REFUSED,
    },
  },
  create: { summary: `Save a search${BEYOND}`, body: BODY, response: { 201: one('Saved'), ...REFUSED } },
  get: { summary: `One saved search${BEYOND}`, params: ID, response: { 200: one('The saved search'), ...REFUSED } },
  update: {
    summary: `Change a saved search (its creator or an administrator), or pin it (any viewer)${BEYOND}`,
    params: ID,
    body: BODY,
    response: { 200: one('Changed'), ...REFUSED },
  },
  delete: {
    summary: `Delete a saved search (its creator or an administrator; not while an outbound list follows it)${BEYOND}`,
    params: ID,
    response: { 200: jsonResponse('Deleted', object({ message: string(), status: SUCCESS })), ...REFUSED },
  },
}

const idOf = (req: FastifyRequest) => parseId('Saved search', (req.params as { id: string }).id)
const bodyOf = (req: FastifyRequest) => (req.body ?? {}) as SavedSearchInput

export async function savedSearchRoutes(app: FastifyInstance) {
  app.get('/savedSearches', { schema: SCHEMAS.list }, async (req, reply) => {
    const searches = await listSavedSearches(req.ctx)
    return sendV3Body(reply, 200, { data: searches, count: searches.length, status: 'Success' })
  })
  app.post('/savedSearches', { schema: SCHEMAS.create }, async (req, reply) =>
    sendV3Created(reply, await createSavedSearch(req.ctx, bodyOf(req))),
  )
  app.get('/savedSearches/:id', { schema: SCHEMAS.get }, async (req, reply) =>
    sendV3Data(reply, await getSavedSearch(req.ctx, idOf(req))),
  )
  app.put('/savedSearches/:id', { schema: SCHEMAS.update }, async (req, reply) =>
    sendV3Updated(reply, await changeSavedSearch(req.ctx, idOf(req), bodyOf(req))),
  )
  app.delete('/savedSearches/:id', { schema: SCHEMAS.delete }, async (req, reply) => {
    await removeSavedSearch(req.ctx, idOf(req))
    return sendV3Deleted(reply)
  })
}

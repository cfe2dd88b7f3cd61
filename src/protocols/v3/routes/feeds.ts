/**
 * /v3/feeds (beyond the interface specification): the feeds Bulwark pulls on a schedule, defined
 * by system Administrators (domain/feeds/feeds.ts). Bodies are FeedView's fields, with
 * `credentials` and `caPem` on input only: no answer carries a secret. Runs and their history are
 * routes/feed-runs.ts's.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { invalid } from '../../../core/errors.js'
import { FEED_KINDS } from '../../../domain/feeds/feed.js'
import { addFeed, getFeed, listFeeds, removeFeed, updateFeed } from '../../../domain/feeds/feeds.js'
import {
  type JsonSchema,
  type RouteSchema,
  anyObject,
  arrayOf,
  boolean,
  integer,
  jsonResponse,
  object,
  string,
} from '../../http/route-schema.js'
import { sendV3Body, sendV3Created, sendV3Data, sendV3Deleted, sendV3Updated } from '../present.js'
import { V3_ERROR } from '../schemas.js'

/** Ids are PostgreSQL integers: a larger number names no feed, and must not reach the database. */
const MAX_ID = 2_147_483_647

function feedId(req: FastifyRequest): number {
  const raw = (req.params as { id: string }).id
  if (!/^\d{1,10}$/.test(raw) || Number(raw) > MAX_ID) throw invalid(`The feed id must be a number, not '${raw}'`)
  return Number(raw)
}

const SETTINGS = object({
  collection: string('TAXII 2.1: the collection id or alias; TAXII 1.1: the collection name (required for both)'),
  types: arrayOf(string('A STIX object type (TAXII 2.1 only)')),
  columns: string('CSV only: field=column pairs, as `bulwark import --map`'),
  indicatorType: string('Text (required) and CSV: the Indicator type of every value'),
  mirror: boolean('CSV and text: values that left the list become inactive'),
  pollUrl: string("TAXII 1.1: the poll service's URL, when discovery is not to be asked"),
})

const DEFAULTS = object({
  rating: { type: 'number', minimum: 0, maximum: 5 },
  confidence: { type: 'integer', minimum: 0, maximum: 100 },
  tags: arrayOf(string()),
  securityLabel: string('A Security Label of the owner or a standard TLP label; none unless given'),
})

const SHARED: Record<string, JsonSchema> = {
  name: string('Unique name'),
  kind: { type: 'string', enum: [...FEED_KINDS] },
  url: string('http or https, without user name or password'),
  owner: string('The owner the items go to (normally a Source)'),
  enabled: boolean(),
  settings: SETTINGS,
  defaults: DEFAULTS,
  importFrom: string('ISO 8601: nothing older is asked for on the first run'),
  maxObjectsPerRun: integer('Most objects one run takes'),
}

export const FEED: JsonSchema = object(
  {
    id: integer(),
    ...SHARED,
    credentials: { type: 'string', enum: ['basic', 'bearer', 'header', 'none'], description: 'Their kind only' },
    hasCaFile: boolean(),
    intervalSeconds: integer(),
    nextRunAt: string(),
    lastSuccessAt: string(),
    failures: integer('Failed runs in a row'),
    dateAdded: string(),
    lastModified: string(),
  },
  ['id', 'name', 'kind', 'url', 'owner', 'credentials', 'hasCaFile', 'intervalSeconds', 'enabled', 'nextRunAt'],
)

const FEED_BODY = object({
  ...SHARED,
  credentials: {
    description:
      '{kind: basic, user, password}, {kind: bearer, token} or {kind: header, name, value}; null removes them. Never returned.',
    oneOf: [anyObject, { type: 'null' }],
  },
  caPem: { type: ['string', 'null'], description: 'PEM certificates to trust for this feed; null removes them' },
  interval: string("How often: '15m', '1h', '1d' or whole seconds (at least 60; default 1h)"),
  intervalSeconds: integer('The same in seconds'),
})

const BEYOND = ' — beyond the interface specification'
const REFUSED = { '4XX': jsonResponse('Refused: `{errCode, message, status: "Error"}`', V3_ERROR) }
const SUCCESS = { const: 'Success' }
const one = (description: string, message?: string) =>
  jsonResponse(
    description,
    object({ data: FEED, ...(message ? { message: { const: message } } : {}), status: SUCCESS }, ['data', 'status']),
  )

const FEED_LIST: RouteSchema = {
  summary: `Every feed (system Administrators)${BEYOND}`,
  response: {
    200: jsonResponse('The feeds', object({ data: arrayOf(FEED), count: integer(), status: SUCCESS }, ['data'])),
    ...REFUSED,
  },
}
const FEED_GET: RouteSchema = { summary: `A feed${BEYOND}`, response: { 200: one('The feed'), ...REFUSED } }
const FEED_CREATE: RouteSchema = {
  summary: `Add a feed, due at once (system Administrators)${BEYOND}`,
  body: FEED_BODY,
  response: { 201: one('Added', 'Created'), ...REFUSED },
}
const FEED_UPDATE: RouteSchema = {
  summary: `Change the fields given of a feed${BEYOND}`,
  body: FEED_BODY,
  response: { 200: one('Changed', 'Updated'), ...REFUSED },
}
const FEED_DELETE: RouteSchema = {
  summary: `Remove a feed and its runs' record${BEYOND}`,
  response: { 200: jsonResponse('Removed', object({ message: { const: 'Deleted' }, status: SUCCESS })), ...REFUSED },
}

export async function feedRoutes(app: FastifyInstance) {
  app.get('/feeds', { schema: FEED_LIST }, async (req, reply) => {
    const feeds = await listFeeds(req.ctx)
    return sendV3Body(reply, 200, { data: feeds, count: feeds.length, status: 'Success' })
  })
  app.get('/feeds/:id', { schema: FEED_GET }, async (req, reply) =>
    sendV3Data(reply, await getFeed(req.ctx, feedId(req))),
  )
  app.post('/feeds', { schema: FEED_CREATE }, async (req, reply) =>
    sendV3Created(reply, await addFeed(req.ctx, req.body)),
  )
  app.put('/feeds/:id', { schema: FEED_UPDATE }, async (req, reply) =>
    sendV3Updated(reply, await updateFeed(req.ctx, feedId(req), req.body)),
  )
  app.delete('/feeds/:id', { schema: FEED_DELETE }, async (req, reply) => {
    await removeFeed(req.ctx, feedId(req))
    return sendV3Deleted(reply)
  })
}

/**
 * GET /v3/dashboard (beyond the interface specification): the console dashboard's figures for the caller, from
 * the database's tallies (domain/dashboard/, docs/console.md).
 */
import type { FastifyInstance } from 'fastify'
import { loadDashboard } from '../../../domain/dashboard/dashboard.js'
import {
  type JsonSchema,
  type RouteSchema,
  arrayOf,
  boolean,
  dateTime,
  integer,
  jsonResponse,
  number,
  object,
  string,
} from '../../http/route-schema.js'
import { sendV3Data } from '../present.js'
import { V3_ERROR } from '../schemas.js'

const BUCKET = object({ label: string(), count: integer(), tql: string('The TQL over Indicators of what it counts') }, [
  'label',
  'count',
  'tql',
])
const INDICATOR = object(
  {
    id: integer(),
    type: string(),
    summary: string(),
    ownerName: string(),
    rating: number(),
    active: boolean(),
    dateAdded: dateTime(),
  },
  ['id', 'type', 'summary', 'ownerName', 'active', 'dateAdded'],
)
const GROUP = object({ id: integer(), type: string(), name: string(), ownerName: string(), dateAdded: dateTime() }, [
  'id',
  'type',
  'name',
  'ownerName',
  'dateAdded',
])
const PINNED = object(
  {
    id: integer(),
    name: string(),
    tql: string(),
    kind: string('indicators or groups'),
    count: integer('Matches, at most countBound; absent when not counted'),
    more: boolean('More than countBound match'),
    error: string('Why there is no count'),
  },
  ['id', 'name', 'tql', 'kind', 'more'],
)
const buckets: JsonSchema = arrayOf(BUCKET)

const DASHBOARD: RouteSchema = {
  summary:
    "Counts of the caller's readable Indicators by owner, type, rating, active state and day added; the newest and highest-rated items; the caller's pinned saved searches counted — beyond the interface specification",
  response: {
    200: jsonResponse(
      'The dashboard',
      object(
        {
          data: object(
            {
              total: integer(),
              byOwner: buckets,
              byType: buckets,
              byRating: buckets,
              byActive: buckets,
              addedPerDay: buckets,
              newestIndicators: arrayOf(INDICATOR),
              highestRatedIndicators: arrayOf(INDICATOR),
              highestRatedSkipped: arrayOf(
                object({ rating: number(), count: integer(), tql: string() }, ['rating', 'count', 'tql']),
              ),
              newestGroups: arrayOf(GROUP),
              pinned: arrayOf(PINNED),
              countBound: integer(),
            },
            ['total', 'byOwner', 'byType', 'byRating', 'byActive', 'addedPerDay', 'pinned', 'countBound'],
          ),
          status: { const: 'Success' },
        },
        ['data', 'status'],
      ),
    ),
    '4XX': jsonResponse('Refused: `{errCode, message, status: "Error"}`', V3_ERROR),
  },
}

export async function dashboardRoutes(app: FastifyInstance) {
  app.get('/dashboard', { schema: DASHBOARD }, async (req, reply) => sendV3Data(reply, await loadDashboard(req.ctx)))
}

/**
 * /v3/graph (beyond the interface specification): the console's association graph (domain/items/graph.ts).
 * An item with its neighbours counted, and one bounded page of neighbours at a time.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { invalid } from '../../../core/errors.js'
import {
  DEFAULT_GRAPH_PAGE,
  GRAPH_KINDS,
  MAX_GRAPH_PAGE,
  getGraphNode,
  listGraphNeighbours,
  parseGraphKind,
} from '../../../domain/items/graph.js'
import { parseItemId } from '../../../domain/items/items.js'
import {
  type JsonSchema,
  type RouteSchema,
  arrayOf,
  boolean,
  integer,
  jsonResponse,
  number,
  object,
  pathParams,
  string,
} from '../../http/route-schema.js'
import { sendV3Body, sendV3Data } from '../present.js'
import { V3_ERROR } from '../schemas.js'

const BEYOND = ' — beyond the interface specification'
const REFUSED = { '4XX': jsonResponse('Refused: `{errCode, message, status: "Error"}`', V3_ERROR) }
const SUCCESS = { const: 'Success' }
const ITEM = pathParams({
  kind: 'indicators, groups, victims, victimAssets, cases, tasks, artifacts or intelRequirements',
  id: 'The item id',
})

const NODE_FIELDS: Record<string, JsonSchema> = {
  id: integer(),
  kind: string('The item kind as v3 paths name it'),
  type: string('Its type (an Indicator or Group type; the kind for kinds without types)'),
  summary: string('Its summary or name: intelligence text'),
  owner: string('Its owner'),
  rating: { ...number('Its rating (Indicators)'), type: ['number', 'null'] },
}

const COUNT = object(
  {
    kind: string(),
    type: string(),
    associationType: { type: ['string', 'null'], description: 'A custom association type; null: the plain one' },
    count: integer('Readable neighbours of this kind, type and association type'),
  },
  ['kind', 'type', 'associationType', 'count'],
)

const NODE_SCHEMA: RouteSchema = {
  summary: `An item with its neighbours counted by kind, type and association type${BEYOND}`,
  params: ITEM,
  response: {
    200: jsonResponse(
      'The item and its counts',
      object(
        {
          data: object({ ...NODE_FIELDS, neighbours: arrayOf(COUNT), degree: integer('Readable neighbours in all') }, [
            'id',
            'kind',
            'neighbours',
            'degree',
          ]),
          status: SUCCESS,
        },
        ['data', 'status'],
      ),
    ),
    ...REFUSED,
  },
}

const NEIGHBOURS_SCHEMA: RouteSchema = {
  summary: `One page of an item's neighbours, each with its own neighbour count${BEYOND}`,
  params: ITEM,
  querystring: object(
    {
      kind: string('Only neighbours of this kind'),
      type: string('Only neighbours of this type'),
      associationType: string('A custom association type (name or API branch); absent: the plain association'),
      tql: string('TQL over Indicators: only neighbouring Indicators that match'),
      ids: string('Only these neighbours of `kind`, comma-separated (at most 100)'),
      resultStart: string('First neighbour, from 0'),
      resultLimit: string(`Neighbours per page (1–${MAX_GRAPH_PAGE}, default ${DEFAULT_GRAPH_PAGE})`),
    },
    [],
  ),
  response: {
    200: jsonResponse(
      'A page of neighbours',
      object(
        {
          data: arrayOf(
            object(
              {
                ...NODE_FIELDS,
                degree: integer('Its readable neighbours, counted up to 1000 of each kind'),
                degreeCapped: boolean('A kind reached the 1000 counted: it has more'),
                associationType: { type: ['string', 'null'] },
              },
              ['id', 'kind', 'degree'],
            ),
          ),
          count: integer('Neighbours matching in all'),
          resultStart: integer(),
          resultLimit: integer(),
          status: SUCCESS,
        },
        ['data', 'count', 'status'],
      ),
    ),
    ...REFUSED,
  },
}

function itemOf(req: FastifyRequest) {
  const params = req.params as { kind: string; id: string }
  const kind = parseGraphKind(params.kind)
  return { kind, id: parseItemId(kind, params.id) }
}

function neighbourKind(text: string) {
  if (!Object.hasOwn(GRAPH_KINDS, text))
    throw invalid(`kind must be one of ${Object.keys(GRAPH_KINDS).join(', ')}, not '${text}'`)
  return parseGraphKind(text)
}

function idList(text: string): number[] {
  const parts = text.split(',').filter((part) => part !== '')
  if (parts.some((part) => !/^\d{1,15}$/.test(part))) throw invalid('ids must be whole numbers separated by commas')
  return parts.map(Number)
}

function whole(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined || value === '') return fallback
  if (!/^\d{1,9}$/.test(value)) throw invalid(`${name} must be a whole number`)
  return Number(value)
}

export async function graphRoutes(app: FastifyInstance) {
  app.get('/graph/:kind/:id', { schema: NODE_SCHEMA }, async (req, reply) => {
    const { kind, id } = itemOf(req)
    return sendV3Data(reply, await getGraphNode(req.ctx, kind, id))
  })

  app.get('/graph/:kind/:id/neighbours', { schema: NEIGHBOURS_SCHEMA }, async (req, reply) => {
    const { kind, id } = itemOf(req)
    const q = req.query as Record<string, string | undefined>
    const page = await listGraphNeighbours(req.ctx, kind, id, {
      ...(q.kind ? { kind: neighbourKind(q.kind) } : {}),
      ...(q.type ? { type: q.type } : {}),
      ...(q.associationType ? { associationType: q.associationType } : {}),
      ...(q.tql ? { tql: q.tql } : {}),
      ...(q.ids !== undefined ? { ids: idList(q.ids) } : {}),
      resultStart: whole(q.resultStart, 'resultStart', 0),
      resultLimit: whole(q.resultLimit, 'resultLimit', DEFAULT_GRAPH_PAGE),
    })
    return sendV3Body(reply, 200, { ...page, status: 'Success' })
  })
}

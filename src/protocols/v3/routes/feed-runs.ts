/**
 * A feed's runs (beyond the interface specification; docs/feeds.md, Runs): run one now on this node
 * and read the history. Administrators only.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { requireFeedAdministrator } from '../../../domain/feeds/feeds.js'
import { invalid } from '../../../core/errors.js'
import { feedIdOf, feedRunHistory, startManualFeedRun } from '../../../domain/feeds/run-feed.js'
import { feedRunDeps } from '../../../feeds/runner.js'
import {
  type JsonSchema,
  type ResponseDoc,
  type RouteSchema,
  arrayOf,
  integer,
  jsonResponse,
  object,
  string,
} from '../../http/route-schema.js'
import { sendV3Body, sendV3Data } from '../present.js'
import { V3_ERROR } from '../schemas.js'

const REFUSED: Record<string, ResponseDoc> = {
  '4XX': jsonResponse('Refused: `{errCode, message, status: "Error"}`', V3_ERROR),
}
const SUCCESS = { const: 'Success' }
const FEED_ID = object({ id: string('The feed id') }, ['id'])

const FEED_RUN: JsonSchema = object(
  {
    id: integer('The run id'),
    feed: string('The feed name'),
    status: { type: 'string', enum: ['Running', 'Succeeded', 'Failed', 'Interrupted'] },
    trigger: { type: 'string', enum: ['schedule', 'manual'] },
    startedAt: string('When it started'),
    finishedAt: string('When it ended'),
    pages: integer('Pages stored'),
    fetched: integer('Objects fetched'),
    created: integer('Items created'),
    updated: integer('Items changed'),
    unchanged: integer('Items already held as they are'),
    refused: integer('Items refused'),
    refusals: arrayOf(object({ item: string('Where'), message: string('Why') }, ['item', 'message'])),
    error: string('Why the run failed (no credentials)'),
  },
  ['id', 'feed', 'status', 'trigger', 'startedAt', 'pages', 'fetched', 'created', 'updated', 'unchanged', 'refused'],
)

const FEED_RUN_START: RouteSchema = {
  summary: 'Runs a feed now on this node — beyond the interface specification (administrators)',
  params: FEED_ID,
  querystring: object({ wait: string('true: answer once the run ended, with its record') }, []),
  response: {
    200: jsonResponse('The run, ended (wait=true)', object({ data: FEED_RUN, status: SUCCESS }, ['data', 'status'])),
    202: jsonResponse(
      'The run, started',
      object({ data: object({ id: integer('The run id') }, ['id']), status: SUCCESS }, ['data', 'status']),
    ),
    ...REFUSED,
  },
}

const FEED_RUN_HISTORY: RouteSchema = {
  summary: "A feed's runs, newest first (the last 100 are kept) — beyond the interface specification (administrators)",
  params: FEED_ID,
  querystring: object(
    { resultStart: string('First run, from 0'), resultLimit: string('Runs per page (1–100, default 20)') },
    [],
  ),
  response: {
    200: jsonResponse(
      'A page of runs',
      object({ data: arrayOf(FEED_RUN), count: integer('Runs kept'), status: SUCCESS }, ['data', 'count', 'status']),
    ),
    ...REFUSED,
  },
}

function feedId(req: FastifyRequest): number {
  const raw = (req.params as { id: string }).id
  if (!/^\d+$/.test(raw)) throw invalid(`The feed id must be a number, not '${raw}'`)
  return Number(raw)
}

function whole(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined || value === '') return fallback
  if (!/^\d+$/.test(value)) throw invalid(`${name} must be a whole number`)
  return Number(value)
}

export async function feedRunRoutes(app: FastifyInstance) {
  // A stopping node ends the runs it started for requests at their next page boundary, as its scheduler's.
  const stopping = new AbortController()
  const running = new Set<Promise<unknown>>()
  app.addHook('onClose', async () => {
    stopping.abort()
    await Promise.allSettled([...running])
  })

  app.post('/feeds/:id/run', { schema: FEED_RUN_START }, async (req, reply) => {
    requireFeedAdministrator(req.ctx)
    const { store, services } = req.ctx
    const id = await feedIdOf(store, { id: feedId(req) })
    const wait = (req.query as Record<string, string | undefined>).wait
    if (wait !== undefined && wait !== 'true' && wait !== 'false') throw invalid('wait must be true or false')
    const started = await startManualFeedRun(store, services, id, await feedRunDeps(services), stopping.signal)
    const done: Promise<unknown> = started.done
      .catch((error) => req.log.error({ err: error }, `feed run ${started.id} could not be recorded`))
      .finally(() => running.delete(done))
    running.add(done)
    if (wait === 'true') return sendV3Data(reply, await started.done)
    // The run goes on after the answer; its record says how it ended.
    return sendV3Body(reply, 202, { data: { id: started.id }, status: 'Success' })
  })

  app.get('/feeds/:id/runs', { schema: FEED_RUN_HISTORY }, async (req, reply) => {
    requireFeedAdministrator(req.ctx)
    const q = req.query as Record<string, string | undefined>
    const id = await feedIdOf(req.ctx.store, { id: feedId(req) })
    const { runs, count } = await feedRunHistory(req.ctx.store, id, {
      offset: whole(q.resultStart, 'resultStart', 0),
      limit: whole(q.resultLimit, 'resultLimit', 20),
    })
    return sendV3Body(reply, 200, { data: runs, count, status: 'Success' })
  })
}

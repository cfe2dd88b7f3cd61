/**
 * /v2/customMetrics: configurations (entity customMetricConfig) and data. Adding data answers
 * 204 without a body, or with returnValue=true the bare {value, date} of the aggregate
 * (an array of them for an array body), as the platform does: no v2 envelope.
 */
import type { FastifyInstance } from 'fastify'
import {
  type CustomMetricConfig,
  type MetricAggregate,
  addCustomMetricData,
  createCustomMetric,
  deleteCustomMetric,
  getCustomMetric,
  listCustomMetricData,
  listCustomMetrics,
} from '../../../domain/platform/custom-metrics.js'
import { toApiTime } from '../../../core/time.js'
import { flag, pageOf, parsePaging, query, single } from '../params.js'
import { sendItem, sendList, sendNoBody } from '../present.js'
import { JSON_MEDIA_TYPE } from '../../http/media-types.js'
import * as S from '../schemas.js'

type Params = { metric: string }

export function presentCustomMetricV2(metric: CustomMetricConfig) {
  return {
    id: metric.id,
    name: metric.name,
    dataType: metric.dataType,
    interval: metric.interval,
    keyedValues: metric.keyedValues,
    description: metric.description ?? undefined,
  }
}

function presentAggregate(metric: CustomMetricConfig, a: MetricAggregate) {
  return {
    ...(metric.keyedValues ? { name: a.key } : {}),
    value: a.value,
    date: toApiTime(a.periodStart),
    count: a.count,
    ...(metric.dataType === 'Average' ? { weight: a.weightSum } : {}),
  }
}

export async function customMetricRoutes(app: FastifyInstance) {
  app.get(
    '/customMetrics',
    { schema: S.v2List(S.CUSTOM_METRIC, { summary: 'Custom metric configurations' }) },
    async (req, reply) => {
      const paging = parsePaging(query(req))
      const all = await listCustomMetrics(req.ctx)
      const page = pageOf(all, paging)
      return sendList(req, reply, 'customMetricConfig', page.map(presentCustomMetricV2), paging, all.length)
    },
  )

  app.get<{ Params: Params }>(
    '/customMetrics/:metric',
    { schema: S.v2Item(S.CUSTOM_METRIC, { summary: 'One custom metric' }) },
    async (req, reply) =>
      sendItem(
        req,
        reply,
        'customMetricConfig',
        presentCustomMetricV2(await getCustomMetric(req.ctx, req.params.metric)),
      ),
  )

  app.post(
    '/customMetrics',
    {
      schema: S.v2Item(S.CUSTOM_METRIC, { summary: 'Define a custom metric', body: S.CUSTOM_METRIC_BODY, status: 201 }),
    },
    async (req, reply) => {
      const metric = await createCustomMetric(req.ctx, (req.body ?? {}) as Record<string, unknown>)
      return sendItem(req, reply, 'customMetricConfig', presentCustomMetricV2(metric), 201)
    },
  )

  app.delete<{ Params: Params }>(
    '/customMetrics/:metric',
    { schema: S.v2NoBody({ summary: 'Delete a custom metric' }) },
    async (req, reply) => {
      await deleteCustomMetric(req.ctx, req.params.metric)
      return sendNoBody(req, reply)
    },
  )

  app.post<{ Params: Params }>('/customMetrics/:metric/data', { schema: S.CUSTOM_METRIC_DATA }, async (req, reply) => {
    const aggregates = await addCustomMetricData(req.ctx, req.params.metric, req.body)
    if (!flag(query(req), 'returnValue')) return reply.code(204).send()
    const values = aggregates.map((a) => ({ value: a.value, date: toApiTime(a.periodStart) }))
    return reply
      .code(200)
      .type(JSON_MEDIA_TYPE)
      .send(JSON.stringify(Array.isArray(req.body) ? values : values[0]))
  })

  app.get<{ Params: Params }>(
    '/customMetrics/:metric/data',
    {
      schema: S.v2List(S.CUSTOM_METRIC_VALUE, { summary: 'Aggregated values by period', query: S.CUSTOM_METRIC_QUERY }),
    },
    async (req, reply) => {
      const q = query(req)
      const paging = parsePaging(q)
      const { metric, items, total } = await listCustomMetricData(
        req.ctx,
        req.params.metric,
        { key: single(q, 'name'), from: single(q, 'from'), to: single(q, 'to') },
        { offset: paging.resultStart, limit: paging.resultLimit },
      )
      return sendList(
        req,
        reply,
        'customMetricValue',
        items.map((a) => presentAggregate(metric, a)),
        paging,
        total,
      )
    },
  )
}

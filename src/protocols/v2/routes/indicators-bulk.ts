/**
 * Bulk Indicator reports of the request's owner: /v2/indicators/bulk (status, with no
 * envelope), /bulk/json ({indicator: [...]}, the batch input shape) and /bulk/csv. Reports
 * are generated on request, so they are always current and lastRun is the request time.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { RequestContext } from '../../../domain/context.js'
import { notFound } from '../../../core/errors.js'
import { type IndicatorRecord, listIndicators } from '../../../domain/indicators/indicators.js'
import { DAY_MS, toApiTime } from '../../../core/time.js'
import { renderPlainXml } from '../../http/xml.js'
import { presentIndicatorsV2 } from '../present-indicator.js'
import { wantsXml } from '../present.js'
import { JSON_MEDIA_TYPE, XML_MEDIA_TYPE } from '../../http/media-types.js'
import { jsonResponse } from '../../http/route-schema.js'
import * as S from '../schemas.js'

const PAGE = 1000

async function* ownerIndicators(ctx: RequestContext): AsyncGenerator<IndicatorRecord[]> {
  for (let start = 0; ; start += PAGE) {
    const { items } = await listIndicators(ctx, { resultStart: start, resultLimit: PAGE })
    if (items.length) yield items
    if (items.length < PAGE) return
  }
}

function csvCell(value: string | number | null): string {
  if (value === null) return 'null'
  const text = String(value)
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

async function sendJsonReport(req: FastifyRequest, reply: FastifyReply) {
  const items: unknown[] = []
  const includes = new Set(['attributes', 'tags'] as const)
  for await (const page of ownerIndicators(req.ctx))
    items.push(...(await presentIndicatorsV2(req.ctx, page, includes, { typed: true })))
  return reply.type(JSON_MEDIA_TYPE).send(JSON.stringify({ indicator: items }))
}

async function sendCsvReport(req: FastifyRequest, reply: FastifyReply) {
  const lines = ['Type,Value,Rating,Confidence']
  for await (const page of ownerIndicators(req.ctx)) {
    for (const i of page) lines.push([i.type, i.summary, i.rating, i.confidence].map(csvCell).join(','))
  }
  return reply.type('text/csv; charset=utf-8').send(`${lines.join('\r\n')}\r\n`)
}

export async function indicatorBulkRoutes(app: FastifyInstance) {
  app.get(
    '/indicators/bulk',
    {
      schema: S.v2Other(
        { summary: "Status of the owner's bulk report" },
        jsonResponse('`{bulkStatus}` (no `status`/`data` envelope)', S.BULK_STATUS),
      ),
    },
    async (req, reply) => {
      const now = Date.parse(req.ctx.now)
      const status = {
        name: req.ctx.owner.name,
        csvEnabled: true,
        jsonEnabled: true,
        nextRun: toApiTime(new Date(now + DAY_MS).toISOString()),
        lastRun: toApiTime(req.ctx.now),
        status: 'Complete',
      }
      if (wantsXml(req)) return reply.type(XML_MEDIA_TYPE).send(renderPlainXml('BulkStatus', status))
      return reply.type(JSON_MEDIA_TYPE).send(JSON.stringify({ bulkStatus: status }))
    },
  )

  app.get<{ Params: { format: string } }>(
    '/indicators/bulk/:format',
    { schema: S.v2Other({ summary: "The owner's Indicators as JSON or CSV" }, S.BULK_REPORT) },
    async (req, reply) => {
      if (req.params.format === 'json') return sendJsonReport(req, reply)
      if (req.params.format === 'csv') return sendCsvReport(req, reply)
      throw notFound(`Unknown bulk report format '${req.params.format}'; use json or csv`)
    },
  )
}

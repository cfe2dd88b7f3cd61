/**
 * v2 syntax for Indicators, read once: the type branch in the path, the Indicator named by
 * its summary in the path (Fastify has already URL-decoded it, so `%2F` arrives as `/`),
 * `filters=` expressions and the list parameters. Meaning stays in the domain.
 */
import type { FastifyRequest } from 'fastify'
import { invalid, notFound } from '../../../core/errors.js'
import {
  type IndicatorFilter,
  type IndicatorQuery,
  type IndicatorRecord,
  getIndicatorBySummary,
  indicatorItem,
} from '../../../domain/indicators/indicators.js'
import type { ItemInfo } from '../../../domain/items/items.js'
import { type IndicatorTypeDef, findIndicatorType } from '../../../model/indicator-types.js'
import { type Query, flag, parseFilterExpressions, parsePaging, query, single } from '../params.js'

export type IndicatorParams = { type: string; indicator: string }

/** The Indicator type of a path segment (apiBranch, and leniently its name or entity); unknown is a 404. */
export function indicatorTypeParam(text: string): IndicatorTypeDef {
  const def = findIndicatorType(text)
  if (!def)
    throw notFound(`Unknown Indicator type '${text}'; use one of the apiBranch values of /v2/types/indicatorTypes`)
  return def
}

/** The Indicator named by `/:type/:indicator` in the request's owner. */
export function resolveIndicator(req: FastifyRequest): Promise<IndicatorRecord> {
  const params = req.params as IndicatorParams
  const def = indicatorTypeParam(params.type)
  return getIndicatorBySummary(req.ctx, def.name, params.indicator)
}

export async function resolveIndicatorItem(req: FastifyRequest): Promise<ItemInfo> {
  return indicatorItem(req.ctx, await resolveIndicator(req))
}

/** Paging, filters, orParams and modifiedSince of a v2 Indicator list. */
export function indicatorListQuery(
  req: FastifyRequest,
  type?: string,
): IndicatorQuery & { resultStart: number; resultLimit: number } {
  const q = query(req)
  const paging = parsePaging(q)
  return {
    type,
    filters: parseFilterExpressions(q),
    orParams: flag(q, 'orParams'),
    modifiedSince: single(q, 'modifiedSince'),
    resultStart: paging.resultStart,
    resultLimit: paging.resultLimit,
  }
}

/** A JSON (or XML) object body; anything else is a 400. */
export function objectBody(req: FastifyRequest): Record<string, unknown> {
  const body = req.body
  if (body === undefined || body === null || body === '') return {}
  if (typeof body !== 'object' || Array.isArray(body) || Buffer.isBuffer(body))
    throw invalid('The request body must be a JSON object')
  return body as Record<string, unknown>
}

/**
 * Custom metrics of the call's owner: configurations (name, data type, interval, keyed or
 * not) and their data, kept as one aggregate per key and interval period. Periods start in
 * UTC: the hour, midnight, Monday midnight (ISO weeks), the first of the month, 1 January.
 */
import { CUSTOM_METRIC_DATA_TYPES, CUSTOM_METRIC_INTERVALS } from '../../model/group-types.js'
import * as repo from '../../store/repositories/custom-metric.repository.js'
import type { MetricDataType } from '../../store/repositories/custom-metric.repository.js'
import { type RequestContext, requirePermission } from '../context.js'
import { conflict, invalid, notFound } from '../../core/errors.js'
import { booleanValue } from '../../core/input.js'
import { parseApiTime } from '../../core/time.js'
import { withTransactionDb } from '../transaction.js'

export type MetricInterval = (typeof CUSTOM_METRIC_INTERVALS)[number]
export const METRIC_NAME_MAX_LENGTH = 45
export const METRIC_DESCRIPTION_MAX_LENGTH = 500
export const METRIC_KEY_MAX_LENGTH = 255
/** Points accepted in one POST …/data array. */
export const METRIC_POINTS_MAX = 1000

export interface CustomMetricConfig {
  id: number
  name: string
  dataType: MetricDataType
  interval: MetricInterval
  keyedValues: boolean
  description: string | null
}

export interface MetricAggregate {
  /** The key of a keyed metric; '' for a non-keyed one. */
  key: string
  value: number
  /** Start of the interval period (stored form). */
  periodStart: string
  count: number
  weightSum: number
  lastDate: string
}

function toConfig(row: repo.CustomMetricRow): CustomMetricConfig {
  return {
    id: row.id,
    name: row.name,
    dataType: row.data_type as MetricDataType,
    interval: row.interval as MetricInterval,
    keyedValues: !!row.keyed_values,
    description: row.description,
  }
}

function toAggregate(row: repo.CustomMetricValueRow): MetricAggregate {
  return {
    key: row.name,
    value: Number(row.value),
    periodStart: row.period_start,
    count: Number(row.count),
    weightSum: Number(row.weight_sum),
    lastDate: row.last_date,
  }
}

/** Start of the interval period containing `stored` (a stored ISO time). */
export function periodStart(interval: MetricInterval, stored: string): string {
  const d = new Date(stored)
  const [y, m, day, h] = [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours()]
  switch (interval) {
    case 'Hourly':
      return new Date(Date.UTC(y, m, day, h)).toISOString()
    case 'Daily':
      return new Date(Date.UTC(y, m, day)).toISOString()
    case 'Weekly':
      return new Date(Date.UTC(y, m, day - ((d.getUTCDay() + 6) % 7))).toISOString()
    case 'Monthly':
      return new Date(Date.UTC(y, m, 1)).toISOString()
    case 'Yearly':
      return new Date(Date.UTC(y, 0, 1)).toISOString()
  }
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], field: string): T {
  const found =
    typeof value === 'string' ? allowed.find((a) => a.toLowerCase() === value.trim().toLowerCase()) : undefined
  if (!found)
    throw invalid(
      `${field} must be one of ${allowed.join(', ')}${value === undefined ? '' : `, not '${String(value)}'`}`,
    )
  return found
}

const booleanField = (value: unknown, field: string) => booleanValue(value === '' ? undefined : value, field) ?? false

export async function listCustomMetrics(ctx: RequestContext): Promise<CustomMetricConfig[]> {
  return (await repo.listMetrics(ctx.store.db, ctx.owner.id)).map(toConfig)
}

async function requireMetric(ctx: RequestContext, nameOrId: string): Promise<repo.CustomMetricRow> {
  const byId = /^\d{1,15}$/.test(nameOrId)
    ? await repo.findMetricById(ctx.store.db, ctx.owner.id, Number(nameOrId))
    : undefined
  const metric = byId ?? (await repo.findMetricByName(ctx.store.db, ctx.owner.id, nameOrId))
  if (!metric) throw notFound(`Custom metric '${nameOrId}' not found in ${ctx.owner.name}`)
  return metric
}

/** By id when the text is a number that is an id here, else by name. */
export async function getCustomMetric(ctx: RequestContext, nameOrId: string): Promise<CustomMetricConfig> {
  return toConfig(await requireMetric(ctx, nameOrId))
}

/** @example await createCustomMetric(ctx, { name: 'playbookRuns', dataType: 'Sum', interval: 'Hourly', keyedValues: true }) */
export async function createCustomMetric(
  ctx: RequestContext,
  input: Record<string, unknown>,
): Promise<CustomMetricConfig> {
  await requirePermission(ctx, 'configureMetrics')
  const name = typeof input.name === 'string' ? input.name.trim() : ''
  if (!name) throw invalid('A custom metric needs a name')
  if (name.length > METRIC_NAME_MAX_LENGTH)
    throw invalid(`Custom metric names are at most ${METRIC_NAME_MAX_LENGTH} characters`)
  const dataType = oneOf(input.dataType, CUSTOM_METRIC_DATA_TYPES, 'dataType')
  const interval = oneOf(input.interval, CUSTOM_METRIC_INTERVALS, 'interval')
  const keyed = booleanField(input.keyedValues, 'keyedValues')
  const description =
    input.description === undefined || input.description === null || input.description === '' ? null : input.description
  if (description !== null && typeof description !== 'string') throw invalid('description must be a string')
  if (description && description.length > METRIC_DESCRIPTION_MAX_LENGTH)
    throw invalid(`description is at most ${METRIC_DESCRIPTION_MAX_LENGTH} characters`)
  const row = await repo.insertMetric(ctx.store.db, {
    owner_id: ctx.owner.id,
    name,
    data_type: dataType,
    interval,
    keyed_values: keyed ? 1 : 0,
    description,
    date_added: ctx.now,
  })
  if (!row) throw conflict(`Custom metric '${name}' already exists in ${ctx.owner.name}`)
  return toConfig(row)
}

/** Deletes the metric with all its data. */
export async function deleteCustomMetric(ctx: RequestContext, nameOrId: string): Promise<void> {
  await requirePermission(ctx, 'configureMetrics')
  const metric = await requireMetric(ctx, nameOrId)
  await withTransactionDb(ctx, (trx) => repo.deleteMetric(trx, metric.id))
}

function number(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null || value === '') return undefined
  const n =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\s*-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(value)
        ? Number(value)
        : NaN
  if (!Number.isFinite(n)) throw invalid(`${field} must be a number, not '${String(value)}'`)
  return n
}

function toPoint(
  ctx: RequestContext,
  metric: CustomMetricConfig,
  input: unknown,
  index: number | undefined,
): repo.MetricPoint {
  const where = index === undefined ? '' : ` (item ${index})`
  if (!input || typeof input !== 'object' || Array.isArray(input)) throw invalid(`Each data point is an object${where}`)
  const body = input as Record<string, unknown>
  let key = ''
  if (metric.keyedValues) {
    if (typeof body.name !== 'string' || !body.name.trim())
      throw invalid(`A keyed metric needs the key in name${where}`)
    key = body.name.trim()
    if (key.length > METRIC_KEY_MAX_LENGTH)
      throw invalid(`Metric keys are at most ${METRIC_KEY_MAX_LENGTH} characters${where}`)
  }
  const value = number(body.value, `value${where}`)
  if (value === undefined && metric.dataType !== 'Count') throw invalid(`A data point needs a value${where}`)
  const date = body.date === undefined || body.date === null || body.date === '' ? ctx.now : parseApiTime(body.date)
  if (!date) throw invalid(`date must be an ISO 8601 time, not '${String(body.date)}'${where}`)
  // Weight only means something to an average; other data types ignore it.
  const weight = metric.dataType === 'Average' ? (number(body.weight, `weight${where}`) ?? 1) : 1
  if (weight <= 0) throw invalid(`weight must be greater than 0${where}`)
  return { metricId: metric.id, key, periodStart: periodStart(metric.interval, date), value: value ?? 1, weight, date }
}

/**
 * Adds one data point, or an array of them (all or none), and returns each point's
 * aggregate after it was folded in.
 * @example await addCustomMetricData(ctx, 'playbookRuns', { name: 'app1', value: '1' })
 */
export async function addCustomMetricData(
  ctx: RequestContext,
  nameOrId: string,
  body: unknown,
): Promise<MetricAggregate[]> {
  await requirePermission(ctx, 'addMetricData')
  const metric = toConfig(await requireMetric(ctx, nameOrId))
  const inputs = Array.isArray(body) ? body : [body]
  if (inputs.length === 0) throw invalid('No data points given')
  if (inputs.length > METRIC_POINTS_MAX) throw invalid(`At most ${METRIC_POINTS_MAX} data points per request`)
  const points = inputs.map((input, i) => toPoint(ctx, metric, input, Array.isArray(body) ? i : undefined))
  return withTransactionDb(ctx, async (trx) => {
    const results: MetricAggregate[] = []
    for (const point of points)
      results.push(toAggregate(await repo.addMetricPoint(trx, ctx.store.dialect, metric.dataType, point)))
    return results
  })
}

export interface MetricDataQuery {
  key?: string
  from?: string
  to?: string
}

/** Stored aggregates, newest period first. */
export async function listCustomMetricData(
  ctx: RequestContext,
  nameOrId: string,
  query: MetricDataQuery,
  page: { offset: number; limit: number },
) {
  const metric = await requireMetric(ctx, nameOrId)
  const time = (text: string | undefined, field: string) => {
    if (text === undefined || text === '') return undefined
    const parsed = parseApiTime(text)
    if (!parsed) throw invalid(`${field} must be an ISO 8601 time, not '${text}'`)
    return parsed
  }
  const { rows, total } = await repo.listMetricValues(
    ctx.store.db,
    metric.id,
    { key: query.key, from: time(query.from, 'from'), to: time(query.to, 'to') },
    page,
  )
  return { metric: toConfig(metric), items: rows.map(toAggregate), total }
}

/**
 * Custom metrics and their aggregates. A data point folds into its period's row in ONE
 * upsert statement, so concurrent writers never lose an update on either database.
 */
import { type Kysely, type RawBuilder, sql } from 'kysely'
import type { Database, Row } from '../database.js'

export type CustomMetricRow = Row<'custom_metric'>
export type CustomMetricValueRow = Row<'custom_metric_value'>
export type MetricDataType = 'Sum' | 'Count' | 'Min' | 'Max' | 'First' | 'Last' | 'Average'

export function findMetricById(
  db: Kysely<Database>,
  ownerId: number,
  id: number,
): Promise<CustomMetricRow | undefined> {
  return db
    .selectFrom('custom_metric')
    .selectAll()
    .where('owner_id', '=', ownerId)
    .where('id', '=', id)
    .executeTakeFirst()
}

export function findMetricByName(
  db: Kysely<Database>,
  ownerId: number,
  name: string,
): Promise<CustomMetricRow | undefined> {
  return db
    .selectFrom('custom_metric')
    .selectAll()
    .where('owner_id', '=', ownerId)
    .where('name', '=', name)
    .executeTakeFirst()
}

export function listMetrics(db: Kysely<Database>, ownerId: number): Promise<CustomMetricRow[]> {
  return db.selectFrom('custom_metric').selectAll().where('owner_id', '=', ownerId).orderBy('id').execute()
}

/** Undefined when the name is taken in the owner. */
export async function insertMetric(
  db: Kysely<Database>,
  values: Omit<CustomMetricRow, 'id'>,
): Promise<CustomMetricRow | undefined> {
  return (await db
    .insertInto('custom_metric')
    .values(values)
    .onConflict((oc) => oc.columns(['owner_id', 'name']).doNothing())
    .returningAll()
    .executeTakeFirst()) as CustomMetricRow | undefined
}

export async function deleteMetric(db: Kysely<Database>, id: number): Promise<void> {
  await db.deleteFrom('custom_metric_value').where('metric_id', '=', id).execute()
  await db.deleteFrom('custom_metric').where('id', '=', id).execute()
}

export interface MetricPoint {
  metricId: number
  key: string
  periodStart: string
  value: number
  weight: number
  date: string
}

const current = (column: string) => sql.ref(`custom_metric_value.${column}`)
const proposed = (column: string) => sql.ref(`excluded.${column}`)

/** How each data type folds a new point into the stored aggregate. */
function foldValue(dataType: MetricDataType, dialect: 'sqlite' | 'postgres'): RawBuilder<number> {
  // SQLite's two-argument min()/max() are scalar; PostgreSQL spells them least()/greatest().
  const [least, greatest] = dialect === 'postgres' ? [sql`least`, sql`greatest`] : [sql`min`, sql`max`]
  switch (dataType) {
    case 'Sum':
    case 'Count':
      return sql<number>`${current('value')} + ${proposed('value')}`
    case 'Min':
      return sql<number>`${least}(${current('value')}, ${proposed('value')})`
    case 'Max':
      return sql<number>`${greatest}(${current('value')}, ${proposed('value')})`
    case 'First':
      return sql<number>`${current('value')}`
    case 'Last':
      return sql<number>`${proposed('value')}`
    case 'Average':
      return sql<number>`(${current('value')} * ${current('weight_sum')} + ${proposed('value')} * ${proposed('weight_sum')})
        / (${current('weight_sum')} + ${proposed('weight_sum')})`
  }
}

/** Folds one point into its (metric, key, period) aggregate and returns the aggregate. */
export async function addMetricPoint(
  db: Kysely<Database>,
  dialect: 'sqlite' | 'postgres',
  dataType: MetricDataType,
  point: MetricPoint,
): Promise<CustomMetricValueRow> {
  const greatest = dialect === 'postgres' ? sql`greatest` : sql`max`
  await db
    .insertInto('custom_metric_value')
    .values({
      metric_id: point.metricId,
      name: point.key,
      period_start: point.periodStart,
      value: dataType === 'Count' ? 1 : point.value,
      count: 1,
      weight_sum: point.weight,
      last_date: point.date,
    })
    .onConflict((oc) =>
      oc.columns(['metric_id', 'name', 'period_start']).doUpdateSet({
        value: foldValue(dataType, dialect),
        count: sql<number>`${current('count')} + 1`,
        weight_sum: sql<number>`${current('weight_sum')} + ${proposed('weight_sum')}`,
        last_date: sql<string>`${greatest}(${current('last_date')}, ${proposed('last_date')})`,
      }),
    )
    .execute()
  return db
    .selectFrom('custom_metric_value')
    .selectAll()
    .where('metric_id', '=', point.metricId)
    .where('name', '=', point.key)
    .where('period_start', '=', point.periodStart)
    .executeTakeFirstOrThrow()
}

export async function listMetricValues(
  db: Kysely<Database>,
  metricId: number,
  filter: { key?: string; from?: string; to?: string },
  page: { offset: number; limit: number },
) {
  let query = db.selectFrom('custom_metric_value').where('metric_id', '=', metricId)
  if (filter.key !== undefined) query = query.where('name', '=', filter.key)
  if (filter.from) query = query.where('period_start', '>=', filter.from)
  if (filter.to) query = query.where('period_start', '<=', filter.to)
  const [rows, total] = await Promise.all([
    query.selectAll().orderBy('period_start', 'desc').orderBy('name').offset(page.offset).limit(page.limit).execute(),
    query.select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow(),
  ])
  return { rows, total: Number(total.n) }
}

/**
 * The association graph's reads (domain/items/graph.ts): one item as a node, its neighbours counted by kind,
 * type and association type, one page of them, and each page member's own count. Every read starts from the
 * association primary key `(from_kind, from_id, to_kind, association_type_id, to_id)` and joins the partner's
 * table by its primary key, so its cost follows the item's associations, never the size of a table. Table and
 * column names come from NODE_COLUMNS (constants), never from request text.
 */
import { type Expression, type Kysely, type SqlBool, sql } from 'kysely'
import { ITEM_TABLES, type ItemKind } from '../../model/kinds.js'
import type { Database } from '../database.js'

/** The kinds a graph shows (an Attribute is metadata, not a node). */
export type GraphKind = Exclude<ItemKind, 'attribute'>

interface NodeColumns {
  summary: string
  /** The type column, or the fixed type every item of the kind has. */
  type: { column: string } | { fixed: string }
  rating?: string
}

const NODE_COLUMNS: Record<GraphKind, NodeColumns> = {
  indicator: { summary: 'summary', type: { column: 'type' }, rating: 'rating' },
  group: { summary: 'name', type: { column: 'type' } },
  task: { summary: 'name', type: { fixed: 'Task' } },
  victim: { summary: 'name', type: { fixed: 'Victim' } },
  victimAsset: { summary: 'value', type: { column: 'type' } },
  case: { summary: 'name', type: { fixed: 'Case' } },
  artifact: { summary: 'summary', type: { fixed: 'Artifact' } },
  intelRequirement: { summary: 'requirement_text', type: { fixed: 'Intelligence Requirement' } },
}

export interface GraphNodeRow {
  id: number
  type: string
  summary: string
  owner_id: number
  rating: number | null
}

const any = (db: Kysely<Database>) => db as unknown as Kysely<any>

function typeOf(kind: GraphKind) {
  const spec = NODE_COLUMNS[kind].type
  const table: string = ITEM_TABLES[kind]
  return 'column' in spec ? sql.ref<string>(`${table}.${spec.column}`) : sql.lit(spec.fixed)
}

function nodeSelection(kind: GraphKind) {
  const table: string = ITEM_TABLES[kind]
  const spec = NODE_COLUMNS[kind]
  return [
    sql.ref<number>(`${table}.id`).as('id'),
    typeOf(kind).as('type'),
    sql.ref<string>(`${table}.${spec.summary}`).as('summary'),
    sql.ref<number>(`${table}.owner_id`).as('owner_id'),
    (spec.rating ? sql.ref<number | null>(`${table}.${spec.rating}`) : sql.lit(null)).as('rating'),
  ]
}

export async function selectGraphNode(
  db: Kysely<Database>,
  kind: GraphKind,
  id: number,
): Promise<GraphNodeRow | undefined> {
  const table: string = ITEM_TABLES[kind]
  const row = await any(db)
    .selectFrom(table)
    .select(nodeSelection(kind))
    .where(`${table}.id`, '=', id)
    .executeTakeFirst()
  return row && normalise(row)
}

function normalise(row: Record<string, unknown>): GraphNodeRow {
  return {
    id: Number(row.id),
    type: String(row.type),
    summary: String(row.summary ?? ''),
    owner_id: Number(row.owner_id),
    rating: row.rating === null || row.rating === undefined ? null : Number(row.rating),
  }
}

export interface NeighbourCountRow {
  type: string
  association_type_id: number
  count: number
}

/** The item's partners of one kind in the given owners, counted by their type and the association's type. */
export async function countGraphNeighbours(
  db: Kysely<Database>,
  from: { kind: GraphKind; id: number },
  toKind: GraphKind,
  ownerIds: readonly number[],
): Promise<NeighbourCountRow[]> {
  if (ownerIds.length === 0) return []
  const table: string = ITEM_TABLES[toKind]
  const rows = await any(db)
    .selectFrom('association')
    .innerJoin(table, `${table}.id`, 'association.to_id')
    .select([typeOf(toKind).as('type'), 'association.association_type_id', (eb: any) => eb.fn.countAll().as('count')])
    .where('association.from_kind', '=', from.kind)
    .where('association.from_id', '=', from.id)
    .where('association.to_kind', '=', toKind)
    .where(`${table}.owner_id`, 'in', ownerIds)
    // PostgreSQL refuses a constant in GROUP BY: kinds without a type column group by the association type alone.
    .groupBy(
      'column' in NODE_COLUMNS[toKind].type
        ? [typeOf(toKind), 'association.association_type_id']
        : ['association.association_type_id'],
    )
    .execute()
  return rows.map((row: Record<string, unknown>) => ({
    type: String(row.type),
    association_type_id: Number(row.association_type_id),
    count: Number(row.count),
  }))
}

export interface NeighbourFilter {
  from: { kind: GraphKind; id: number }
  toKind: GraphKind
  associationTypeId: number
  ownerIds: readonly number[]
  type?: string
  /** Only these partners (a client rebuilding a graph it showed before). */
  ids?: readonly number[]
  /** A compiled TQL filter over the partner's table, referenced by its own name. */
  where?: Expression<SqlBool>
}

function neighbourQuery(db: Kysely<Database>, filter: NeighbourFilter) {
  const table: string = ITEM_TABLES[filter.toKind]
  let query = any(db)
    .selectFrom('association')
    .innerJoin(table, `${table}.id`, 'association.to_id')
    .where('association.from_kind', '=', filter.from.kind)
    .where('association.from_id', '=', filter.from.id)
    .where('association.to_kind', '=', filter.toKind)
    .where('association.association_type_id', '=', filter.associationTypeId)
    .where(`${table}.owner_id`, 'in', filter.ownerIds)
  if (filter.type !== undefined) query = query.where(typeOf(filter.toKind), '=', filter.type)
  if (filter.ids) query = query.where('association.to_id', 'in', filter.ids)
  if (filter.where) query = query.where(filter.where)
  return query
}

export async function countGraphNeighboursMatching(db: Kysely<Database>, filter: NeighbourFilter): Promise<number> {
  if (filter.ownerIds.length === 0 || filter.ids?.length === 0) return 0
  const row = await neighbourQuery(db, filter)
    .select((eb: any) => eb.fn.countAll().as('count'))
    .executeTakeFirst()
  return Number((row as { count?: unknown } | undefined)?.count ?? 0)
}

/** One page of partners in the key's order (by id), so the scan stops after the page. */
export async function selectGraphNeighbourPage(
  db: Kysely<Database>,
  filter: NeighbourFilter,
  page: { offset: number; limit: number },
): Promise<GraphNodeRow[]> {
  if (filter.ownerIds.length === 0 || page.limit === 0) return []
  const rows = await neighbourQuery(db, filter)
    .select(nodeSelection(filter.toKind))
    .orderBy('association.to_id')
    .limit(page.limit)
    .offset(page.offset)
    .execute()
  return rows.map(normalise)
}

/**
 * For each of many items of one kind, how many partners of `toKind` in the given owners it has, counting at
 * most `cap` each: a neighbour that is a Group of a million Indicators costs `cap` rows, not a million. One
 * statement, one bounded sub-select per item.
 */
export async function countGraphDegrees(
  db: Kysely<Database>,
  fromKind: GraphKind,
  ids: readonly number[],
  toKind: GraphKind,
  ownerIds: readonly number[],
  cap: number,
): Promise<Map<number, number>> {
  const degrees = new Map<number, number>()
  if (ids.length === 0 || ownerIds.length === 0) return degrees
  const table: string = ITEM_TABLES[toKind]
  const bounded = (eb: any, id: number, i: number) =>
    eb
      .selectFrom(
        eb
          .selectFrom('association')
          .innerJoin(table, `${table}.id`, 'association.to_id')
          .select(sql.lit(1).as('one'))
          .where('association.from_kind', '=', fromKind)
          .where('association.from_id', '=', id)
          .where('association.to_kind', '=', toKind)
          .where(`${table}.owner_id`, 'in', ownerIds)
          .limit(cap)
          .as('capped'),
      )
      .select(eb.fn.countAll().as('n'))
      .as(`n${i}`)
  const row = (await any(db)
    .selectNoFrom((eb: any) => ids.map((id, i) => bounded(eb, id, i)))
    .executeTakeFirst()) as Record<string, unknown> | undefined
  ids.forEach((id, i) => degrees.set(id, Number(row?.[`n${i}`] ?? 0)))
  return degrees
}

/**
 * Turns the domain's already-validated list conditions (a whitelisted column, an operator,
 * a value) into Kysely expressions. Column names come from constants in the calling
 * repository, never from request text; values are always bound parameters.
 */
import { type Expression, type ExpressionBuilder, type Kysely, PostgresAdapter, type SqlBool, sql } from 'kysely'
import type { Dialect } from '../connect.js'
import type { Database } from '../database.js'

/** `^` is "starts with"; `<>` is "not equal"; `>=` serves "on or after" (modifiedSince). */
export type Comparison = '=' | '<' | '>' | '>=' | '^' | '<>'

export interface ColumnCondition<C extends string = string> {
  column: C
  op: Comparison
  value: string | number
}

/** One condition on a qualified column (`intel_group.name`). Starts-with is case-sensitive on both databases. */
export function columnCondition(
  eb: ExpressionBuilder<any, any>,
  ref: string,
  c: Pick<ColumnCondition, 'op' | 'value'>,
): Expression<SqlBool> {
  if (c.op === '^') {
    const prefix = String(c.value)
    return sql<SqlBool>`substr(${sql.ref(ref)}, 1, ${prefix.length}) = ${prefix}`
  }
  if (c.op === '<>') return eb.or([eb(ref, '<>', c.value), eb(ref, 'is', null)])
  return eb(ref, c.op, c.value)
}

/**
 * Rows whose `lower(column)` starts with `lower(prefix)`, in a form an index on lower(column) seeks (migrations 0050
 * and 0090): on SQLite a range, whose binary collation makes it exact (its LIKE optimisation ignores expressions);
 * on PostgreSQL a LIKE, which the text_pattern_ops index serves under any collation.
 */
export function lowerPrefix(dialect: Dialect, ref: string | Expression<unknown>, prefix: string): Expression<SqlBool> {
  const column = typeof ref === 'string' ? sql.ref(ref) : ref
  if (dialect === 'postgres')
    return sql<SqlBool>`lower(${column}) like lower(${`${prefix.replace(/[!%_]/g, (c) => `!${c}`)}%`}) escape '!'`
  // unlikely(): a bound prefix hides its selectivity; without the hint SQLite reads every row in id order.
  return sql<SqlBool>`(unlikely(lower(${column}) >= lower(${prefix})) and lower(${column}) < lower(${prefix}) || char(1114111))`
}

/** Joins expressions with AND or OR (the v2 `orParams` switch); an empty list is no restriction. */
export function combine(
  eb: ExpressionBuilder<any, any>,
  parts: Expression<SqlBool>[],
  mode: 'and' | 'or',
): Expression<SqlBool> {
  if (parts.length === 0) return sql<SqlBool>`1 = 1`
  return mode === 'or' ? eb.or(parts) : eb.and(parts)
}

/** "Items of kind `toKind` associated with X": directly, or through a Group both are associated with. */
export interface AssociationScope {
  kind: string
  id: number
  via?: 'group'
  /** 0 (the plain association) unless given. */
  associationTypeId?: number
}

/** Ids of `toKind` items in the scope, as a subquery for `where id in (…)`. */
export function associatedIds(db: Kysely<Database>, scope: AssociationScope, toKind: string) {
  const typeId = scope.associationTypeId ?? 0
  if (scope.via !== 'group') {
    return db
      .selectFrom('association')
      .select('association.to_id as id')
      .where('association.from_kind', '=', scope.kind)
      .where('association.from_id', '=', scope.id)
      .where('association.to_kind', '=', toKind)
      .where('association.association_type_id', '=', typeId)
  }
  return db
    .selectFrom('association as first')
    .innerJoin('association as second', (join) =>
      join.on('second.from_kind', '=', 'group').onRef('second.from_id', '=', 'first.to_id'),
    )
    .select('second.to_id as id')
    .where('first.from_kind', '=', scope.kind)
    .where('first.from_id', '=', scope.id)
    .where('first.to_kind', '=', 'group')
    .where('first.association_type_id', '=', 0)
    .where('second.to_kind', '=', toKind)
    .where('second.association_type_id', '=', typeId)
    .where((eb) => eb.not(eb.and([eb('second.to_kind', '=', scope.kind), eb('second.to_id', '=', scope.id)])))
}

export function dialectOf(db: Kysely<any>): Dialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite'
}

/** The column as an expression no index matches (`+col` on SQLite, `col + 0` on PostgreSQL, for integer columns). */
export function unindexedInteger(dialect: Dialect, ref: string): Expression<unknown> {
  return dialect === 'sqlite' ? sql`+${sql.ref(ref)}` : sql`(${sql.ref(ref)} + 0)`
}

/** The text column as an expression no index matches (`+col` on SQLite, `col || ''` on PostgreSQL). */
export function unindexedText(dialect: Dialect, ref: string): Expression<unknown> {
  return dialect === 'sqlite' ? sql`+${sql.ref(ref)}` : sql`(${sql.ref(ref)} || '')`
}

/**
 * The owner filter of a list (`ref` is the qualified owner_id column). One owner is an equality, so an
 * (owner_id, id) index serves the filter and the id order together. When something else names the rows
 * (`named`: the ids of a page a listing chose, a summary), the owners only check what that found: the column
 * is then an expression no index matches, else a planner without statistics may read every row of the
 * owners through an owner index and test each (0.5 s at 1M Indicators).
 */
export function ownerFilter(
  db: Kysely<any>,
  eb: ExpressionBuilder<any, any>,
  ref: string,
  ownerIds: readonly number[],
  named: boolean,
): Expression<SqlBool> {
  if (named) return eb(unindexedInteger(dialectOf(db), ref), 'in', ownerIds)
  return oneOf(eb, sql.ref(ref), ownerIds)
}

/** `owner = ?` for one owner (the plainest seek), `owner IN (…)` for several. */
function oneOf(eb: ExpressionBuilder<any, any>, owner: Expression<unknown>, ownerIds: readonly number[]) {
  return ownerIds.length === 1 ? eb(owner, '=', ownerIds[0]!) : eb(owner, 'in', ownerIds)
}

/**
 * The owners of a look-up by value (a summary, a hash, an xid, a tag name, ids), compared on PostgreSQL only once
 * the rows are found by their values. PostgreSQL estimates an owner from the last analysis, and an owner whose
 * first rows came after it lies outside the most common values, which then summed to the whole column: it is
 * estimated at 1 row whatever it holds. A look-up that may seek the owner then reads every row of it through
 * (owner_id, id), or through (owner_id, …) with the values as a filter: 266 ms a look-up, and growing, in session
 * 17's 10,000,000-Indicator load. As an expression no index matches, the owner leaves one way in, an index led by
 * the values (0130, 0272, the lower(summary) index of 0090); rows of other owners with the same values are read
 * and dropped. SQLite's statistics give every owner the average, so there the owner leads the unique index's seek.
 */
export function lookUpOwners(
  db: Kysely<any>,
  eb: ExpressionBuilder<any, any>,
  ref: string,
  ownerIds: readonly number[],
): Expression<SqlBool> {
  const dialect = dialectOf(db)
  return oneOf(eb, dialect === 'postgres' ? unindexedInteger(dialect, ref) : sql.ref(ref), ownerIds)
}

/**
 * Rows whose summary is one of these, for a look-up by summary (lookUpOwners). SQLite seeks the unique
 * (owner_id, type, summary). PostgreSQL seeks `lower(summary)` through its text_pattern_ops index (0090), which
 * serves equality as well as prefixes, and checks the exact summaries on the rows found, as an expression no index
 * matches: as a column, stale statistics led it to read all of (owner_id, type, summary) to compare the summaries.
 */
export function summaryIn(
  db: Kysely<any>,
  eb: ExpressionBuilder<any, any>,
  ref: string,
  summaries: readonly string[],
): Expression<SqlBool> {
  const dialect = dialectOf(db)
  if (dialect !== 'postgres') return eb(ref, 'in', summaries)
  const lowered = eb(
    sql`lower(${sql.ref(ref)})`,
    'in',
    summaries.map((summary) => sql`lower(${summary})`),
  )
  return eb.and([lowered, eb(unindexedText(dialect, ref), 'in', summaries)])
}

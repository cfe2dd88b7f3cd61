/**
 * Compiles a resolved TQL query into a Kysely boolean expression over the object type's
 * table (aliased as the table's own name). User values only ever become bound parameters;
 * table and column names come only from the keyword tables. Dialect differences stay in
 * Kysely, except one: PostgreSQL infers a parameter's type from the column, so integers
 * are cast to bigint there to keep large numbers from failing an int4 column.
 *
 * Plans: lists read in id order and stop after a page. Only a condition that names few rows
 * (SEEK_COLUMNS matched by value or prefix, a tag, a related item) may lead the plan; every
 * other column is compared as an expression no index matches (`+col` on SQLite, `col || ''` or
 * `col + 0` on PostgreSQL), so no planner, with or without statistics, reads a type, rating or
 * date range through an index and then sorts all it found (docs/benchmarks.md, "Listing plans").
 */
import {
  type Expression,
  type ExpressionBuilder,
  type SelectQueryBuilder,
  type SqlBool,
  expressionBuilder,
  sql,
} from 'kysely'
import type { Dialect } from '../store/connect.js'
import { type Operator, POSITIVE_OF } from './ast.js'
import type { DateValue } from './dates.js'
import type { KeywordDef, Link, ObjectTypeDef, ValueSource } from './keywords/index.js'
import type { Resolved, ResolvedValue } from './resolve.js'

export interface CompileSettings {
  dialect: Dialect
  /** When set, rows reached through nested queries and related keywords must belong to one of these owners. */
  visibleOwnerIds?: readonly number[]
  /** The tags the query names by value, found by the caller among the visible owners (namedTags). */
  tagIds?: ReadonlyMap<string, readonly number[]>
}

type Query = SelectQueryBuilder<any, any, any>

const eb: ExpressionBuilder<any, any> = expressionBuilder<any, any>()
/** What compileRoot gives when nothing narrows the rows (no TQL, no restriction of the object type). */
export const TRUE = sql<SqlBool>`1 = 1`
const FALSE = sql<SqlBool>`1 = 0`
/** Tables reached by links that have no owner of their own. */
const OWNERLESS = new Set(['task_assignee'])
const LIKE_ESCAPE = /[!%_]/g
/**
 * Columns with an index of their own that a match by value or prefix reads (migrations 0050 and 0090); `id` is the key.
 * An attribute's item (`indicatorId = 12`, what an item page lists) is sought through `attribute_item (item_kind,
 * item_id)`, its endpoint's restriction giving the kind: left out, the item's attributes were found by reading every
 * attribute in id order (200 ms a page, 450 with its count, at a million Indicators).
 */
const SEEK_COLUMNS = new Set(['indicator.summary', 'intel_group.name', 'tag.name', 'attribute.item_id'])
const SEEK_OPERATORS = new Set<Operator>(['eq', 'in', 'startsWith'])

/** The keyword compares tag names by value. */
export function namesTags(def: KeywordDef, operator: Operator): boolean {
  const target = def.target
  return (
    target.kind === 'related' &&
    target.link.via === 'itemTag' &&
    target.table === 'tag' &&
    'column' in target.source &&
    target.source.column === 'name' &&
    !target.where &&
    (operator === 'eq' || operator === 'in')
  )
}

/** The ids of every tag these values name, when the caller found them all; undefined otherwise. */
function tagIdsOf(
  def: KeywordDef,
  operator: Operator,
  values: ResolvedValue[],
  found: ReadonlyMap<string, readonly number[]>,
): number[] | undefined {
  if (!namesTags(def, operator) || values.some((v) => typeof v !== 'string' || !found.has(v))) return undefined
  return [...new Set(values.flatMap((v) => found.get(v as string)!))]
}

export class TqlCompiler {
  private aliasCount = 0

  constructor(private readonly settings: CompileSettings) {}

  /** The whole filter for the top-level object type, including the type's own restriction. */
  compileRoot(type: ObjectTypeDef, query: Resolved | null): Expression<SqlBool> {
    const parts: Expression<SqlBool>[] = []
    if (type.restrict) parts.push(eb(`${type.table}.${type.restrict.column}`, '=', sql.lit(type.restrict.value)))
    if (query) parts.push(this.compile(query, type, type.table))
    return parts.length === 0 ? TRUE : parts.length === 1 ? parts[0] : eb.and(parts)
  }

  private compile(node: Resolved, type: ObjectTypeDef, alias: string): Expression<SqlBool> {
    switch (node.kind) {
      case 'and':
        return eb.and([this.compile(node.left, type, alias), this.compile(node.right, type, alias)])
      case 'or':
        return eb.or([this.compile(node.left, type, alias), this.compile(node.right, type, alias)])
      case 'nested':
        return this.nested(node.def, node.type, node.query, alias)
      case 'compare':
        return this.compare(node.def, node.operator, node.values, alias, type)
    }
  }

  private compare(
    def: KeywordDef,
    operator: Operator,
    values: ResolvedValue[],
    alias: string,
    type: ObjectTypeDef,
  ): Expression<SqlBool> {
    const target = def.target
    switch (target.kind) {
      case 'absent':
        return operator === 'isNull' ? TRUE : FALSE
      case 'value': {
        const value = valueOf(target.source, alias)
        return this.predicate(
          def,
          seeks(type, def, operator) || !('column' in target.source) ? value : this.unindexed(def, value),
          operator,
          values,
        )
      }
      case 'related': {
        const byId = this.taggedById(def, operator, values, alias)
        if (byId) return byId
        const related = (test?: (value: Expression<unknown>) => Expression<SqlBool>) => {
          const fromTarget =
            test !== undefined &&
            !target.onLink &&
            'column' in target.source &&
            SEEK_OPERATORS.has(POSITIVE_OF[operator] ?? operator) &&
            SEEK_COLUMNS.has(`${target.table}.${target.source.column}`)
          const link = this.openLink(target.link, target.table, alias, fromTarget)
          let q = target.where ? link.query.where(target.where(link.targetAlias) as Expression<SqlBool>) : link.query
          if (test) q = q.where(test(valueOf(target.source, target.onLink ? link.linkAlias! : link.targetAlias)))
          return this.memberOf(link.outer, q, fromTarget)
        }
        if (operator === 'isNull') return eb.not(related())
        if (operator === 'isNotNull') return related()
        const positive = POSITIVE_OF[operator]
        if (positive) return eb.not(related((value) => this.predicate(def, value, positive, values)))
        return related((value) => this.predicate(def, value, operator, values))
      }
      case 'nested':
        throw new Error(`nested keyword ${def.keyword} reached compare`)
    }
  }

  /**
   * `tag = "x"` and `tag in (…)` (or their negations) when the caller found the tags' ids first: the items are those
   * on the links of these tags. Found by name in the same statement, the tag could be any number of rows, and
   * PostgreSQL read its every link into an array before the page (10,000 links at 10,000,000 Indicators); one tag
   * by id is read in item order (item_tag_tag), which a page of that tag walks (leadingTagOf).
   */
  private taggedById(
    def: KeywordDef,
    operator: Operator,
    values: ResolvedValue[],
    alias: string,
  ): Expression<SqlBool> | undefined {
    const positive = POSITIVE_OF[operator] ?? operator
    const ids = this.settings.tagIds && tagIdsOf(def, positive, values, this.settings.tagIds)
    if (!ids || def.target.kind !== 'related' || def.target.link.via !== 'itemTag') return undefined
    const x = this.fresh('x')
    const links = eb
      .selectFrom(`item_tag as ${x}`)
      .select(`${x}.item_id`)
      .where(`${x}.tag_id`, ids.length === 1 ? '=' : 'in', ids.length === 1 ? ids[0] : ids)
      .where(`${x}.item_kind`, '=', sql.lit(def.target.link.kind))
    // Several tags' links come in no one order: on PostgreSQL they are read whole into an array (memberOf).
    const tagged =
      ids.length === 0
        ? FALSE
        : ids.length === 1
          ? eb(eb.ref(`${alias}.id`), 'in', links)
          : this.memberOf(`${alias}.id`, links, true)
    return positive === operator ? tagged : eb.not(tagged)
  }

  private nested(def: KeywordDef, type: ObjectTypeDef, query: Resolved, alias: string): Expression<SqlBool> {
    if (def.target.kind !== 'nested') throw new Error(`keyword ${def.keyword} is not nested`)
    const { link, all } = def.target
    /** `outer in (select … where <condition on the target row>)` */
    const member = (condition: (targetAlias: string) => Expression<SqlBool>) => {
      const fromTarget = isSeekable(query, type)
      const opened = this.openLink(link, type.table, alias, fromTarget)
      const q = type.restrict
        ? opened.query.where(`${opened.targetAlias}.${type.restrict.column}`, '=', sql.lit(type.restrict.value))
        : opened.query
      return this.memberOf(opened.outer, q.where(condition(opened.targetAlias)), fromTarget)
    }
    if (!all) return member((t) => this.compile(query, type, t))
    // hasAllTags(name in (…)): the item carries every tag named, whether or not such a tag exists anywhere.
    if (
      query.kind === 'compare' &&
      (query.def.keyword === 'name' || query.def.keyword === 'summary') &&
      (query.operator === 'eq' || query.operator === 'in')
    ) {
      return eb.and(
        query.values.map((value) => member((t) => eb(lower(eb.ref(`${t}.name`)), '=', lower(eb.val(value))))),
      )
    }
    // Any other query: some tag matches it, and no matching tag name is missing from the item.
    const some = this.selectTags()
    const every = this.selectTags()
    return eb.and([
      eb.exists(some.query.where(this.compile(query, type, some.alias))),
      eb.not(
        eb.exists(
          every.query
            .where(this.compile(query, type, every.alias))
            .where(eb.not(member((t) => eb(lower(eb.ref(`${t}.name`)), '=', lower(eb.ref(`${every.alias}.name`)))))),
        ),
      ),
    ])
  }

  private selectTags(): { query: Query; alias: string } {
    const alias = this.fresh('t')
    return { query: this.ownedBy(eb.selectFrom(`tag as ${alias}`).select(sql.lit(1).as('one')), alias, 'tag'), alias }
  }

  /**
   * `outer in (the related ids)`. When the related rows are named through an index, PostgreSQL
   * gets `= any(array(…))`: the ids are then read first, once, and the outer rows fetched by key.
   * With statistics it otherwise prefers walking the outer table in id order as a semi-join,
   * which reads nearly every row when the matches sit at the far end (1.4 s for a tag of the
   * smallest owner at 1M Indicators).
   */
  private memberOf(outer: string, related: Query, fromTarget: boolean): Expression<SqlBool> {
    if (fromTarget && this.settings.dialect === 'postgres')
      return sql<SqlBool>`${eb.ref(outer)} = any(array(${related}))`
    return eb(eb.ref(outer), 'in', related)
  }

  /**
   * The rows related to the outer row, as `<outer column> in (select <link column> from …)`.
   * Uncorrelated IN lets both databases start from the related rows (a tag, a group) instead
   * of probing them once per outer row. `fromTarget`: the target rows are named by an index
   * (a tag or Group name), so the join starts there and reaches the link rows by their index on
   * the target (a CROSS JOIN keeps that order on SQLite, which otherwise may scan every link row of the kind).
   */
  private openLink(
    link: Link,
    table: string,
    outer: string,
    fromTarget = false,
  ): { query: Query; outer: string; targetAlias: string; linkAlias?: string } {
    const t = this.fresh('t')
    const owned = (query: Query) => this.ownedBy(query, t, table)
    const joined = (linkTable: string, linkAlias: string, key: string) =>
      fromTarget
        ? eb
            .selectFrom(`${table} as ${t}`)
            .crossJoin(`${linkTable} as ${linkAlias}`)
            .whereRef(`${t}.id`, '=', `${linkAlias}.${key}`)
        : eb.selectFrom(`${linkTable} as ${linkAlias}`).innerJoin(`${table} as ${t}`, `${t}.id`, `${linkAlias}.${key}`)
    switch (link.via) {
      case 'association': {
        const a = this.fresh('a')
        // Rows are stored in both directions: reading the target → outer row lets the primary key
        // (from_kind, from_id, to_kind, …) lead from the matching targets to the outer ids.
        const q = joined('association', a, 'from_id')
          .select(`${a}.to_id`)
          .where(`${a}.from_kind`, '=', sql.lit(link.to))
          .where(`${a}.to_kind`, '=', sql.lit(link.from))
        return {
          query: owned(link.customOnly ? q.where(`${a}.association_type_id`, '<>', sql.lit(0)) : q),
          outer: `${outer}.id`,
          targetAlias: t,
          linkAlias: a,
        }
      }
      case 'foreignKey':
        return {
          query: owned(eb.selectFrom(`${table} as ${t}`).select(`${t}.id`)),
          outer: `${outer}.${link.column}`,
          targetAlias: t,
        }
      case 'reverseKey':
        // NOT IN over a nullable column would turn every answer unknown; keep nulls out of the list.
        return {
          query: owned(
            eb
              .selectFrom(`${table} as ${t}`)
              .select(`${t}.${link.column}`)
              .where(`${t}.${link.column}`, 'is not', null),
          ),
          outer: `${outer}.id`,
          targetAlias: t,
        }
      case 'attribute':
        return {
          query: owned(
            eb.selectFrom(`${table} as ${t}`).select(`${t}.item_id`).where(`${t}.item_kind`, '=', sql.lit(link.kind)),
          ),
          outer: `${outer}.id`,
          targetAlias: t,
        }
      case 'itemTag':
      case 'itemLabel': {
        const [linkTable, key] = link.via === 'itemTag' ? ['item_tag', 'tag_id'] : ['item_security_label', 'label_id']
        const x = this.fresh('x')
        const q = joined(linkTable, x, key).select(`${x}.item_id`).where(`${x}.item_kind`, '=', sql.lit(link.kind))
        return { query: owned(q), outer: `${outer}.id`, targetAlias: t, linkAlias: x }
      }
      case 'taggedItem':
      case 'labelledItem': {
        const [linkTable, key] =
          link.via === 'taggedItem' ? ['item_tag', 'tag_id'] : ['item_security_label', 'label_id']
        const x = this.fresh('x')
        const q = eb
          .selectFrom(`${linkTable} as ${x}`)
          .innerJoin(`${table} as ${t}`, `${t}.id`, `${x}.item_id`)
          .select(`${x}.${key}`)
          .where(`${x}.item_kind`, '=', sql.lit(link.kind))
        return { query: owned(q), outer: `${outer}.id`, targetAlias: t, linkAlias: x }
      }
    }
  }

  private ownedBy(query: Query, alias: string, table: string): Query {
    const owners = this.settings.visibleOwnerIds
    if (!owners || OWNERLESS.has(table)) return query
    return owners.length === 0
      ? query.where(FALSE)
      : query.where(
          `${alias}.owner_id`,
          'in',
          owners.map((id) => this.integer(id)),
        )
  }

  private predicate(
    def: KeywordDef,
    lhs: Expression<unknown>,
    operator: Operator,
    values: ResolvedValue[],
  ): Expression<SqlBool> {
    if (operator === 'isNull') return eb(lhs, 'is', null)
    if (operator === 'isNotNull') return eb(lhs, 'is not', null)
    if (def.type === 'Date') return this.datePredicate(lhs, operator, values as DateValue[])
    const caseless = def.type === 'StringLower' || isPattern(operator)
    const left = caseless ? lower(lhs) : lhs
    const bind = (v: ResolvedValue) => {
      // Booleans are our own 0/1, so they can be literals; everything else the user wrote is bound.
      const bound = def.type === 'Boolean' ? sql.lit(v) : typeof v === 'number' ? this.integer(v) : eb.val(v)
      return caseless ? lower(bound) : bound
    }
    switch (operator) {
      case 'eq':
        return eb(left, '=', bind(values[0]))
      case 'ne':
        return eb(left, '<>', bind(values[0]))
      case 'gt':
        return eb(left, '>', bind(values[0]))
      case 'geq':
        return eb(left, '>=', bind(values[0]))
      case 'lt':
        return eb(left, '<', bind(values[0]))
      case 'leq':
        return eb(left, '<=', bind(values[0]))
      case 'in':
        return eb(left, 'in', values.map(bind))
      case 'notIn':
        return eb(left, 'not in', values.map(bind))
      default: {
        const positive = POSITIVE_OF[operator]
        const op = positive ?? operator
        const tests = values.map((v) =>
          positive ? like(left, op, String(v)) : this.withPrefixRange(left, op, String(v), like(left, op, String(v))),
        )
        const any = tests.length === 1 ? tests[0] : eb.or(tests)
        return positive ? eb.not(any) : any
      }
    }
  }

  /** Day values are intervals [from, until): `=` means within the day, `>` after it, `<=` up to its end. */
  private datePredicate(lhs: Expression<unknown>, operator: Operator, values: DateValue[]): Expression<SqlBool> {
    return this.datePredicateOf(lhs, operator, values)
  }

  private datePredicateOf(lhs: Expression<unknown>, operator: Operator, values: DateValue[]): Expression<SqlBool> {
    const within = (v: DateValue) =>
      v.until ? eb.and([eb(lhs, '>=', v.from), eb(lhs, '<', v.until)]) : eb(lhs, '=', v.from)
    const v = values[0]
    switch (operator) {
      case 'eq':
        return within(v)
      case 'ne':
        return v.until ? eb.not(within(v)) : eb(lhs, '<>', v.from)
      case 'gt':
        return v.until ? eb(lhs, '>=', v.until) : eb(lhs, '>', v.from)
      case 'geq':
        return eb(lhs, '>=', v.from)
      case 'lt':
        return eb(lhs, '<', v.from)
      case 'leq':
        return v.until ? eb(lhs, '<', v.until) : eb(lhs, '<=', v.from)
      case 'in':
        return eb.or(values.map(within))
      case 'notIn':
        return eb.not(eb.or(values.map(within)))
      default:
        throw new Error(`operator ${operator} on a Date`)
    }
  }

  /**
   * SQLite's LIKE optimisation ignores expressions, so a prefix test on lower(column) would scan
   * every row; the range lower(prefix) <= x < lower(prefix) || U+10FFFF lets an index on
   * lower(column) serve it. Binary collation makes the range exact there; PostgreSQL's
   * collations do not, so on PostgreSQL the LIKE stands alone.
   */
  private withPrefixRange(
    left: Expression<unknown>,
    operator: Operator,
    value: string,
    test: Expression<SqlBool>,
  ): Expression<SqlBool> {
    if (operator !== 'startsWith' || this.settings.dialect !== 'sqlite' || value === '') return test
    const low = lower(eb.val(value))
    // unlikely(): a bound prefix hides its selectivity; without the hint SQLite reads every row in id order.
    return eb.and([sql<SqlBool>`unlikely(${left} >= ${low})`, eb(left, '<', sql`${low} || char(1114111)`), test])
  }

  /** The column as an expression no index matches: it filters the rows read, it never picks which rows are read. */
  private unindexed(def: KeywordDef, column: Expression<unknown>): Expression<unknown> {
    if (this.settings.dialect === 'sqlite') return sql`+${column}`
    return def.type === 'Integer' || def.type === 'Boolean' ? sql`(${column} + 0)` : sql`(${column} || '')`
  }

  private integer(value: number): Expression<unknown> {
    return this.settings.dialect === 'postgres' ? sql`cast(${value} as bigint)` : eb.val(value)
  }

  private fresh(prefix: string): string {
    return `${prefix}${++this.aliasCount}`
  }
}

function valueOf(source: ValueSource, alias: string): Expression<unknown> {
  return 'column' in source ? eb.ref(`${alias}.${source.column}`) : source.expression(alias)
}

function lower(expression: Expression<unknown>): Expression<unknown> {
  return eb.fn('lower', [expression])
}

function isPattern(operator: Operator): boolean {
  return (
    operator !== 'eq' &&
    operator !== 'ne' &&
    operator !== 'gt' &&
    operator !== 'geq' &&
    operator !== 'lt' &&
    operator !== 'leq' &&
    operator !== 'in' &&
    operator !== 'notIn'
  )
}

/** Text operators are case-insensitive on both databases (SQLite's LIKE is, PostgreSQL's is not). */
function like(left: Expression<unknown>, operator: Operator, value: string): Expression<SqlBool> {
  if (operator === 'like') return sql<SqlBool>`${left} like ${lower(eb.val(value))}`
  const escaped = value.replace(LIKE_ESCAPE, (c) => `!${c}`)
  const pattern = operator === 'contains' ? `%${escaped}%` : operator === 'startsWith' ? `${escaped}%` : `%${escaped}`
  return sql<SqlBool>`${left} like ${lower(eb.val(pattern))} escape '!'`
}

/** Whether a value comparison may lead the plan: a match by value or prefix on a column with its own index. */
function seeks(type: ObjectTypeDef, def: KeywordDef, operator: Operator): boolean {
  if (def.target.kind !== 'value' || !('column' in def.target.source)) return false
  const column = def.target.source.column
  return SEEK_OPERATORS.has(operator) && (column === 'id' || SEEK_COLUMNS.has(`${type.table}.${column}`))
}

/**
 * A tag every match carries, when it is one tag whose id the caller found (CompileSettings.tagIds): its links,
 * read in item order, give the matches in id order, so a page may walk them and stop. `rest` is the query
 * without that condition (null when nothing else is asked), for a page that walks the links to check on each row.
 */
export function leadingTagOf(
  node: Resolved | null,
  found: CompileSettings['tagIds'],
): { tagId: number; kind: string; rest: Resolved | null } | undefined {
  if (!node || !found) return undefined
  switch (node.kind) {
    case 'and': {
      const left = leadingTagOf(node.left, found)
      if (left) return { ...left, rest: left.rest ? { ...node, left: left.rest } : node.right }
      const right = leadingTagOf(node.right, found)
      return right && { ...right, rest: right.rest ? { ...node, right: right.rest } : node.left }
    }
    case 'compare': {
      const ids = tagIdsOf(node.def, node.operator, node.values, found)
      const target = node.def.target
      return ids?.length === 1 && target.kind === 'related' && target.link.via === 'itemTag'
        ? { tagId: ids[0]!, kind: target.link.kind, rest: null }
        : undefined
    }
    default:
      return undefined
  }
}

/**
 * Whether some condition every match must pass names few rows through an index (see seeks), so a
 * plan may start from it and sort what it finds; otherwise the plan reads in id order and filters.
 * Related keywords (a tag, an associated Group) count when they ask for a related row to exist.
 */
export function isSeekable(node: Resolved | null, type: ObjectTypeDef): boolean {
  if (!node) return false
  switch (node.kind) {
    case 'and':
      return isSeekable(node.left, type) || isSeekable(node.right, type)
    case 'or':
      return isSeekable(node.left, type) && isSeekable(node.right, type)
    case 'nested':
      return true
    case 'compare':
      if (node.def.target.kind === 'related')
        return node.operator !== 'isNull' && node.operator !== 'isNotNull' && !POSITIVE_OF[node.operator]
      return seeks(type, node.def, node.operator)
  }
}

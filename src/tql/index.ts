/**
 * TQL, the platform's filter language, as a small compiler: lexer → parser (AST) →
 * resolver (keyword tables) → compiler (Kysely expression). This module is the surface the
 * v3 endpoints use; it reads no data and runs no query.
 */
import { type Expression, type SqlBool, expressionBuilder } from 'kysely'
import type { Dialect } from '../store/connect.js'
import { POSITIVE_OF } from './ast.js'
import { TRUE, TqlCompiler, isSeekable, leadingTagOf, namesTags } from './compile.js'
import { TqlError } from './errors.js'
import { type ObjectTypeDef, type TqlType, findKeyword, findObjectType } from './keywords/index.js'
import { parseTql } from './parser.js'
import { type Resolved, resolveTql } from './resolve.js'

export { TqlError, isTqlError } from './errors.js'
export { withTqlTimeout, type TqlScope } from './timeout.js'
export type { TqlType } from './keywords/index.js'

export interface CompileTqlOptions {
  dialect: Dialect
  /** The request time: TODAY() and date offsets count from it (UTC). */
  now: Date
  /**
   * Owners whose rows nested queries and related keywords (tag, hasGroup(…), associatedGroup …)
   * may look at; leave unset to look at all. The top-level owner filter is the caller's job.
   */
  visibleOwnerIds?: readonly number[]
  /**
   * The tags the filter names by value (namedTags), as the caller found them among visibleOwnerIds: name as written
   * → the ids of the tags of that name (case aside), none when there is none.
   */
  tagIds?: ReadonlyMap<string, readonly number[]>
}

export interface LeadingTag {
  tagId: number
  /** The links' item_kind. */
  kind: string
  /** The rest of the filter, for the rows the links name (`where` less the tag); always true when it is all. */
  where: Expression<SqlBool>
}

export interface CompiledTql {
  /** A filter over `table`, referenced by its own name: `db.selectFrom(compiled.table).where(compiled.where)`. */
  where: Expression<SqlBool>
  table: string
  objectType: string
  /**
   * Some condition every match passes names few rows through an index (a summary or name by value or
   * prefix, a tag, a related item): a list may start from it and sort the matches. Otherwise every
   * condition only filters, and a list reads the rows in id order (store/repositories/object-list.repository.ts).
   */
  seekable: boolean
  /** One tag, found by id, that every match carries: a list may walk its links in id order and stop at the page. */
  leadingTag?: LeadingTag
  /** Something narrows the rows: TQL, or the object type's own restriction. Without it `where` is always true. */
  filters: boolean
}

export interface TqlKeywordInfo {
  keyword: string
  name: string
  type: TqlType
  description: string
  groupable: boolean
  targetable: boolean
}

export interface TqlSortTerm {
  expression: Expression<unknown>
  direction: 'asc' | 'desc'
  nulls?: 'first' | 'last'
}

/**
 * Compiles a TQL filter for a v3 object type. Blank text means "no filter".
 * Throws TqlError (code 'invalid') with the column of the problem.
 *
 * @example
 * const { where } = compileTql('indicators', 'typeName in ("Address", "Host") and rating >= 3', { dialect: store.dialect, now: new Date() })
 * const rows = await db.selectFrom('indicator').selectAll('indicator').where(where).execute()
 */
export function compileTql(objectType: string, tql: string, options: CompileTqlOptions): CompiledTql {
  const type = requireObjectType(objectType)
  const query = tql.trim() === '' ? null : resolveTql(type, parseTql(tql), options.now)
  const settings = { dialect: options.dialect, visibleOwnerIds: options.visibleOwnerIds, tagIds: options.tagIds }
  const where = new TqlCompiler(settings).compileRoot(type, query)
  const lead = leadingTagOf(query, options.tagIds)
  return {
    where,
    table: type.table,
    objectType: type.name,
    seekable: isSeekable(query, type),
    leadingTag: lead && {
      tagId: lead.tagId,
      kind: lead.kind,
      where: new TqlCompiler(settings).compileRoot(type, lead.rest),
    },
    filters: where !== TRUE,
  }
}

/**
 * The tag names a filter compares by value (`tag = "x"`, `tag in (…)`, their negations), for the caller to find
 * their ids before compiling (CompileTqlOptions.tagIds). Only PostgreSQL needs them: SQLite reads a tag found by
 * name in the same statement link by link in item order already (object-list-plans.test.ts). Blank or invalid text
 * names none; compileTql reports what is wrong with it.
 *
 * @example const names = namedTags('indicators', 'tag = "APT28"', { dialect: 'postgres', now }) // ['APT28']
 */
export function namedTags(
  objectType: string,
  tql: string,
  options: Pick<CompileTqlOptions, 'dialect' | 'now'>,
): string[] {
  if (options.dialect !== 'postgres' || tql.trim() === '' || !/tag/i.test(tql)) return []
  let query: Resolved
  try {
    query = resolveTql(requireObjectType(objectType), parseTql(tql), options.now)
  } catch {
    return []
  }
  const names = new Set<string>()
  const walk = (node: Resolved): void => {
    switch (node.kind) {
      case 'and':
      case 'or':
        walk(node.left)
        walk(node.right)
        return
      case 'nested':
        return walk(node.query)
      case 'compare':
        if (namesTags(node.def, POSITIVE_OF[node.operator] ?? node.operator))
          for (const value of node.values) if (typeof value === 'string') names.add(value)
    }
  }
  walk(query)
  return [...names]
}

/** Whether TQL knows this v3 object type (e.g. `indicators`, `groupAttributes`). */
export function hasTqlObjectType(objectType: string): boolean {
  return findObjectType(objectType) !== undefined
}

/** The items of OPTIONS /v3/<objectType>/tql, in table order. */
export function listTqlKeywords(objectType: string): TqlKeywordInfo[] {
  return requireObjectType(objectType).keywords.map((k) => ({
    keyword: k.keyword,
    name: k.name,
    type: k.type,
    description: k.description,
    groupable: k.groupable ?? false,
    targetable: k.targetable ?? false,
  }))
}

/**
 * The expression to sort by for a keyword, over the table referenced by its own name, or
 * undefined when the keyword is not a single value of the row (tag, hasGroup …).
 */
export function sortableKeyword(objectType: string, keyword: string): Expression<unknown> | undefined {
  const type = requireObjectType(objectType)
  const def = findKeyword(type, keyword)
  if (!def || def.target.kind !== 'value') return undefined
  const source = def.target.source
  return 'column' in source
    ? expressionBuilder<any, any>().ref(`${type.table}.${source.column}`)
    : source.expression(type.table)
}

const SORT_WORDS = new Set(['asc', 'desc', 'nullsfirst', 'nullslast'])

/**
 * Parses the v3 `sorting` parameter: `<keyword> [asc|desc] [nullsfirst|nullslast]`, repeated,
 * separated by whitespace or commas; later terms sort within earlier ones.
 *
 * @example
 * for (const term of compileTqlSorting('indicators', 'rating desc nullslast dateAdded')) query = query.orderBy(term.expression, (o) => …)
 */
export function compileTqlSorting(objectType: string, sorting: string): TqlSortTerm[] {
  const type = requireObjectType(objectType)
  const terms: TqlSortTerm[] = []
  for (const word of sorting.split(/[\s,]+/).filter(Boolean)) {
    const lower = word.toLowerCase()
    const last = terms[terms.length - 1]
    if (SORT_WORDS.has(lower)) {
      if (!last) throw new TqlError(`Sorting must start with a TQL keyword, not '${word}'`)
      if (lower === 'asc' || lower === 'desc') last.direction = lower
      else last.nulls = lower === 'nullsfirst' ? 'first' : 'last'
      continue
    }
    const expression = sortableKeyword(type.name, word)
    if (!expression) {
      throw new TqlError(
        findKeyword(type, word)
          ? `Cannot sort ${type.name} by '${word}'`
          : `Unknown TQL keyword '${word}' for ${type.name} in sorting`,
      )
    }
    terms.push({ expression, direction: 'asc' })
  }
  return terms
}

function requireObjectType(objectType: string): ObjectTypeDef {
  const type = findObjectType(objectType)
  if (!type) throw new TqlError(`TQL is not available for '${objectType}'`)
  return type
}

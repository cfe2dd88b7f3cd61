/**
 * The v2 general parameters (resultStart, resultLimit, includes…), validated once here.
 * Bad values are 400s that name the parameter.
 */
import { invalid } from '../../core/errors.js'
import type { FilterOperator } from '../../domain/listing/list-filters.js'
import { DEFAULT_RESULT_LIMIT, MAX_RESULT_LIMIT, type Query, flag, wholeNumber } from '../http/query.js'

export { DEFAULT_RESULT_LIMIT, MAX_RESULT_LIMIT, type Query, query, single, flag } from '../http/query.js'

export interface Paging {
  resultStart: number
  resultLimit: number
}

/** The page of an in-memory list that `paging` asks for. */
export function pageOf<T>(items: readonly T[], paging: Paging): T[] {
  return items.slice(paging.resultStart, paging.resultStart + paging.resultLimit)
}

export function parsePaging(q: Query): Paging {
  return {
    resultStart: wholeNumber(q, 'resultStart', 0, 0, Number.MAX_SAFE_INTEGER),
    resultLimit: wholeNumber(q, 'resultLimit', DEFAULT_RESULT_LIMIT, 1, MAX_RESULT_LIMIT),
  }
}

export type { FilterOperator }

/** One `filters=` expression as the client wrote it; what fields and operators mean is each resource's rule. */
export interface FilterExpression {
  field: string
  op: FilterOperator
  value: string
}

/**
 * The v2 filter syntax: comma-separated `<name><operator><value>` expressions, from every `filters`
 * parameter given. Operators are = < > ^ (starts with) and ! (not; `!=` reads the same). Names may
 * carry dots, as some platform filter names do.
 * @example parseFilterExpressions({ filters: 'name%5EAPT,status!Completed' decoded }) → [{ field: 'name', op: '^', value: 'APT' }, …]
 */
export function parseFilterExpressions(q: Query): FilterExpression[] {
  const raw = q.filters
  const texts = (Array.isArray(raw) ? raw : raw ? [raw] : [])
    .flatMap((v) => v.split(','))
    .map((s) => s.trim())
    .filter(Boolean)
  return texts.map((text) => {
    const match = /^([A-Za-z][A-Za-z.]*)\s*(!=|[=<>^!])(.*)$/.exec(text)
    if (!match)
      throw invalid(`Malformed filter '${text}': expected <name><operator><value> with an operator of = < > ^ !`)
    const [, field, op, value] = match
    return { field, op: (op === '!=' ? '!' : op) as FilterOperator, value }
  })
}

export type Include = 'additional' | 'tags' | 'attributes' | 'labels'

/** `includeAdditional`, `includeTags`, `includeAttributes` and `includes=a,b` merged into one set. */
export function parseIncludes(q: Query): Set<Include> {
  const set = new Set<Include>()
  if (flag(q, 'includeAdditional')) set.add('additional')
  if (flag(q, 'includeTags')) set.add('tags')
  if (flag(q, 'includeAttributes')) set.add('attributes')
  const raw = q.includes
  for (const part of (Array.isArray(raw) ? raw : raw ? [raw] : []).flatMap((v) => v.split(','))) {
    const name = part.trim()
    if (!name) continue
    if (!['additional', 'tags', 'attributes', 'labels'].includes(name))
      throw invalid(`includes accepts additional, tags, attributes, labels; not '${name}'`)
    set.add(name as Include)
  }
  return set
}

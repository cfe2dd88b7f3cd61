/**
 * The v3 query parameters, validated once: tql, fields (repeatable, comma-separated, dot
 * notation), resultStart, resultLimit (1..10000), sorting, count, owner, show. A bad value
 * is a 400 that names the parameter.
 */
import { invalid } from '../../core/errors.js'
import { DEFAULT_RESULT_LIMIT, MAX_RESULT_LIMIT, type Query, all, flag, single, wholeNumber } from '../http/query.js'
import type { ObjectListQuery } from '../../domain/listing/object-lists.js'
import { decodeCursor } from './paging.js'

export { DEFAULT_RESULT_LIMIT, MAX_RESULT_LIMIT, type Query, query, single, flag } from '../http/query.js'

/** Was owner= given? Lists then stay in that owner; otherwise they span every owner the caller can read. */
export function ownerScope(q: Query): ObjectListQuery['ownerScope'] {
  const owner = single(q, 'owner')
  return owner !== undefined && owner !== '' ? 'context' : 'readable'
}

export function parseListQuery(q: Query): ObjectListQuery {
  const resultStart = wholeNumber(q, 'resultStart', 0, 0, Number.MAX_SAFE_INTEGER)
  return {
    tql: single(q, 'tql'),
    sorting: all(q, 'sorting').join(' ') || undefined,
    resultStart,
    afterId: decodeCursor(q, resultStart),
    resultLimit: wholeNumber(q, 'resultLimit', DEFAULT_RESULT_LIMIT, 1, MAX_RESULT_LIMIT),
    count: flag(q, 'count'),
    ownerScope: ownerScope(q),
  }
}

/** A node of the fields= tree: `associatedGroups.attributes` → associatedGroups → attributes. */
export type FieldTree = Map<string, FieldTree>

/** fields=a&fields=b,c.d → {a, b, c: {d}}; names are checked against the endpoint later. */
export function parseFieldTree(q: Query): FieldTree {
  const tree: FieldTree = new Map()
  for (const part of all(q, 'fields').flatMap((v) => v.split(','))) {
    const path = part.trim()
    if (!path) continue
    let node = tree
    for (const name of path.split('.')) {
      if (!name) throw invalid(`fields value '${path}' is not a field name or a dotted path`)
      if (!node.has(name)) node.set(name, new Map())
      node = node.get(name)!
    }
  }
  return tree
}

/** OPTIONS ?show=readOnly (the platform's docs also write readonly). */
export function showReadOnly(q: Query): boolean {
  return (single(q, 'show') ?? '').toLowerCase() === 'readonly'
}

/**
 * The v3 query parameters, validated once: tql, fields (repeatable, comma-separated, dot
 * notation), resultStart, resultLimit (1..10000), sorting, count, owner, show. A bad value
 * is a 400 that names the parameter.
 */
import type { FastifyRequest } from 'fastify'
import { invalid } from '../../domain/errors.js'
import type { ObjectListQuery } from '../../domain/object-lists.js'

export const DEFAULT_RESULT_LIMIT = 100
export const MAX_RESULT_LIMIT = 10_000

export type Query = Record<string, string | string[] | undefined>

export function query(req: FastifyRequest): Query {
  return (req.query ?? {}) as Query
}

/** The last value of a parameter given more than once. */
export function single(q: Query, name: string): string | undefined {
  const value = q[name]
  return Array.isArray(value) ? value[value.length - 1] : value
}

function all(q: Query, name: string): string[] {
  const value = q[name]
  return value === undefined ? [] : Array.isArray(value) ? value : [value]
}

function wholeNumber(q: Query, name: string, fallback: number, min: number, max: number): number {
  const text = single(q, name)
  if (text === undefined || text === '') return fallback
  if (!/^\d+$/.test(text)) throw invalid(`${name} must be a whole number, not '${text}'`)
  const n = Number(text)
  if (n < min || n > max) throw invalid(`${name} must be between ${min} and ${max}, not ${text}`)
  return n
}

/** true/false in any case, 1/0 (tcex sends Python's `True`). */
export function flag(q: Query, name: string): boolean {
  const text = single(q, name)
  if (text === undefined || text === '') return false
  const lower = text.toLowerCase()
  if (lower === 'true' || lower === '1') return true
  if (lower === 'false' || lower === '0') return false
  throw invalid(`${name} must be true or false, not '${text}'`)
}

/** Was owner= given? Lists then stay in that owner; otherwise they span every owner the caller can read. */
export function ownerScope(q: Query): ObjectListQuery['ownerScope'] {
  const owner = single(q, 'owner')
  return owner !== undefined && owner !== '' ? 'context' : 'readable'
}

export function parseListQuery(q: Query): ObjectListQuery {
  return {
    tql: single(q, 'tql'),
    sorting: all(q, 'sorting').join(' ') || undefined,
    resultStart: wholeNumber(q, 'resultStart', 0, 0, Number.MAX_SAFE_INTEGER),
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

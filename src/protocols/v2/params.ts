/**
 * The v2 general parameters (resultStart, resultLimit, includes…), validated once here.
 * Bad values are 400s that name the parameter.
 */
import type { FastifyRequest } from 'fastify'
import { invalid } from '../../domain/errors.js'

export const DEFAULT_RESULT_LIMIT = 100
export const MAX_RESULT_LIMIT = 10_000

export interface Paging {
  resultStart: number
  resultLimit: number
}

export type Query = Record<string, string | string[] | undefined>

export function query(req: FastifyRequest): Query {
  return (req.query ?? {}) as Query
}

export function single(q: Query, name: string): string | undefined {
  const value = q[name]
  return Array.isArray(value) ? value[value.length - 1] : value
}

function wholeNumber(q: Query, name: string, fallback: number, min: number, max: number): number {
  const text = single(q, name)
  if (text === undefined || text === '') return fallback
  if (!/^\d+$/.test(text)) throw invalid(`${name} must be a whole number, not '${text}'`)
  const n = Number(text)
  if (n < min || n > max) throw invalid(`${name} must be between ${min} and ${max}`)
  return n
}

export function parsePaging(q: Query): Paging {
  return {
    resultStart: wholeNumber(q, 'resultStart', 0, 0, Number.MAX_SAFE_INTEGER),
    resultLimit: wholeNumber(q, 'resultLimit', DEFAULT_RESULT_LIMIT, 1, MAX_RESULT_LIMIT),
  }
}

export function flag(q: Query, name: string): boolean {
  const text = single(q, name)
  if (text === undefined || text === '') return false
  if (text === 'true' || text === '1') return true
  if (text === 'false' || text === '0') return false
  throw invalid(`${name} must be true or false, not '${text}'`)
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
    if (!['additional', 'tags', 'attributes', 'labels'].includes(name)) throw invalid(`includes accepts additional, tags, attributes, labels; not '${name}'`)
    set.add(name as Include)
  }
  return set
}

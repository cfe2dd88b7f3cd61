/**
 * Reading query parameters, shared by the REST interfaces: a parameter given more than
 * once, whole numbers in a range, booleans. Bad values are 400s that name the parameter.
 */
import type { FastifyRequest } from 'fastify'
import { invalid } from '../../core/errors.js'
import { booleanValue } from '../../core/input.js'

/** The spec's paging limits, the same on v2 and v3. */
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

/** Every value of a repeatable parameter. */
export function all(q: Query, name: string): string[] {
  const value = q[name]
  return value === undefined ? [] : Array.isArray(value) ? value : [value]
}

export function wholeNumber(q: Query, name: string, fallback: number, min: number, max: number): number {
  const text = single(q, name)
  if (text === undefined || text === '') return fallback
  if (!/^\d+$/.test(text)) throw invalid(`${name} must be a whole number, not '${text}'`)
  const n = Number(text)
  if (n < min || n > max) throw invalid(`${name} must be between ${min} and ${max}, not ${text}`)
  return n
}

/** A true/false query parameter (core/input's reading); absent or empty is false. */
export function flag(q: Query, name: string): boolean {
  const text = single(q, name)
  if (text === undefined || text === '') return false
  return booleanValue(text, name)!
}

/**
 * Reading fields of a JSON request body with clear 400s: each helper names the field and
 * what it expected. `undefined` means "not given" (PUT leaves the field alone); `null` clears
 * an optional field.
 */
import { invalid } from './errors.js'
import { parseApiTime } from './time.js'

type Body = Record<string, unknown>

export function optionalText(body: Body, field: string, options: { max?: number } = {}): string | null | undefined {
  return textValue(body[field], field, options)
}

/** The value-level reading behind optionalText, for fields that do not come from a body object. */
export function textValue(value: unknown, field: string, options: { max?: number } = {}): string | null | undefined {
  if (value === undefined) return undefined
  if (value === null) return null
  if (typeof value !== 'string') throw invalid(`${field} must be a string`)
  if (options.max !== undefined && value.length > options.max) throw invalid(`${field} is longer than ${options.max} characters`)
  return value
}

/** A non-empty string; required on create (`required`), optional on update. */
export function requiredText(body: Body, field: string, required: boolean, options: { max?: number } = {}): string | undefined {
  const value = optionalText(body, field, options)
  if (value === undefined && !required) return undefined
  if (value === undefined || value === null || !value.trim()) throw invalid(`${field} is required`)
  return value.trim()
}

/** One of a fixed list, matched case-insensitively and returned in the list's spelling. */
export function oneOf<T extends string>(body: Body, field: string, values: readonly T[], required: boolean): T | undefined {
  const value = body[field]
  if (value === undefined || value === null || value === '') {
    if (required) throw invalid(`${field} is required (one of ${values.join(', ')})`)
    return undefined
  }
  const found = typeof value === 'string' ? values.find((v) => v.toLowerCase() === value.trim().toLowerCase()) : undefined
  if (!found) throw invalid(`${field} must be one of ${values.join(', ')}; not '${String(value)}'`)
  return found
}

export function optionalTime(body: Body, field: string): string | null | undefined {
  const value = body[field]
  if (value === undefined) return undefined
  if (value === null || value === '') return null
  const parsed = parseApiTime(value)
  if (parsed === null) throw invalid(`${field} must be an ISO 8601 date or time, not '${String(value)}'`)
  return parsed
}

export function optionalBoolean(body: Body, field: string): boolean | undefined {
  return booleanValue(body[field], field)
}

/**
 * The one reading of true/false, for bodies, query parameters, v2 filters, batch files and
 * settings alike: JSON true/false and 1/0, or the text true/false/1/0 in any case with blanks
 * around (XML, form fields and tcex, which sends Python's `True`, give text). Anything else,
 * including the empty string, is not a boolean: undefined.
 *
 * @example readBoolean(' TRUE ') === true; readBoolean(0) === false; readBoolean('yes') === undefined
 */
export function readBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value
  if (value === 1 || value === 0) return value === 1
  if (typeof value !== 'string') return undefined
  const t = value.trim().toLowerCase()
  return t === 'true' || t === '1' ? true : t === 'false' || t === '0' ? false : undefined
}

/** readBoolean for a field that may be absent (undefined or null: undefined); anything else not true/false is a 400. */
export function booleanValue(value: unknown, field: string): boolean | undefined {
  if (value === undefined || value === null) return undefined
  const read = readBoolean(value)
  if (read === undefined) throw invalid(`${field} must be true or false, not '${String(value)}'`)
  return read
}

export function optionalInteger(body: Body, field: string, options: { min?: number; max?: number } = {}): number | null | undefined {
  const value = body[field]
  if (value === undefined) return undefined
  if (value === null) return null
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : NaN
  if (!Number.isSafeInteger(n)) throw invalid(`${field} must be a whole number`)
  if (options.min !== undefined && n < options.min) throw invalid(`${field} must be at least ${options.min}`)
  if (options.max !== undefined && n > options.max) throw invalid(`${field} must be at most ${options.max}`)
  return n
}

/** Parses an id given as a number or a numeric string. */
export function bodyId(value: unknown): number | undefined {
  if (value === undefined || value === null || value === '') return undefined
  const id = typeof value === 'number' ? value : typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : NaN
  if (!Number.isSafeInteger(id) || id <= 0) throw invalid(`'${String(value)}' is not a valid id`)
  return id
}

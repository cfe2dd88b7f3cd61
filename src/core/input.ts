/**
 * Reading fields of a JSON request body with clear 400s: each helper names the field and
 * what it expected. `undefined` means "not given" (PUT leaves the field alone); `null` clears
 * an optional field.
 */
import { invalid } from './errors.js'
import { parseApiTime } from './time.js'

type Body = Record<string, unknown>

/**
 * Names every object inherits (`__proto__`, `constructor`, `toString`, `valueOf`, …). A request
 * object holding one of them as its own key would shadow it: `toString: null` makes the value
 * impossible to turn into text, `__proto__` reaches for the prototype. No field of the platform's
 * formats has such a name, so the reader refuses them.
 */
export const INHERITED_NAMES: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype))

/** Deeper than any body of the platform's formats (v3 nested associations reach about eight levels). */
export const MAX_INPUT_DEPTH = 64

/**
 * Checks a parsed request value: no object key that names an inherited property, and no nesting
 * deeper than MAX_INPUT_DEPTH. Iterative, so a hostile nesting cannot exhaust the stack.
 * @example checkInputShape(JSON.parse('{"a":{"toString":null}}'))   // throws invalid: "… $.a.toString …"
 */
export function checkInputShape(value: unknown): void {
  const pending: { value: unknown; path: string; depth: number }[] = [{ value, path: '$', depth: 0 }]
  while (pending.length) {
    const next = pending.pop()!
    if (typeof next.value !== 'object' || next.value === null || Buffer.isBuffer(next.value)) continue
    if (next.depth >= MAX_INPUT_DEPTH)
      throw invalid(`The input is nested more than ${MAX_INPUT_DEPTH} levels deep (at ${next.path})`)
    if (Array.isArray(next.value)) {
      next.value.forEach((item, i) => pending.push({ value: item, path: `${next.path}[${i}]`, depth: next.depth + 1 }))
      continue
    }
    for (const key of Object.keys(next.value)) {
      const path = `${next.path}.${key}`
      if (INHERITED_NAMES.has(key)) throw invalid(`The input may not hold a key named '${key}' (at ${path})`)
      pending.push({ value: (next.value as Body)[key], path, depth: next.depth + 1 })
    }
  }
}

/**
 * The one reader of JSON text sent by clients (request bodies, batch files, CLI imports):
 * JSON.parse, then checkInputShape. Every failure is an `invalid` error; a syntax error's message
 * starts with `malformed`.
 * @example readJson('{"summary":"a.example"}')   // { summary: 'a.example' }
 */
export function readJson(text: string, malformed = 'The input is not valid JSON'): unknown {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw invalid(`${malformed}: ${(error as Error).message}`)
  }
  checkInputShape(value)
  return value
}

export function optionalText(body: Body, field: string, options: { max?: number } = {}): string | null | undefined {
  return textValue(body[field], field, options)
}

/** The value-level reading behind optionalText, for fields that do not come from a body object. */
export function textValue(value: unknown, field: string, options: { max?: number } = {}): string | null | undefined {
  if (value === undefined) return undefined
  if (value === null) return null
  if (typeof value !== 'string') throw invalid(`${field} must be a string`)
  if (options.max !== undefined && value.length > options.max)
    throw invalid(`${field} is longer than ${options.max} characters`)
  return value
}

/** A non-empty string; required on create (`required`), optional on update. */
export function requiredText(
  body: Body,
  field: string,
  required: boolean,
  options: { max?: number } = {},
): string | undefined {
  const value = optionalText(body, field, options)
  if (value === undefined && !required) return undefined
  if (value === undefined || value === null || !value.trim()) throw invalid(`${field} is required`)
  return value.trim()
}

/** One of a fixed list, matched case-insensitively and returned in the list's spelling. */
export function oneOf<T extends string>(
  body: Body,
  field: string,
  values: readonly T[],
  required: boolean,
): T | undefined {
  const value = body[field]
  if (value === undefined || value === null || value === '') {
    if (required) throw invalid(`${field} is required (one of ${values.join(', ')})`)
    return undefined
  }
  const found =
    typeof value === 'string' ? values.find((v) => v.toLowerCase() === value.trim().toLowerCase()) : undefined
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

export function optionalInteger(
  body: Body,
  field: string,
  options: { min?: number; max?: number } = {},
): number | null | undefined {
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
  const id =
    typeof value === 'number' ? value : typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : NaN
  if (!Number.isSafeInteger(id) || id <= 0) throw invalid(`'${String(value)}' is not a valid id`)
  return id
}

/**
 * Reads what a client sent for an Indicator (any interface: v2 and v3 bodies, batch
 * records) into normalized value fields and column changes. Every bad value is a 400 that
 * names the field and the type; read-only and unknown fields are ignored, since clients
 * commonly echo whole objects back.
 */
import type { FieldDeclaration, KindDeclaration } from '../../model/field.js'
import { INDICATOR } from '../../model/indicator.js'
import { type IndicatorTypeDef, parseSummary } from '../../model/indicator-types.js'
import type { IndicatorChanges } from '../../store/repositories/indicator.repository.js'
import { invalid } from '../../core/errors.js'
import { parseApiTime } from '../../core/time.js'
import { booleanValue } from '../../core/input.js'

/**
 * Input for creating or updating an Indicator. Value fields go by their API names (`ip`,
 * `address`, `md5`, `sha1`, `sha256`, `hostName`, `text`, `AS Number`, `Block`, `Mutex`,
 * `Key Name`, `Value Name`, `Value Type`, `User Agent String`) or generically as value1..value3;
 * `summary` may stand in for all of them.
 * @example { type: 'Host', hostName: 'bad.example', rating: 3, confidence: 60, dnsActive: true }
 */
export interface IndicatorInput {
  type: string
  summary?: unknown
  /** The value fields, and the fields model/indicator.ts declares writable (rating, dnsActive, firstSeen …). */
  [field: string]: unknown
}

export const MAX_TEXT_LENGTH = 65_500

const absent = (v: unknown) => v === undefined || v === null || v === ''

/** `a Host`, `an Address`. */
export const aOrAn = (name: string) => `${/^[AEIOU]/.test(name) ? 'an' : 'a'} ${name}`

function scalarText(value: unknown, field: string): string {
  if (typeof value === 'string') return value
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  throw invalid(`${field} must be text`)
}

/**
 * The value fields given in the input, normalized; null when none were given. A value the
 * type rejects is a 400 naming the type.
 */
export function readIndicatorValues(def: IndicatorTypeDef, input: IndicatorInput): (string | null)[] | null {
  const values: (string | null)[] = def.fields.map(() => null)
  let any = false
  def.fields.forEach((field, i) => {
    const raw = input[field.name] ?? input[`value${i + 1}`]
    if (absent(raw)) return
    const text = scalarText(raw, field.name)
    const normalized = text.trim() === '' ? null : def.normalize(i, text)
    if (normalized === null) throw invalid(`'${text}' is not a valid ${field.label} for ${aOrAn(def.name)} Indicator`)
    values[i] = normalized
    any = true
  })
  if (any) return values
  if (absent(input.summary)) return null
  const summary = scalarText(input.summary, 'summary')
  const parsed = parseSummary(def, summary)
  if (!parsed) throw invalid(`'${summary}' is not a valid ${def.name} Indicator value`)
  return parsed
}

/** Throws unless the values identify an Indicator of the type (one hash for Files, the first field otherwise). */
export function requireIdentifyingValues(def: IndicatorTypeDef, values: (string | null)[] | null): (string | null)[] {
  const ok = values && (def.name === 'File' ? values.some(Boolean) : !!values[0])
  if (!ok) {
    const names = def.name === 'File' ? 'at least one of md5, sha1 or sha256' : `'${def.fields[0].name}'`
    throw invalid(`${aOrAn(def.name).replace(/^a/, 'A')} Indicator needs ${names}`)
  }
  return values!
}

function readNumber(value: unknown, field: string): number | null | undefined {
  if (value === undefined) return undefined
  if (value === null || value === '') return null
  const n =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && value.trim() !== ''
        ? Number(value.trim())
        : Number.NaN
  if (!Number.isFinite(n)) throw invalid(`${field} must be a number, not '${String(value)}'`)
  return n
}

function readRange(
  value: unknown,
  field: string,
  min: number,
  max: number,
  integer: boolean,
): number | null | undefined {
  const n = readNumber(value, field)
  if (n === null || n === undefined) return n
  if (integer && !Number.isInteger(n)) throw invalid(`${field} must be a whole number, not '${String(value)}'`)
  if (n < min || n > max) throw invalid(`${field} must be between ${min} and ${max}, not ${n}`)
  return n
}

function readText(value: unknown, field: string): string | null | undefined {
  if (value === undefined) return undefined
  if (value === null) return null
  const text = scalarText(value, field)
  if (text.length > MAX_TEXT_LENGTH) throw invalid(`${field} is longer than ${MAX_TEXT_LENGTH} characters`)
  return text
}

function readTime(value: unknown, field: string): string | null | undefined {
  if (value === undefined) return undefined
  if (value === null || value === '') return null
  const parsed = parseApiTime(value)
  if (!parsed) throw invalid(`${field} must be an ISO 8601 date or time, not '${String(value)}'`)
  return parsed
}

const bit = (b: boolean | undefined) => (b === undefined ? undefined : b ? 1 : 0)

/** How a body's value of each declared type is read into its column (an expression over `v`, the given value). */
function readerOf(field: FieldDeclaration): string {
  const name = JSON.stringify(field.name)
  const [min, max] = field.range ?? [-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER]
  switch (field.type) {
    case 'decimal':
      return `readRange(v, ${name}, ${min}, ${max}, false)`
    case 'integer':
      return `readRange(v, ${name}, ${min}, ${max}, true)`
    case 'text':
      return `readText(v, ${name})`
    case 'boolean':
      return `bit(booleanValue(v, ${name}))`
    case 'date':
      return `readTime(v, ${name})`
    default:
      throw new Error(`indicator.${field.name}: no reader for ${field.type}`)
  }
}

/**
 * `(def, input) => changes` for every field a body may change (write `always`, with a column), in
 * declaration order, those of some types only (Host, File) last; compiled once: a batch reads
 * thousands of Indicators, and only the fields given become keys (deleting keys afterwards turned
 * every change set into a slow dictionary object).
 */
function compileChangeReader(): (def: IndicatorTypeDef, input: IndicatorInput) => IndicatorChanges {
  const declared: KindDeclaration = INDICATOR
  const changeable = declared.fields.filter(
    (f): f is FieldDeclaration & { column: string } => !!f.column && (f.write ?? 'always') === 'always',
  )
  const read = (f: FieldDeclaration & { column: string }) =>
    `v = ${readerOf(f).replace(/\bv\b/, `input[${JSON.stringify(f.name)}]`)}; if (v !== undefined) changes[${JSON.stringify(f.column)}] = v`
  const lines = changeable.filter((f) => !f.onlyTypes).map(read)
  const byTypes = new Map<string, string[]>()
  for (const f of changeable.filter((f) => f.onlyTypes)) {
    const test = f.onlyTypes!.map((t) => `def.name === ${JSON.stringify(t)}`).join(' || ')
    byTypes.set(test, [...(byTypes.get(test) ?? []), read(f)])
  }
  for (const [test, reads] of byTypes) lines.push(`if (${test}) {\n${reads.join('\n')}\n}`)
  const body = `return (def, input) => {\nconst changes = {}\nlet v\n${lines.join('\n')}\nreturn changes\n}`
  return new Function('readRange', 'readText', 'readTime', 'bit', 'booleanValue', body)(
    readRange,
    readText,
    readTime,
    bit,
    booleanValue,
  )
}

/**
 * Column changes for the editable, non-value fields (model/indicator.ts). Host-only (dnsActive,
 * whoisActive) and File-only (size) fields are ignored on other types; tcex always sends a File's
 * size (0 when unknown), and 0 is stored as given.
 */
export const readIndicatorChanges: (def: IndicatorTypeDef, input: IndicatorInput) => IndicatorChanges =
  compileChangeReader()

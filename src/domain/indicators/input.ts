/**
 * Reads what a client sent for an Indicator (any interface: v2 and v3 bodies, batch
 * records) into normalized value fields and column changes. Every bad value is a 400 that
 * names the field and the type; read-only and unknown fields are ignored, since clients
 * commonly echo whole objects back.
 */
import { type IndicatorTypeDef, parseSummary } from '../../model/indicator-types.js'
import type { IndicatorChanges } from '../../store/indicator.repository.js'
import { invalid } from '../errors.js'
import { parseApiTime } from '../time.js'
import { booleanValue } from '../input.js'

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
  rating?: unknown
  confidence?: unknown
  description?: unknown
  source?: unknown
  privateFlag?: unknown
  active?: unknown
  activeLocked?: unknown
  dnsActive?: unknown
  whoisActive?: unknown
  size?: unknown
  firstSeen?: unknown
  lastSeen?: unknown
  externalDateAdded?: unknown
  externalLastModified?: unknown
  externalDateExpires?: unknown
  [valueField: string]: unknown
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
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value.trim()) : Number.NaN
  if (!Number.isFinite(n)) throw invalid(`${field} must be a number, not '${String(value)}'`)
  return n
}

function readRange(value: unknown, field: string, min: number, max: number, integer: boolean): number | null | undefined {
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

/**
 * Column changes for the editable, non-value fields. Host-only (dnsActive, whoisActive)
 * and File-only (size) fields are ignored on other types.
 */
export function readIndicatorChanges(def: IndicatorTypeDef, input: IndicatorInput): IndicatorChanges {
  // Only the fields given become keys: a batch reads thousands of these, and deleting keys afterwards
  // turned every one into a slow dictionary object.
  const changes: IndicatorChanges = {}
  put(changes, 'rating', readRange(input.rating, 'rating', 0, 5, false))
  put(changes, 'confidence', readRange(input.confidence, 'confidence', 0, 100, true))
  put(changes, 'description', readText(input.description, 'description'))
  put(changes, 'source', readText(input.source, 'source'))
  put(changes, 'private_flag', bit(booleanValue(input.privateFlag, 'privateFlag')))
  put(changes, 'active', bit(booleanValue(input.active, 'active')))
  put(changes, 'active_locked', bit(booleanValue(input.activeLocked, 'activeLocked')))
  put(changes, 'first_seen', readTime(input.firstSeen, 'firstSeen'))
  put(changes, 'last_seen', readTime(input.lastSeen, 'lastSeen'))
  put(changes, 'external_date_added', readTime(input.externalDateAdded, 'externalDateAdded'))
  put(changes, 'external_last_modified', readTime(input.externalLastModified, 'externalLastModified'))
  put(changes, 'external_date_expires', readTime(input.externalDateExpires, 'externalDateExpires'))
  if (def.name === 'Host') {
    put(changes, 'dns_active', bit(booleanValue(input.dnsActive, 'dnsActive')))
    put(changes, 'whois_active', bit(booleanValue(input.whoisActive, 'whoisActive')))
  }
  if (def.name === 'File') {
    // tcex always sends size (0 when unknown); 0 is stored as given.
    put(changes, 'size', readRange(input.size, 'size', 0, Number.MAX_SAFE_INTEGER, true))
  }
  return changes
}

function put<K extends keyof IndicatorChanges>(changes: IndicatorChanges, key: K, value: IndicatorChanges[K] | undefined): void {
  if (value !== undefined) changes[key] = value
}

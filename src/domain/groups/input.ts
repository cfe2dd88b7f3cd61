/**
 * Reads a Group body against its type's field rules (model/group-types.ts): required fields
 * on create and on update, dates, booleans and the enumerations. Returns column values;
 * knows nothing of SQL or HTTP.
 */
import type { Updateable } from 'kysely'
import { COMMON_GROUP_DATES, type GroupFieldRule, type GroupTypeDef } from '../../model/group-types.js'
import type { GroupTable } from '../../store/database.js'
import { invalid } from '../../core/errors.js'
import { parseApiTime } from '../../core/time.js'
import { readBoolean } from '../../core/input.js'

export type GroupColumns = Updateable<GroupTable>

/** Longest text accepted in a single Group field (bodies and signatures are the long ones). */
const MAX_TEXT = 1_000_000
const MAX_NAME = 500

export function requireBodyObject(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null || body === '') return {}
  if (typeof body !== 'object' || Array.isArray(body) || Buffer.isBuffer(body))
    throw invalid('The body must be a JSON object')
  return body as Record<string, unknown>
}

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '')
}

function readText(rule: { name: string; values?: readonly string[] }, value: unknown, typeName: string): string {
  if (typeof value !== 'string' && typeof value !== 'number') throw invalid(`${rule.name} must be a string`)
  const text = String(value)
  if (text.length > (rule.name === 'name' ? MAX_NAME : MAX_TEXT))
    throw invalid(`${rule.name} is longer than ${rule.name === 'name' ? MAX_NAME : MAX_TEXT} characters`)
  if (!rule.values) return text
  const match = rule.values.find((v) => v.toLowerCase() === text.trim().toLowerCase())
  if (!match)
    throw invalid(`${rule.name} '${text}' is not valid for ${typeName} Groups; use one of: ${rule.values.join(', ')}`)
  return match
}

function readValue(rule: GroupFieldRule, value: unknown, typeName: string): string | number {
  switch (rule.kind) {
    case 'date': {
      const time = parseApiTime(value)
      if (!time) throw invalid(`${rule.name} must be an ISO 8601 date, not '${String(value)}'`)
      return time
    }
    case 'boolean': {
      const read = readBoolean(value)
      if (read === undefined) throw invalid(`${rule.name} must be true or false, not '${String(value)}'`)
      return read ? 1 : 0
    }
    case 'integer':
      if (typeof value === 'number' && Number.isInteger(value)) return value
      if (typeof value === 'string' && /^-?\d+$/.test(value)) return Number(value)
      throw invalid(`${rule.name} must be a whole number`)
    default:
      return readText(rule, value, typeName)
  }
}

/**
 * Column values from a create or update body. On create every required field must be given;
 * on update only the fields marked required-on-update must (Signatures: name, fileName, fileType).
 * @example groupColumnsFromBody(findGroupType('incidents')!, { name: 'X', eventDate: '2024-01-01' }, 'create')
 */
export function groupColumnsFromBody(
  def: GroupTypeDef,
  body: Record<string, unknown>,
  mode: 'create' | 'update',
): GroupColumns {
  const columns: Record<string, string | number | null> = {}
  const rules = [...def.fields, ...COMMON_GROUP_DATES.filter((d) => !def.fields.some((f) => f.name === d.name))]
  for (const rule of rules) {
    const value = body[rule.name]
    const required = mode === 'create' ? rule.requiredOnCreate : rule.requiredOnUpdate
    if (isBlank(value)) {
      if (required)
        throw invalid(
          `${rule.name} is required ${mode === 'create' ? 'to create' : 'to update'} ${article(def.name)} ${def.name}`,
        )
      if (value === undefined) continue
      if (rule.name === 'name') throw invalid('name cannot be empty')
      columns[rule.column] = rule.kind === 'boolean' ? 0 : null
      continue
    }
    columns[rule.column] = readValue(rule, value, def.name)
  }
  return columns as GroupColumns
}

/** The xid a client may give on create; absent means one is generated. */
export function readXid(body: Record<string, unknown>): string | undefined {
  const xid = body.xid
  if (isBlank(xid)) return undefined
  if (typeof xid !== 'string' || xid.length > 100) throw invalid('xid must be a string of at most 100 characters')
  return xid.trim()
}

function article(word: string): string {
  return /^[AEIOU]/i.test(word) ? 'an' : 'a'
}

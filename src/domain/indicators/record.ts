/**
 * The domain's view of one Indicator, independent of any API version. Times stay in the
 * stored form (ISO with milliseconds); presenters format them.
 */
import type { FieldDeclaration, KindDeclaration, RecordOf } from '../../model/field.js'
import { INDICATOR } from '../../model/indicator.js'
import { type IndicatorTypeDef, findIndicatorType } from '../../model/indicator-types.js'
import type { IndicatorRow } from '../../store/repositories/indicator.repository.js'
import { invalid } from '../../core/errors.js'

/**
 * The fields declared on model/indicator.ts are the record's under their names (RecordOf); the
 * rest are the owner (joined), the value fields as a list, and the Address data grouped.
 */
export interface IndicatorRecord extends RecordOf<typeof INDICATOR> {
  ownerName: string
  ownerType: string
  /** Value fields in the type's order (value1..value3); null where unset. */
  values: (string | null)[]
  address: {
    city: string | null
    countryCode: string | null
    countryName: string | null
    organization: string | null
    state: string | null
    timezone: string | null
    asn: number | null
  }
}

/** How a row's column becomes the record's value (an expression over `row`), by declared type. */
function valueOf(field: FieldDeclaration & { column: string }): string {
  const column = `row[${JSON.stringify(field.column)}]`
  if (field.type === 'boolean') return `!!${column}`
  if (field.type === 'decimal') return `${column} === null ? null : Number(${column})`
  if (field.type === 'integer' && field.default !== undefined) return `Number(${column})`
  return column
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/

/**
 * One object literal, compiled once from the declaration (every read of Indicators goes through
 * it): each declared column under its record name or path, in declaration order, then the owner
 * and the value fields.
 */
function compileRecordBuilder(): (row: IndicatorRow) => IndicatorRecord {
  const declared: KindDeclaration = INDICATOR
  const top: string[] = []
  const nested = new Map<string, string[]>()
  for (const field of declared.fields) {
    if (!field.column || field.record === false) continue
    const path = (field.record ?? field.name).split('.')
    if (!path.every((part) => IDENTIFIER.test(part)) || path.length > 2)
      throw new Error(`indicator.${field.name}: '${path.join('.')}' is not a record path`)
    const entry = valueOf(field as FieldDeclaration & { column: string })
    if (path.length === 1) top.push(`${path[0]}: ${entry}`)
    else {
      if (!nested.has(path[0])) top.push(path[0])
      nested.set(path[0], [...(nested.get(path[0]) ?? []), `${path[1]}: ${entry}`])
    }
  }
  const entries = top.map((entry) => (nested.has(entry) ? `${entry}: { ${nested.get(entry)!.join(', ')} }` : entry))
  return new Function(
    'valuesOf',
    `return (row) => ({ ${entries.join(', ')}, ownerName: row.owner_name, ownerType: row.owner_type, values: valuesOf(row) })`,
  )(valuesOf)
}

function valuesOf(row: IndicatorRow): (string | null)[] {
  const def = findIndicatorType(row.type)
  return [row.value1, row.value2, row.value3].slice(0, def?.fields.length ?? 3)
}

export const toIndicatorRecord: (row: IndicatorRow) => IndicatorRecord = compileRecordBuilder()

/** The type definition for a name, entity or API branch; unknown names are a 400 naming them. */
export function requireIndicatorType(nameOrBranch: string): IndicatorTypeDef {
  const def = findIndicatorType(nameOrBranch)
  if (!def) throw invalid(`Unknown Indicator type '${nameOrBranch}'`)
  return def
}

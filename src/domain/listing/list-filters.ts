/**
 * The v2 filter expressions (`name^Bad`, `dateAdded>2024-01-01`) checked against what each
 * resource allows, and turned into whitelisted column conditions for the repositories.
 * Unknown names, operators a field does not take and values of the wrong shape are 400s.
 */
import type { ColumnCondition, Comparison } from '../../store/list-conditions.js'
import { invalid } from '../errors.js'
import { parseApiTime } from '../time.js'
import { readBoolean } from '../input.js'

export type FilterOperator = '=' | '<' | '>' | '^' | '!'

/** One expression as a client wrote it. */
export interface FieldFilter {
  field: string
  op: FilterOperator
  value: string
}

export interface FilterSpec<C extends string> {
  column: C
  kind: 'string' | 'date' | 'boolean'
  ops: readonly FilterOperator[]
  /** Why the field is refused in this list (e.g. it belongs to another Group type), if it is. */
  refusal?: string
}

const COMPARISON: Record<FilterOperator, Comparison> = { '=': '=', '<': '<', '>': '>', '^': '^', '!': '<>' }

export function parseFilterValue(field: string, kind: FilterSpec<string>['kind'], value: string): string | number {
  if (kind === 'date') {
    const time = parseApiTime(value)
    if (!time) throw invalid(`Filter ${field} takes an ISO 8601 date, not '${value}'`)
    return time
  }
  if (kind === 'boolean') {
    const read = readBoolean(value)
    if (read === undefined) throw invalid(`Filter ${field} takes true or false, not '${value}'`)
    return read ? 1 : 0
  }
  return value
}

/**
 * Checks filters against a resource's specs and returns column conditions.
 * @example toConditions('Groups', [{ field: 'name', op: '^', value: 'Bad' }], { name: { column: 'name', kind: 'string', ops: ['=', '^'] } })
 */
export function toConditions<C extends string>(resource: string, filters: readonly FieldFilter[], specs: Record<string, FilterSpec<C>>): ColumnCondition<C>[] {
  return filters.map((f) => {
    const name = Object.keys(specs).find((key) => key.toLowerCase() === f.field.toLowerCase())
    const spec = name === undefined ? undefined : specs[name]
    if (!spec) throw invalid(`Unknown filter '${f.field}' for ${resource}; use ${Object.keys(specs).join(', ')}`)
    if (spec.refusal) throw invalid(spec.refusal)
    if (!spec.ops.includes(f.op)) throw invalid(`Filter ${f.field} takes the operators ${spec.ops.join(' ')}, not ${f.op}`)
    return { column: spec.column, op: COMPARISON[f.op], value: parseFilterValue(f.field, spec.kind, f.value) }
  })
}

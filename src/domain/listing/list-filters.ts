/**
 * The one v2 filter builder: filter expressions (`name^Bad`, `dateAdded>2024-01-01`) as the
 * v2 parser gives them, checked against a resource's table of filters and turned into
 * whitelisted column conditions for the repositories (store/engine/list-conditions.ts compiles them).
 * Every list — Indicators, Groups, Tasks, Victims, attribute types — declares its table and
 * calls toConditions. Unknown names, operators a field does not take and values of the wrong
 * shape are 400s worded alike everywhere.
 */
import type { ColumnCondition, Comparison } from '../../store/engine/list-conditions.js'
import { invalid } from '../../core/errors.js'
import { readBoolean } from '../../core/input.js'
import { parseApiTime } from '../../core/time.js'

/** `^` starts with; `!` is not equal. */
export type FilterOperator = '=' | '<' | '>' | '^' | '!'

/** One expression as a client wrote it. */
export interface FieldFilter {
  field: string
  op: string
  value: string
}

export type FilterValueKind = 'string' | 'date' | 'boolean' | 'integer' | 'decimal'

export interface FilterSpec<C extends string> {
  column: C
  kind: FilterValueKind
  ops: readonly FilterOperator[]
  /** Why the field is refused in this list (e.g. it belongs to another type), if it is. */
  refusal?: string
  /** `=` means "on or after" (modifiedSince). */
  since?: boolean
}

export interface FilterTable<C extends string> {
  /** Plural, as messages name the list ("Groups", "attribute types"). */
  resource: string
  specs: Readonly<Record<string, FilterSpec<C>>>
  /** The spec name a field means, when a list accepts more spellings than the names (tcex's `host.dnsActive`). */
  resolve?: (field: string) => string | undefined
}

const COMPARISON: Record<FilterOperator, Comparison> = { '=': '=', '<': '<', '>': '>', '^': '^', '!': '<>' }

/** A filter value of a kind; `field` names it in the 400. */
export function parseFilterValue(field: string, kind: FilterValueKind, value: string): string | number {
  const text = value.trim()
  switch (kind) {
    case 'date': {
      const time = parseApiTime(text)
      if (!time) throw invalid(`Filter ${field} takes an ISO 8601 date or time, not '${value}'`)
      return time
    }
    case 'boolean': {
      const read = readBoolean(text)
      if (read === undefined) throw invalid(`Filter ${field} takes true or false, not '${value}'`)
      return read ? 1 : 0
    }
    case 'integer':
      if (/^-?\d+$/.test(text)) return Number(text)
      throw invalid(`Filter ${field} takes a whole number, not '${value}'`)
    case 'decimal':
      if (text !== '' && Number.isFinite(Number(text))) return Number(text)
      throw invalid(`Filter ${field} takes a number, not '${value}'`)
    default:
      return value
  }
}

function specName<C extends string>(table: FilterTable<C>, field: string): string | undefined {
  if (table.resolve) return table.resolve(field)
  return Object.keys(table.specs).find((key) => key.toLowerCase() === field.trim().toLowerCase())
}

/**
 * Checks filters against a resource's table and returns column conditions.
 * @example toConditions({ resource: 'Groups', specs: { name: { column: 'name', kind: 'string', ops: ['=', '^'] } } }, [{ field: 'name', op: '^', value: 'Bad' }])
 */
export function toConditions<C extends string>(
  table: FilterTable<C>,
  filters: readonly FieldFilter[],
): ColumnCondition<C>[] {
  return filters.map((f) => {
    const name = specName(table, f.field)
    const spec = name === undefined ? undefined : table.specs[name]
    if (!name || !spec)
      throw invalid(`Unknown filter '${f.field}' for ${table.resource}; use ${Object.keys(table.specs).join(', ')}`)
    if (spec.refusal) throw invalid(spec.refusal)
    if (!(spec.ops as readonly string[]).includes(f.op))
      throw invalid(`Filter ${name} takes the operators ${spec.ops.join(' ')}, not ${f.op}`)
    const op = f.op as FilterOperator
    // A prefix is text whatever the column holds (modifiedSince^2024-03).
    if (op === '^') return { column: spec.column, op: '^', value: f.value }
    const value = parseFilterValue(name, spec.kind, f.value)
    return { column: spec.column, op: spec.since && op === '=' ? '>=' : COMPARISON[op], value }
  })
}

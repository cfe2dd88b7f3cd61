/**
 * How command results reach the terminal: with --json exactly one JSON object on stdout
 * (errors too), otherwise plain text. Results are plain objects; this module knows no command.
 */
import { isDomainError } from '../core/errors.js'

export type CommandResult = Record<string, unknown>

export function renderJson(result: CommandResult): string {
  return `${JSON.stringify(result)}\n`
}

/** Scalars as `key: value`, arrays of records as a table, nested records indented. */
export function renderText(result: CommandResult, indent = ''): string {
  const lines: string[] = []
  const scalarKeys = Object.keys(result).filter((k) => !isStructured(result[k]))
  const width = Math.max(0, ...scalarKeys.map((k) => k.length))
  for (const [key, value] of Object.entries(result)) {
    if (Array.isArray(value)) {
      lines.push(`${indent}${key}:`)
      lines.push(...renderTable(value, `${indent}  `))
    } else if (isStructured(value)) {
      lines.push(`${indent}${key}:`, renderText(value as CommandResult, `${indent}  `).trimEnd())
    } else {
      lines.push(`${indent}${`${key}:`.padEnd(width + 2)}${formatScalar(value)}`)
    }
  }
  return `${lines.join('\n')}\n`
}

function renderTable(rows: unknown[], indent: string): string[] {
  if (rows.length === 0) return [`${indent}(none)`]
  if (!rows.every((r) => isStructured(r) && !Array.isArray(r))) return rows.map((r) => `${indent}${formatScalar(r)}`)
  const records = rows as CommandResult[]
  const columns = [...new Set(records.flatMap((r) => Object.keys(r)))]
  const cells = records.map((r) => columns.map((c) => formatScalar(r[c])))
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i].length)))
  const line = (values: string[]) => `${indent}${values.map((v, i) => v.padEnd(widths[i])).join('  ')}`.trimEnd()
  return [line(columns), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)]
}

function isStructured(value: unknown): boolean {
  return typeof value === 'object' && value !== null
}

function formatScalar(value: unknown): string {
  if (value === null || value === undefined) return '-'
  if (typeof value === 'object') return JSON.stringify(value)
  return String(value)
}

/** The error as one object; domain errors keep their stable code. */
export function errorResult(error: unknown): CommandResult {
  if (isDomainError(error)) return { error: error.message, code: error.code }
  return { error: error instanceof Error ? error.message : String(error) }
}

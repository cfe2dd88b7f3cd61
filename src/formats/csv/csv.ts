/**
 * CSV as `bulwark import` reads it: a header naming at least the columns type and summary
 * (any case, any order), optionally rating, confidence, tags (separated by `;`) and value1 …
 * value3, the type's value fields by slot where a summary cannot say them (a Registry Key's value
 * type without a value name); commas separate cells, double quotes enclose them, `""` is a quote,
 * one record a line.
 */
import { invalid } from '../../core/errors.js'
import type { Format } from '../format.js'
import { readLines } from '../text-lines.js'

export const csvFile: Format = {
  name: 'csv',
  detect: (fileName) => /\.csv$/i.test(fileName),
  reader: {
    async *read(input) {
      let header: string[] | undefined
      let count = 0
      for await (const line of readLines(input)) {
        if (!header) {
          header = splitCsv(line).map((h) => h.trim().toLowerCase())
          if (!header.includes('type') || !header.includes('summary'))
            throw invalid('The CSV header must name the columns type and summary')
          continue
        }
        const where = `indicator[${count++}]`
        yield { kind: 'element', where, indicators: [{ where, indicator: csvIndicator(header, splitCsv(line)) }] }
      }
    },
  },
}

/** One record as a batch file item. */
export function csvIndicator(header: readonly string[], cells: readonly string[]): Record<string, unknown> {
  const value = (name: string) => cells[header.indexOf(name)]?.trim() || undefined
  const tags = value('tags')
    ?.split(';')
    .map((t) => t.trim())
    .filter(Boolean)
  const item: Record<string, unknown> = {
    type: value('type'),
    summary: value('summary'),
    ...(value('rating') !== undefined ? { rating: Number(value('rating')) } : {}),
    ...(value('confidence') !== undefined ? { confidence: Number(value('confidence')) } : {}),
    ...(tags?.length ? { tag: tags.map((name) => ({ name })) } : {}),
  }
  for (const slot of ['value1', 'value2', 'value3']) if (value(slot) !== undefined) item[slot] = value(slot)
  return item
}

/** One CSV line: commas separate, double quotes enclose, "" is a quote. */
export function splitCsv(line: string): string[] {
  const cells: string[] = []
  let cell = ''
  let quoted = false
  for (let i = 0; i < line.length; i++) {
    const c = line[i]
    if (quoted && c === '"' && line[i + 1] === '"') {
      cell += '"'
      i++
    } else if (c === '"') quoted = !quoted
    else if (c === ',' && !quoted) {
      cells.push(cell)
      cell = ''
    } else cell += c
  }
  cells.push(cell)
  return cells
}

/**
 * CSV as `bulwark import` reads it: a header, then one Indicator a record (records.ts: quoted
 * cells, line breaks in them, CRLF, a byte order mark; `,`, `;` or tab as the header uses most).
 * Which column holds what comes from the header's names or `--map` (columns.ts). A record's type
 * is its type column's (the model's names or a feed's: `domain`, `ip`, `md5`), or, where the file
 * has none or the cell is empty, detected from the value as a plain list's is (text/values.ts);
 * values are re-fanged. A record with the wrong number of cells, or a value of no known type, is
 * that record's error, named by the line it starts on.
 */
import { invalid } from '../../core/errors.js'
import { parseApiTime } from '../../core/time.js'
import { composeSummary } from '../../model/indicator-types.js'
import type { Format, ReadEvent } from '../format.js'
import { tlpLabel } from '../stix2/stix.js'
import { detectValue, indicatorTypeNamed, isDetected, quoteValue, valuesOfType } from '../text/values.js'
import { type ColumnIndex, parseColumnMap, resolveColumns } from './columns.js'
import { readCsvRecords } from './records.js'

export const csvFile: Format = {
  name: 'csv',
  detect: (fileName) => /\.csv$/i.test(fileName),
  reader: {
    check({ map }) {
      if (map !== undefined) parseColumnMap(map)
    },
    async *read(input, { map, now }) {
      const columnMap = map === undefined ? {} : parseColumnMap(map)
      const nowMs = now === undefined ? Date.now() : Date.parse(now)
      let header: { columns: ColumnIndex; width: number } | undefined
      for await (const record of readCsvRecords(input)) {
        const where = `line ${record.line}`
        if ('unterminated' in record) {
          yield {
            kind: 'input',
            error: `${where}: a quoted cell opened in this record is not closed at the end of the file`,
          }
          continue
        }
        if ('error' in record) {
          if (!header) throw invalid(`The CSV header (${where}) is ${record.error.replace(/^a record of /, '')}`)
          yield { kind: 'element', where, indicators: [], error: record.error }
          continue
        }
        if (!header) {
          header = { columns: resolveColumns(record.cells, columnMap), width: record.cells.length }
          continue
        }
        if (record.cells.length !== header.width) {
          yield {
            kind: 'element',
            where,
            indicators: [],
            error: `${record.cells.length} cells, where the header names ${header.width} columns`,
          }
          continue
        }
        yield csvRecordEvent(header.columns, record.cells, where, nowMs)
      }
      if (!header) throw invalid('The CSV file is empty: it has no header')
    },
  },
}

/** One record as a batch item, or why it is none. */
export function csvRecordEvent(
  columns: ColumnIndex,
  cells: readonly string[],
  where: string,
  nowMs: number,
): ReadEvent {
  const cell = (field: keyof ColumnIndex) => {
    const at = columns[field]
    return at === undefined ? undefined : cells[at].trim() || undefined
  }
  const refuse = (error: string): ReadEvent => ({ kind: 'element', where, indicators: [], error })
  // PostgreSQL text cannot hold U+0000, so neither can an Indicator's; other control characters are kept.
  if (cells.some((c) => c.includes('\u0000')))
    return refuse('a cell holds a NUL character (U+0000), which no Indicator field can hold')
  const item: Record<string, unknown> = {}
  const slots = (['value1', 'value2', 'value3'] as const).filter((slot) => cell(slot) !== undefined)
  const value = cell('value')
  const typeName = cell('type')
  if (typeName !== undefined) {
    const type = indicatorTypeNamed(typeName)
    const values = type && value !== undefined ? valuesOfType(type, value) : null
    // A type or value the model refuses is judged by the batch job, which says why in the API's words.
    item.type = type?.name ?? typeName
    if (value !== undefined) item.summary = type && values ? composeSummary(type, values) : value
  } else if (value !== undefined) {
    const found = detectValue(value)
    if (!isDetected(found)) return refuse(found.reason)
    item.type = found.type
    item.summary = found.summary
  } else if (slots.length === 0) return refuse('the value cell is empty')
  else return refuse('a record whose value is given by value1–value3 needs its type')
  for (const slot of slots) item[slot] = cell(slot)

  for (const field of ['rating', 'confidence', 'description', 'source'] as const) {
    const text = cell(field)
    if (text !== undefined) item[field] = text
  }
  const tags = cell('tags')
    ?.split(/[;,]/)
    .map((t) => t.trim())
    .filter(Boolean)
  if (tags?.length) item.tag = tags.map((name) => ({ name }))
  const tlp = cell('tlp')
  if (tlp !== undefined) {
    const label = tlpLabel(/^tlp\s*:/i.test(tlp) ? tlp.replace(/\s+/g, '') : `TLP:${tlp}`)
    if (!label) return refuse(`TLP ${quoteValue(tlp)} is no TLP level (CLEAR, WHITE, GREEN, AMBER, AMBER+STRICT, RED)`)
    item.securityLabel = [label]
  }
  for (const field of ['firstSeen', 'lastSeen', 'externalDateAdded', 'externalLastModified'] as const) {
    const text = cell(field)
    if (text !== undefined) item[field] = text
  }
  const expires = cell('externalDateExpires')
  if (expires !== undefined) {
    item.externalDateExpires = expires
    // The source no longer vouches for it: kept, but not served as valid.
    const time = parseApiTime(expires)
    if (time !== null && Date.parse(time) <= nowMs) item.active = false
  }
  return { kind: 'element', where, indicators: [{ where, indicator: item }] }
}

/**
 * Which column of a CSV holds what: the header's names as feeds write them, recognised
 * case-insensitively and whatever their spaces, `_` or `-` (`IOC`, ` Valid From`, `first_seen_utc`),
 * or named by the caller (`--map value=IOC,type=Kind`). Each field takes the first of its names
 * the header has, in the order below; a column no name matches is not read.
 */
import { invalid } from '../../core/errors.js'

/** The fields a column can fill: the batch item's names, and `value`, `type` and `tlp`. */
export const CSV_FIELDS = [
  'value',
  'type',
  'rating',
  'confidence',
  'tags',
  'description',
  'source',
  'tlp',
  'firstSeen',
  'lastSeen',
  'externalDateAdded',
  'externalLastModified',
  'externalDateExpires',
  'value1',
  'value2',
  'value3',
] as const

export type CsvField = (typeof CSV_FIELDS)[number]

/** Header names per field, as `nameKey` writes them, in order of precedence. */
const NAMES: Record<CsvField, readonly string[]> = {
  value: ['value', 'indicator', 'ioc', 'observable', 'summary', 'iocvalue', 'indicatorvalue', 'observablevalue'],
  type: ['type', 'kind', 'indicatortype', 'ioctype', 'observabletype'],
  rating: ['rating', 'threatrating', 'score'],
  confidence: ['confidence', 'confidencelevel'],
  tags: ['tags', 'tag', 'labels'],
  description: ['description', 'comment', 'comments'],
  source: ['source', 'link', 'reference'],
  tlp: ['tlp'],
  firstSeen: ['firstseen', 'firstseenutc'],
  lastSeen: ['lastseen', 'lastseenutc'],
  // A source's own dates (the spec's external dates): when it added the value, changed it, stops vouching for it.
  externalDateAdded: ['created', 'dateadded', 'validfrom'],
  externalLastModified: ['modified', 'lastmodified'],
  externalDateExpires: ['validuntil', 'validto', 'expires', 'expiration'],
  value1: ['value1'],
  value2: ['value2'],
  value3: ['value3'],
}

/** `--map` keys beyond the field names: the STIX words for the external dates. */
const MAP_ALIASES: Record<string, CsvField> = {
  validfrom: 'externalDateAdded',
  validuntil: 'externalDateExpires',
}

/** A header name as compared: lower case, letters and digits only. */
export function nameKey(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '')
}

function mapField(key: string): CsvField | undefined {
  const k = nameKey(key)
  return CSV_FIELDS.find((f) => nameKey(f) === k) ?? MAP_ALIASES[k]
}

/**
 * `--map value=IOC,type=Kind`: field → column name, checked before anything is read.
 * @example parseColumnMap('value=IOC, validUntil=Valid Until') // { value: 'IOC', externalDateExpires: 'Valid Until' }
 */
export function parseColumnMap(text: string): Partial<Record<CsvField, string>> {
  const map: Partial<Record<CsvField, string>> = {}
  for (const entry of text.split(',')) {
    if (!entry.trim()) continue
    const eq = entry.indexOf('=')
    const field = eq < 0 ? undefined : mapField(entry.slice(0, eq))
    const column = eq < 0 ? '' : entry.slice(eq + 1).trim()
    if (eq < 0 || !column)
      throw invalid(`--map takes field=column pairs separated by commas (value=IOC,type=Kind), not '${entry.trim()}'`)
    if (!field)
      throw invalid(`--map: '${entry.slice(0, eq).trim()}' is not a field; the fields are ${CSV_FIELDS.join(', ')}`)
    if (map[field] !== undefined) throw invalid(`--map names the column of ${field} twice`)
    map[field] = column
  }
  return map
}

/** Each field's column index in the header; a field no column fills is absent. */
export type ColumnIndex = Partial<Record<CsvField, number>>

/**
 * The columns of a header: those the map names, then the others by their names. Throws (the
 * file is refused) when a mapped column is missing or no column holds the values.
 */
export function resolveColumns(header: readonly string[], map: Partial<Record<CsvField, string>> = {}): ColumnIndex {
  const keys = header.map(nameKey)
  const columns: ColumnIndex = {}
  const taken = new Set<number>()
  for (const field of CSV_FIELDS) {
    const named = map[field]
    if (named === undefined) continue
    const at = keys.indexOf(nameKey(named))
    if (at < 0)
      throw invalid(
        `--map ${field}=${named}: the header has no column '${named}' (it has ${header.map((h) => h.trim()).join(', ')})`,
      )
    columns[field] = at
    taken.add(at)
  }
  for (const field of CSV_FIELDS) {
    if (columns[field] !== undefined) continue
    for (const name of NAMES[field]) {
      const at = keys.indexOf(name)
      if (at >= 0 && !taken.has(at)) {
        columns[field] = at
        taken.add(at)
        break
      }
    }
  }
  if (columns.value === undefined && columns.value1 === undefined)
    throw invalid(
      `The CSV header names no column of values (value, indicator, ioc, observable or summary); it has ${header.map((h) => h.trim()).join(', ')}. Name it with --map value=<column>`,
    )
  return columns
}

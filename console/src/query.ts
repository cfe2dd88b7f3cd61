/**
 * What the one search field means: a value (IP, host, URL, email, hash, ASN, CIDR; defanged or not)
 * found by the server's own detection (src/formats/text/values.ts), a TQL expression, or else a
 * piece of text looked for in summaries. Each becomes the TQL sent to /api/v3/indicators.
 */
import { type DetectedValue, detectValue, isDetected } from '../../src/formats/text/values.js'

export type SearchPlan =
  | { kind: 'empty'; tql: '' }
  | { kind: 'value'; type: string; summary: string; tql: string }
  | { kind: 'tql'; tql: string }
  | { kind: 'text'; tql: string }
  | { kind: 'list'; values: DetectedValue[]; rejected: { text: string; reason: string }[]; tql: string }

/** How many values a pasted list may hold: one request answers them all. */
export const LIST_MAX = 500

/** A TQL string literal: double quotes, with the characters the lexer escapes escaped. */
export function tqlString(text: string): string {
  return `"${text.replace(/[\\"'`]/g, (c) => `\\${c}`)}"`
}

/** Words and signs only a TQL expression has (a value never does). */
const TQL_SHAPE =
  /(?:^|\s)(?:!?=|<=?|>=?|and|or|not|in|like|contains|startswith|endswith|isnull)(?:\s|$|\()|^\s*(?:has\w*|tag|typeName|summary|rating|confidence|ownerName|dateAdded|lastModified)\b|\b\w+\s*\(/i

/** The TQL that finds every value of a list: per type, its summaries (a File: its hashes) in one `in`. */
export function listTql(values: readonly DetectedValue[]): string {
  const byType = new Map<string, DetectedValue[]>()
  for (const v of values) byType.set(v.type, [...(byType.get(v.type) ?? []), v])
  return [...byType]
    .map(([type, of]) => {
      const list = (items: string[]) => `(${[...new Set(items)].map(tqlString).join(', ')})`
      if (type !== 'File') return `(typeName = ${tqlString(type)} and summary in ${list(of.map((v) => v.summary))})`
      const hashes = of.flatMap((v) => v.values.filter((h): h is string => !!h))
      return `(typeName = "File" and (value1 in ${list(hashes)} or value2 in ${list(hashes)} or value3 in ${list(hashes)}))`
    })
    .join(' or ')
}

/** Whether an Indicator is the one a value of a list names. */
export function matchesValue(value: DetectedValue, indicator: { type: string; summary: string }): boolean {
  if (indicator.type !== value.type) return false
  if (value.type !== 'File') return indicator.summary.toLowerCase() === value.summary.toLowerCase()
  const hashes = indicator.summary.toUpperCase().split(' : ')
  return value.values.some((h) => !!h && hashes.includes(h.toUpperCase()))
}

/**
 * A pasted list: several lines, or several items on one line separated by commas or semicolons (or, without
 * those, by spaces) of which at least one is a value (half, when the line reads as TQL). Items that are no value are kept with the reason;
 * undefined when the text is not a list. (The search field turns pasted line breaks into commas: a one-line
 * field cannot hold them.)
 */
function planList(text: string): SearchPlan | undefined {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean)
  const items = lines.length > 1 ? lines : text.split(/[,;]/.test(text) ? /\s*[,;]\s*/ : /\s+/).filter(Boolean)
  if (items.length < 2) return undefined
  if (lines.length === 1) {
    // One line: a list when values are at least half of it (a TQL expression has a value or two at most).
    const detected = items.filter((item) => isDetected(detectValue(item))).length
    if (detected === 0 || (TQL_SHAPE.test(text) && detected * 2 < items.length)) return undefined
  }
  const values: DetectedValue[] = []
  const rejected: { text: string; reason: string }[] = []
  const seen = new Set<string>()
  for (const item of items.slice(0, LIST_MAX)) {
    const found = detectValue(item)
    if (!isDetected(found)) rejected.push({ text: item, reason: found.reason })
    else if (!seen.has(`${found.type}\u0000${found.summary}`)) {
      seen.add(`${found.type}\u0000${found.summary}`)
      values.push(found)
    }
  }
  return { kind: 'list', values, rejected, tql: values.length ? listTql(values) : '' }
}

export function planSearch(input: string): SearchPlan {
  const text = input.trim()
  if (!text) return { kind: 'empty', tql: '' }
  const list = planList(text)
  if (list) return list
  const found = detectValue(text)
  if (isDetected(found)) {
    const type = `typeName = ${tqlString(found.type)}`
    if (found.type === 'File') {
      const hashes = found.values.flatMap((v, i) => (v ? [`value${i + 1} = ${tqlString(v)}`] : []))
      return { kind: 'value', type: found.type, summary: found.summary, tql: `${type} and (${hashes.join(' or ')})` }
    }
    return {
      kind: 'value',
      type: found.type,
      summary: found.summary,
      tql: `${type} and summary = ${tqlString(found.summary)}`,
    }
  }
  if (TQL_SHAPE.test(text)) return { kind: 'tql', tql: text }
  return { kind: 'text', tql: `summary contains ${tqlString(text)}` }
}

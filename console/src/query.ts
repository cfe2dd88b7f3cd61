/**
 * What the one search field means: a value (IP, host, URL, email, hash, ASN, CIDR; defanged or not)
 * found by the server's own detection (src/formats/text/values.ts), a TQL expression, or else a
 * piece of text looked for in summaries. Each becomes the TQL sent to /api/v3/indicators.
 */
import { detectValue, isDetected } from '../../src/formats/text/values.js'

export type SearchPlan =
  | { kind: 'empty'; tql: '' }
  | { kind: 'value'; type: string; summary: string; tql: string }
  | { kind: 'tql'; tql: string }
  | { kind: 'text'; tql: string }

/** A TQL string literal: double quotes, with the characters the lexer escapes escaped. */
export function tqlString(text: string): string {
  return `"${text.replace(/[\\"'`]/g, (c) => `\\${c}`)}"`
}

/** Words and signs only a TQL expression has (a value never does). */
const TQL_SHAPE =
  /(?:^|\s)(?:!?=|<=?|>=?|and|or|not|in|like|contains|startswith|endswith|isnull)(?:\s|$|\()|^\s*(?:has\w*|tag|typeName|summary|rating|confidence|ownerName|dateAdded|lastModified)\b|\b\w+\s*\(/i

export function planSearch(input: string): SearchPlan {
  const text = input.trim()
  if (!text) return { kind: 'empty', tql: '' }
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

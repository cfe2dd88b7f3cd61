/**
 * Free text and plain lists as `bulwark import` reads them (the format `list`): one value a line,
 * blank lines and comment lines (`#`, `//`, `;` first) skipped, `value;comment`, `value,comment`,
 * `value<tab>comment` and `value comment` taking the value and the comment as the Indicator's
 * description, each value's type detected and re-fanged (values.ts) unless `--type` names one for
 * every line. A line whose value is of no known type is that line's error, never a Host. Any
 * text is a list, so it is the format a file no other format claims falls to.
 */
import { invalid } from '../../core/errors.js'
import { type IndicatorTypeDef, composeSummary, findIndicatorType } from '../../model/indicator-types.js'
import type { Format, ReadEvent } from '../format.js'
import { MAX_LINE_CHARS, readLines } from '../text-lines.js'
import { DETECTABLE_TYPES, type DetectedValue, detectValue, isDetected, quoteValue, valuesOfType } from './values.js'

export const plainList: Format = {
  name: 'list',
  detect: () => true,
  reader: {
    check({ type, map }) {
      if (map !== undefined) throw invalid('--map names the columns of a CSV; this file is read as a plain list')
      if (type !== undefined && !findIndicatorType(type))
        throw invalid(`--type ${quoteValue(type)} is not an Indicator type (Host, Address, URL, File, …)`)
    },
    async *read(input, { type }) {
      const forced = type === undefined ? undefined : findIndicatorType(type)
      for await (const line of readLines(input)) {
        const where = `line ${line.number}`
        if (!('text' in line)) {
          const error = `a line of ${line.length} characters, over the ${MAX_LINE_CHARS} a line may have: not read`
          yield { kind: 'element', where, indicators: [], error }
          continue
        }
        const event = readListLine(line.text, where, forced)
        if (event) yield event
      }
    },
  },
}

const COMMENT = /^(?:#|\/\/|;)/
/** PostgreSQL text cannot hold U+0000, so neither can an Indicator's; other control characters are kept. */
export const NUL_ERROR = 'the line holds a NUL character (U+0000), which no Indicator field can hold'
/** The first separator of a value from its comment. */
const SEPARATOR = /[\t;, ]/
const COMMENT_LEAD = /^[\t;, ]*(?:#|\/\/)?\s*/

/**
 * One line's Indicator, its error, or undefined for a line that holds none (blank, a comment).
 * The whole line is tried first, so a URL with `,` or `;` in it, or a File's `md5;sha1;sha256`,
 * stays one value; then the text before the first separator, the rest being its comment.
 */
export function readListLine(line: string, where: string, forced?: IndicatorTypeDef): ReadEvent | undefined {
  const text = line.trim()
  if (!text || COMMENT.test(text)) return undefined
  if (text.includes('\u0000')) return { kind: 'element', where, indicators: [], error: NUL_ERROR }
  const item = (type: string, summary: string, description?: string): ReadEvent => ({
    kind: 'element',
    where,
    indicators: [{ where, indicator: { type, summary, ...(description ? { description } : {}) } }],
  })
  // Types whose values may hold anything (a Mutex, a User Agent) take the line as written, as a list always has.
  if (forced && !DETECTABLE_TYPES.includes(forced.name)) return item(forced.name, text)
  const read = (value: string, part: boolean): DetectedValue | { reason: string } => {
    if (!forced) return detectValue(value)
    // A part of a line is a value only where it looks like one: `not a host!!` is no Host `not` with a comment.
    const values = part && !isDetected(detectValue(value)) ? null : valuesOfType(forced, value)
    return values ? { type: forced.name, values, summary: composeSummary(forced, values) } : { reason: '' }
  }
  const at = text.search(SEPARATOR)
  const whole = read(text, false)
  const head = at < 0 || isDetected(whole) ? whole : read(text.slice(0, at), true)
  const comment = isDetected(whole) || at < 0 ? '' : text.slice(at).replace(COMMENT_LEAD, '').trim()
  if (!isDetected(head)) {
    // A forced type judges its values in the batch job, which says why in the API's words.
    if (forced) return item(forced.name, text)
    return { kind: 'element', where, indicators: [], error: head.reason }
  }
  const port = head.port === undefined ? '' : `port ${head.port}`
  return item(head.type, head.summary, [port, comment].filter(Boolean).join('; '))
}

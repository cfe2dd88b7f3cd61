/**
 * A JSON document walked as it streams, for inputs whose elements sit deeper than one array of a
 * top-level object (json-array-stream.ts): a MISP event's attributes, say, at
 * `response[0].Event.Attribute[3]`. The caller decides for each value, by its path, whether to
 * step into it (`descend`: its members are decided in turn), to keep its JSON text (`whole`: given
 * back as text, parsed by the caller, so a bad value is that value's error alone) or to pass over it
 * (`skip`: read, never kept). Memory holds the value being kept, never the document.
 */
import { MAX_ELEMENT_CHARS, MalformedJsonFile } from './json-array-stream.js'

export type PathStep = string | number
export type Decision = 'descend' | 'whole' | 'skip'

export type WalkEvent =
  /** A kept value: its JSON text, or why it is not given (too long). */
  | { kind: 'value'; path: readonly PathStep[]; text: string }
  | { kind: 'value'; path: readonly PathStep[]; error: string }
  /** A container the caller stepped into ends. */
  | { kind: 'close'; path: readonly PathStep[] }

interface Frame {
  array: boolean
  path: PathStep[]
  /** Object: the member's key once read; array: the next element's index. */
  key: string | undefined
  index: number
  /** What the frame waits for: a key (objects), a colon, a value, or a comma or the end. */
  expect: 'key' | 'colon' | 'value' | 'next'
}

/** A value being read past (kept or skipped) rather than stepped into. */
interface Capture {
  path: PathStep[]
  keep: boolean
  text: string
  overflow: boolean
  /** Containers open inside the value; 0 for a string or a scalar. */
  depth: number
  inString: boolean
  escaped: boolean
  /** A number, true, false or null: ends at the first character that cannot continue it. */
  scalar: boolean
}

const WHITESPACE = /\s/
const SCALAR_END = /[\s,\]}]/

/**
 * The kept values and closed containers of a JSON document, in document order. Throws
 * MalformedJsonFile, after giving what came before, when the text is not JSON where the walk
 * reads it (the structure around kept values) or ends before the document does.
 */
export async function* walkJson(
  input: AsyncIterable<string>,
  decide: (path: readonly PathStep[]) => Decision,
): AsyncGenerator<WalkEvent> {
  const stack: Frame[] = []
  let capture: Capture | undefined
  let keyText: string | undefined
  let keyEscaped = false
  let started = false
  let done = false
  let offset = 0

  const fail = (what: string, at: number): never => {
    throw new MalformedJsonFile(`${what} at character ${offset + at + 1}`)
  }
  const pathOfNext = (): PathStep[] => {
    const top = stack[stack.length - 1]
    if (!top) return []
    return [...top.path, top.array ? top.index : top.key!]
  }
  /** After a value of the top frame (or the document) ends. */
  const valueDone = () => {
    const top = stack[stack.length - 1]
    if (!top) {
      done = true
      return
    }
    top.expect = 'next'
    if (top.array) top.index++
  }

  for await (const text of input) {
    let i = 0
    let segment = 0
    const n = text.length
    while (i < n) {
      if (capture) {
        const c = capture
        // The kept value's text, up to here.
        let end = -1
        for (; i < n; i++) {
          const ch = text[i]
          if (c.inString) {
            if (c.escaped) c.escaped = false
            else if (ch === '\\') c.escaped = true
            else if (ch === '"') {
              c.inString = false
              if (c.depth === 0) {
                end = i + 1
                break
              }
            }
          } else if (c.scalar) {
            if (SCALAR_END.test(ch)) {
              end = i
              break
            }
          } else if (ch === '"') c.inString = true
          else if (ch === '{' || ch === '[') c.depth++
          else if (ch === '}' || ch === ']') {
            if (--c.depth === 0) {
              end = i + 1
              break
            }
          }
        }
        if (c.keep && !c.overflow) {
          c.text += text.slice(segment, end < 0 ? n : end)
          if (c.text.length > MAX_ELEMENT_CHARS) {
            c.overflow = true
            c.text = ''
          }
        }
        if (end < 0) break
        i = end
        capture = undefined
        if (c.keep)
          yield c.overflow
            ? { kind: 'value', path: c.path, error: `longer than ${MAX_ELEMENT_CHARS} characters` }
            : { kind: 'value', path: c.path, text: c.text }
        valueDone()
        continue
      }
      const ch = text[i]
      if (keyText !== undefined) {
        // An object's key, read whole (keys are short; a long one is no member the caller keeps).
        let j = i
        for (; j < n; j++) {
          const k = text[j]
          if (keyEscaped) keyEscaped = false
          else if (k === '\\') keyEscaped = true
          else if (k === '"') break
          if (keyText.length < 4096) keyText += k
        }
        if (j >= n) {
          i = n
          break
        }
        const top = stack[stack.length - 1]
        try {
          top.key = JSON.parse(`"${keyText}"`) as string
        } catch {
          top.key = keyText
        }
        keyText = undefined
        top.expect = 'colon'
        i = j + 1
        continue
      }
      if (WHITESPACE.test(ch) || (!started && ch === '\uFEFF')) {
        i++
        continue
      }
      if (done) fail('Content after the JSON document', i)
      const top = stack[stack.length - 1]
      if (top && top.expect !== 'value') {
        if (top.expect === 'colon') {
          if (ch !== ':') fail(`Expected ':' but found '${ch}'`, i)
          top.expect = 'value'
        } else if (ch === ',' && top.expect === 'next') {
          top.expect = top.array ? 'value' : 'key'
        } else if ((ch === '}' && !top.array) || (ch === ']' && top.array)) {
          if (top.expect === 'key' && top.key !== undefined) fail(`Unexpected '${ch}'`, i)
          stack.pop()
          yield { kind: 'close', path: top.path }
          valueDone()
        } else if (ch === '"' && top.expect === 'key') {
          keyText = ''
          keyEscaped = false
        } else fail(`Unexpected '${ch}'`, i)
        i++
        continue
      }
      // A value starts: step into it, or read past it.
      if (top?.array && ch === ']') {
        // An empty array, or a trailing position: the frame closes.
        stack.pop()
        yield { kind: 'close', path: top.path }
        valueDone()
        i++
        continue
      }
      if (ch === '}' || ch === ']' || ch === ',' || ch === ':') fail(`Unexpected '${ch}'`, i)
      started = true
      const path = pathOfNext()
      const decision = decide(path)
      if (decision === 'descend' && (ch === '{' || ch === '[')) {
        stack.push({ array: ch === '[', path, key: undefined, index: 0, expect: ch === '[' ? 'value' : 'key' })
        i++
        continue
      }
      // The value's first character is read by the capture too, so a value starting at a chunk's end keeps it.
      capture = {
        path,
        keep: decision !== 'skip',
        text: '',
        overflow: false,
        depth: 0,
        inString: false,
        escaped: false,
        scalar: !'{["'.includes(ch),
      }
      segment = i
    }
    offset += n
  }
  if (capture?.scalar && stack.length === 0) {
    // A document that is one scalar ends with the input.
    capture = undefined
    done = true
  }
  if (!started) throw new MalformedJsonFile('The file is empty')
  if (!done) throw new MalformedJsonFile('The file ends before its JSON document does')
}

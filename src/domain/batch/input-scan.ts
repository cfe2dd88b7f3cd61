/**
 * The batch input read in pieces: one validating pass over the stored text finds where each
 * element of the top-level `indicator`, `group` and `association` arrays begins and ends,
 * without building any of them; a phase then parses only the chunk it is about to write
 * (`[` + that stretch of text + `]`). So a job holds its input text and one chunk's objects,
 * never the parse of the whole file. The pass accepts only what the full read (readJson: JSON.parse
 * and checkInputShape) accepts; anything else is left to that read, which reports the problem
 * as before.
 */

import { INHERITED_NAMES, MAX_INPUT_DEPTH } from '../../core/input.js'

/** What a batch phase needs of its items: a count, a range, and a walk in order. */
export interface ItemList {
  readonly length: number
  slice(start: number, end?: number): unknown[]
  forEach(visit: (item: unknown, index: number) => void): void
}

/** Elements parsed per piece when walking a whole list. */
const WALK_PIECE = 2000

/** Elements of one top-level array, parsed on demand from the stored text. */
class StoredItems implements ItemList {
  constructor(
    private readonly text: string,
    private readonly starts: number[],
    private readonly ends: number[],
  ) {}

  get length(): number {
    return this.starts.length
  }

  slice(start: number, end = this.length): unknown[] {
    const from = Math.max(0, start)
    const to = Math.min(this.length, end)
    if (from >= to) return []
    return JSON.parse(`[${this.text.slice(this.starts[from], this.ends[to - 1])}]`) as unknown[]
  }

  forEach(visit: (item: unknown, index: number) => void): void {
    for (let piece = 0; piece < this.length; piece += WALK_PIECE) {
      this.slice(piece, piece + WALK_PIECE).forEach((item, k) => visit(item, piece + k))
    }
  }
}

/** Elements parsed per piece when a walk yields between pieces. */
const TURN_PIECE = 500

/**
 * Walks a list as forEach does, awaiting `between` before each piece of TURN_PIECE elements after the first: long
 * work (a batch job's walk for inline associations) that lets the node's requests through between pieces.
 */
export async function forEachInTurns(
  list: ItemList,
  visit: (item: unknown, index: number) => void,
  between: () => Promise<void>,
): Promise<void> {
  for (let piece = 0; piece < list.length; piece += TURN_PIECE) {
    if (piece > 0) await between()
    list.slice(piece, piece + TURN_PIECE).forEach((item, k) => visit(item, piece + k))
  }
}

const LISTS = ['indicator', 'group', 'association', 'observation'] as const
type ListName = (typeof LISTS)[number]

interface Frame {
  kind: 'object' | 'array'
  expect: 'keyOrEnd' | 'key' | 'colon' | 'valueOrEnd' | 'value' | 'commaOrEnd'
  key?: string
  /** Set on the arrays whose elements are recorded. */
  spans?: { starts: number[]; ends: number[] }
}

const WHITESPACE = /[ \t\n\r]*/y
const STRING_BODY = /(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y
const LITERAL = /true|false|null/y

const UNESCAPED_BODY = /[^"\\]*"/y
const INHERITED_BY_LENGTH = new Map<number, string[]>()
for (const name of INHERITED_NAMES)
  INHERITED_BY_LENGTH.set(name.length, [...(INHERITED_BY_LENGTH.get(name.length) ?? []), name])

/** Whether text[start, end) is one of INHERITED_NAMES, read in place. */
function isInheritedName(text: string, start: number, end: number): boolean {
  return INHERITED_BY_LENGTH.get(end - start)?.some((name) => text.startsWith(name, start)) ?? false
}

function match(pattern: RegExp, text: string, at: number): number {
  pattern.lastIndex = at
  return pattern.test(text) ? pattern.lastIndex : -1
}

/**
 * The three lists of a batch file, or undefined when the text is not a JSON object whose lists
 * are arrays (or null) — the full parse then names the problem.
 */
export function scanBatchInput(text: string): ScannedInput | undefined {
  const steps = scanSteps(text)
  for (;;) {
    const step = steps.next()
    if (step.done) return step.value
  }
}

/**
 * scanBatchInput with `between` awaited after each SCAN_SLICE characters: a batch job scans its stored input
 * on the event loop every request of the node waits for, and 2 MB scanned at once held it for 35 ms.
 */
export async function scanBatchInputInTurns(
  text: string,
  between: () => Promise<void>,
): Promise<ScannedInput | undefined> {
  const steps = scanSteps(text)
  for (;;) {
    const step = steps.next()
    if (step.done) return step.value
    await between()
  }
}

/** Characters scanned between turns. */
const SCAN_SLICE = 256 * 1024

type ScannedInput = Record<ListName, ItemList> & { inlineAssociations: boolean }

/** The scan, pausing (yielding) after each SCAN_SLICE characters; returns what scanBatchInput does. */
function* scanSteps(text: string): Generator<void, ScannedInput | undefined> {
  let pauseAt = SCAN_SLICE
  const found: Partial<Record<ListName, { starts: number[]; ends: number[] } | null>> = {}
  const stack: Frame[] = []
  let done = false
  let i = 0
  const completeValue = () => {
    const top = stack[stack.length - 1]
    if (!top) {
      done = true
      return
    }
    top.spans?.ends.push(i)
    top.expect = 'commaOrEnd'
  }
  /** The object or array on top ends at text[i]. */
  const closeContainer = () => {
    stack.pop()
    i++
    completeValue()
  }
  for (;;) {
    if (i >= pauseAt) {
      yield
      pauseAt = i + SCAN_SLICE
    }
    i = match(WHITESPACE, text, i)
    if (i >= text.length) break
    if (done) return undefined
    const c = text[i]
    const top = stack[stack.length - 1]
    if (!top) {
      if (c !== '{') return undefined
      stack.push({ kind: 'object', expect: 'keyOrEnd' })
      i++
      continue
    }
    switch (top.expect) {
      case 'keyOrEnd':
      case 'key': {
        if (c === '}' && top.expect === 'keyOrEnd') {
          closeContainer()
          break
        }
        if (c !== '"') return undefined
        const end = match(STRING_BODY, text, i + 1)
        if (end < 0) return undefined
        // Keys may be written with escapes; only then is decoding needed to know them. A plain key is checked in
        // place and copied only at the top level, where it names a list: there are several in every item of a file.
        const decoded =
          match(UNESCAPED_BODY, text, i + 1) === end ? undefined : (JSON.parse(text.slice(i, end)) as string)
        if (decoded === undefined ? isInheritedName(text, i + 1, end - 1) : INHERITED_NAMES.has(decoded))
          return undefined
        top.key = stack.length === 1 ? (decoded ?? text.slice(i + 1, end - 1)) : undefined
        top.expect = 'colon'
        i = end
        break
      }
      case 'colon':
        if (c !== ':') return undefined
        top.expect = 'value'
        i++
        break
      case 'commaOrEnd':
        if (c === ',') {
          top.expect = top.kind === 'object' ? 'key' : 'value'
          i++
        } else if (c === (top.kind === 'object' ? '}' : ']')) {
          closeContainer()
        } else {
          return undefined
        }
        break
      case 'valueOrEnd':
      case 'value': {
        if (c === ']' && top.expect === 'valueOrEnd') {
          closeContainer()
          break
        }
        const list =
          stack.length === 1 && (LISTS as readonly string[]).includes(top.key!) ? (top.key as ListName) : undefined
        if ((c === '{' || c === '[') && stack.length >= MAX_INPUT_DEPTH) return undefined
        top.spans?.starts.push(i)
        if (c === '{') {
          if (list) return undefined
          stack.push({ kind: 'object', expect: 'keyOrEnd' })
          i++
        } else if (c === '[') {
          const spans = list ? { starts: [], ends: [] } : undefined
          if (list) found[list] = spans
          stack.push({ kind: 'array', expect: 'valueOrEnd', spans })
          i++
        } else {
          const end =
            c === '"'
              ? match(STRING_BODY, text, i + 1)
              : c === 't' || c === 'f' || c === 'n'
                ? match(LITERAL, text, i)
                : match(NUMBER, text, i)
          if (end < 0) return undefined
          if (list) {
            if (text.slice(i, end) !== 'null') return undefined
            found[list] = null
          }
          i = end
          completeValue()
        }
        break
      }
    }
  }
  if (!done) return undefined
  const list = (name: ListName): ItemList => {
    const spans = found[name]
    return spans ? new StoredItems(text, spans.starts, spans.ends) : []
  }
  // Every inline association key starts with 'associated'; a key spelled with escapes could hide it.
  const inlineAssociations = text.includes('"associated') || text.includes('\\')
  return {
    indicator: list('indicator'),
    group: list('group'),
    association: list('association'),
    observation: list('observation'),
    inlineAssociations,
  }
}

/**
 * The objects of a STIX 2.0 or 2.1 input, whatever holds them, told apart by the content: a
 * bundle (`{"type": "bundle", "objects": [...]}`), a JSON array of objects, JSON Lines (one
 * object a line, as some vendors publish), or one bare object. Each comes out one at a time with
 * its place (`objects[3]`, `[3]`, `line 4`, `the object`), so memory holds one object, never the
 * input: bundles and arrays through json-array-stream.ts, JSON Lines a line at a time.
 */
import { createInterface } from 'node:readline'
import { Readable } from 'node:stream'
import { invalid } from '../../core/errors.js'
import { readJson } from '../../core/input.js'
import type { ReadEvent, TextChunks } from '../format.js'
import { JsonArrayReader, MAX_ELEMENT_CHARS } from '../json-array-stream.js'
import { type ElementReading, messageOf, readJsonArray } from '../read-json-array.js'

export type ObjectReader = (value: unknown, where: string) => ElementReading

/** The start of an input and the rest of it, as one stream again. */
interface Peeked {
  head: string
  rest: AsyncIterator<string>
}

async function* replay({ head, rest }: Peeked): AsyncGenerator<string> {
  if (head) yield head
  for (;;) {
    const next = await rest.next()
    if (next.done) return
    yield next.value
  }
}

/** Reads until the first line ends (or MAX_ELEMENT_CHARS): enough to tell JSON Lines from a document. */
async function peek(input: TextChunks): Promise<Peeked> {
  const rest = input[Symbol.asyncIterator]()
  let head = ''
  while (head.length < MAX_ELEMENT_CHARS) {
    const start = head.search(/\S/)
    if (start >= 0 && (head[start] !== '{' || head.indexOf('\n', start) >= 0)) break
    const next = await rest.next()
    if (next.done) break
    head += next.value
  }
  return { head, rest }
}

/** The first line, when it is a whole JSON object by itself: the input is JSON Lines (or a one-line object). */
function firstLineObject(head: string): Record<string, unknown> | undefined {
  const text = head.replace(/^\uFEFF/, '').trimStart()
  const end = text.indexOf('\n')
  const line = (end < 0 ? text : text.slice(0, end)).trim()
  if (!line.endsWith('}')) return undefined
  try {
    const value = readJson(line)
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

/** A JSON object that is neither a STIX object nor a bundle: the input is not STIX at all (a V2 batch file, say). */
function notStix(name: string) {
  return invalid(`${name} is not a STIX object (it has no type) and is not a STIX bundle: it has no objects array`)
}

const isStixObject = (o: Record<string, unknown>) => typeof o.type === 'string' || Array.isArray(o.objects)

export async function* readStixInput(
  input: TextChunks,
  name: string,
  readObject: ObjectReader,
): AsyncGenerator<ReadEvent> {
  const peeked = await peek(input)
  const first = peeked.head.replace(/^\uFEFF/, '').trimStart()[0]
  if (first === undefined) throw invalid(`${name}: The file is empty`)
  if (first === '[') {
    // An array is the objects of a bundle without the bundle: read as one, named by index alone.
    const wrapped = async function* () {
      yield '{"objects":'
      yield* replay(peeked)
      yield '}'
    }
    yield* readJsonArray(new JsonArrayReader(wrapped(), 'objects'), name, '', readObject)
    return
  }
  if (first !== '{') throw invalid(`${name} is not STIX: it is neither a JSON object, an array nor JSON Lines`)
  const line = firstLineObject(peeked.head)
  if (line) {
    if (!isStixObject(line)) throw notStix(name)
    yield* readJsonLines(replay(peeked), readObject)
    return
  }
  yield* readDocument(peeked, name, readObject)
}

/** One object a line; a line that is not JSON is that line's error alone. A bundle on a line gives its objects. */
async function* readJsonLines(input: TextChunks, readObject: ObjectReader): AsyncGenerator<ReadEvent> {
  let number = 0
  for await (const line of createInterface({ input: Readable.from(input), crlfDelay: Infinity })) {
    number++
    if (!line.trim()) continue
    const where = `line ${number}`
    if (line.length > MAX_ELEMENT_CHARS) {
      yield { kind: 'element', where, indicators: [], error: `longer than ${MAX_ELEMENT_CHARS} characters` }
      continue
    }
    let value: unknown
    try {
      value = readJson(line.replace(/^\uFEFF/, ''))
    } catch (error) {
      yield { kind: 'element', where, indicators: [], error: messageOf(error) }
      continue
    }
    const o = value as Record<string, unknown> | null
    if (o && typeof o === 'object' && o.type === 'bundle' && Array.isArray(o.objects)) {
      for (const [i, object] of o.objects.entries()) {
        // A bundle written on one line is named as any bundle; on a later line, by its line too.
        const at = number === 1 ? `objects[${i}]` : `${where} objects[${i}]`
        yield { kind: 'element', where: at, ...readObject(object, at) }
      }
      continue
    }
    yield { kind: 'element', where, ...readObject(value, where) }
  }
}

/**
 * A JSON document that is an object: a bundle, whose objects stream, or one bare object, kept
 * (up to MAX_ELEMENT_CHARS) while no `objects` array has been found.
 */
async function* readDocument(peeked: Peeked, name: string, readObject: ObjectReader): AsyncGenerator<ReadEvent> {
  let kept = ''
  let overflow = false
  let reader: JsonArrayReader | undefined = undefined
  const keeping = async function* () {
    for await (const chunk of replay(peeked)) {
      if (!reader?.found && !overflow) {
        kept += chunk
        if (kept.length > MAX_ELEMENT_CHARS) {
          overflow = true
          kept = ''
        }
      }
      yield chunk
    }
  }
  reader = new JsonArrayReader(keeping(), 'objects')
  yield* readJsonArray(reader, name, 'objects', readObject)
  if (reader.found) {
    if (reader.completed && reader.strings.get('type') !== 'bundle') {
      yield {
        kind: 'input',
        error: 'the document is not a STIX bundle (its type is not "bundle"); its objects were read anyway',
      }
    }
    return
  }
  const where = 'the object'
  if (overflow) {
    yield { kind: 'element', where, indicators: [], error: `longer than ${MAX_ELEMENT_CHARS} characters` }
    return
  }
  let value: unknown
  try {
    value = readJson(kept.slice(0, closingBrace(kept) + 1).replace(/^\uFEFF/, ''))
  } catch (error) {
    yield { kind: 'element', where, indicators: [], error: messageOf(error) }
    return
  }
  if (!isStixObject(value as Record<string, unknown>)) throw notStix(name)
  yield { kind: 'element', where, ...readObject(value, where) }
}

/** Where the first top-level JSON object of the text ends (the reader stopped there; anything after is not read). */
function closingBrace(text: string): number {
  let depth = 0
  let inString = false
  let escaped = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (inString) {
      if (escaped) escaped = false
      else if (c === '\\') escaped = true
      else if (c === '"') inString = false
    } else if (c === '"') inString = true
    else if (c === '{' || c === '[') depth++
    else if ((c === '}' || c === ']') && --depth === 0) return i
  }
  return text.length - 1
}

/**
 * The elements of one array of a JSON input (json-array-stream.ts) as a reader's events: each
 * element parsed as the API parses a body (readJson), its Indicators left to the format. An
 * element that is not JSON is that element's error; a file that is not the JSON document it
 * should be is refused whole when nothing was read from it, else reported after what was.
 */
import { invalid } from '../core/errors.js'
import { readJson } from '../core/input.js'
import type { ElementItems, ReadEvent } from './format.js'
import { type JsonArrayReader, MalformedJsonFile } from './json-array-stream.js'

/** What a format makes of one element: its items, or why it has none. */
export type ElementReading = ElementItems

export async function* readJsonArray(
  reader: JsonArrayReader,
  name: string,
  key: string,
  indicatorsOf: (value: unknown, where: string) => ElementReading,
): AsyncGenerator<ReadEvent> {
  let elements = 0
  try {
    for await (const element of reader.elements()) {
      elements++
      const where = `${key}[${element.index}]`
      if ('error' in element) {
        yield { kind: 'element', where, indicators: [], error: element.error }
        continue
      }
      let value: unknown
      try {
        value = readJson(element.text)
      } catch (error) {
        yield { kind: 'element', where, indicators: [], error: messageOf(error) }
        continue
      }
      yield { kind: 'element', where, ...indicatorsOf(value, where) }
    }
  } catch (error) {
    if (!(error instanceof MalformedJsonFile)) throw error
    if (elements === 0) throw invalid(`${name}: ${error.message}`)
    yield { kind: 'input', error: error.message }
  }
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

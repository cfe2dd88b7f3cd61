/**
 * The lines of a text input as it streams, numbered from 1 as an editor numbers them: breaks are
 * `\n`, `\r\n` or a lone `\r`, a byte order mark at the start is no text. Memory holds one chunk
 * and one line; a line longer than MAX_LINE_CHARS is not held at all, only its length reported.
 */
import type { TextChunks } from './format.js'

/** A longer line is reported instead of read, as a JSON element is (json-array-stream.ts). */
export const MAX_LINE_CHARS = 1_000_000

export type TextLine = { number: number; text: string } | { number: number; length: number }

export async function* readLines(input: TextChunks, maxChars = MAX_LINE_CHARS): AsyncGenerator<TextLine> {
  let number = 1
  let line = ''
  let length = 0
  let afterCr = false
  let first = true
  const end = (): TextLine => (length > maxChars ? { number: number++, length } : { number: number++, text: line })
  for await (let chunk of input) {
    if (first && chunk.length) {
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1)
      first = false
    }
    let start = 0
    if (afterCr && chunk.charCodeAt(0) === 10) start = 1
    afterCr = false
    // Each break's position is searched once per chunk: a chunk of a thousand lines and no \r is not scanned a thousand times.
    let lf = -2
    let cr = -2
    for (;;) {
      if (lf !== -1 && lf < start) lf = chunk.indexOf('\n', start)
      if (cr !== -1 && cr < start) cr = chunk.indexOf('\r', start)
      const at = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr)
      if (at < 0) break
      take(chunk.slice(start, at))
      yield end()
      line = ''
      length = 0
      start = at + 1
      if (chunk.charCodeAt(at) === 13) {
        if (at + 1 === chunk.length) afterCr = true
        else if (chunk.charCodeAt(at + 1) === 10) start++
      }
    }
    take(chunk.slice(start))
  }
  if (length > 0) yield end()

  function take(part: string) {
    length += part.length
    if (length <= maxChars) line += part
    else line = ''
  }
}

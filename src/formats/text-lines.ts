/**
 * The lines of a text input as it streams, blank ones left out: line breaks as readline finds
 * them (`\n`, `\r\n`, a lone `\r`), so memory holds one chunk, never the file.
 */
import { createInterface } from 'node:readline'
import { Readable } from 'node:stream'
import type { TextChunks } from './format.js'

export async function* readLines(input: TextChunks): AsyncGenerator<string> {
  for await (const line of createInterface({ input: Readable.from(input), crlfDelay: Infinity })) {
    if (line.trim()) yield line
  }
}

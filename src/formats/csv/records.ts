/**
 * The records of a delimited text as it streams (RFC 4180, leniently): cells separated by the
 * delimiter, double quotes enclosing a cell that holds delimiters, quotes (`""`) or line breaks,
 * records ended by `\n`, `\r\n` or a lone `\r`, a byte order mark at the start no text, blank lines
 * no record. Each record carries the line it starts on, as an editor numbers lines. Memory holds
 * one chunk and one record; a record longer than MAX_RECORD_CHARS is reported by its length, not
 * held. A quote inside an unquoted cell is text, as spreadsheets write it.
 */
import type { TextChunks } from '../format.js'
import { MAX_LINE_CHARS } from '../text-lines.js'

export const MAX_RECORD_CHARS = MAX_LINE_CHARS

export type CsvRecord =
  | { line: number; cells: string[] }
  | { line: number; error: string }
  /** The input ended inside a quoted cell: what came before it was read. */
  | { line: number; unterminated: true }

const QUOTE = 34
const LF = 10
const CR = 13

/** The delimiter of a header line: the one of `,`, `;` and tab it holds most of (`,` when none). */
export function sniffDelimiter(header: string): string {
  const count = (c: string) => header.split(c).length
  const [best] = [',', ';', '\t'].sort((a, b) => count(b) - count(a))
  return count(best) > 1 ? best : ','
}

export async function* readCsvRecords(
  input: TextChunks,
  delimiterOf: (firstChunk: string) => string = sniffDelimiter,
  maxChars = MAX_RECORD_CHARS,
): AsyncGenerator<CsvRecord> {
  let delimiter = -1
  let line = 1
  let recordLine = 1
  let cells: string[] = []
  let cell = ''
  let size = 0
  let quoted = false
  /** The quote just read in a quoted cell may close it or, doubled, be one. */
  let quoteSeen = false
  let afterCr = false
  /** A CR inside a quoted cell was just read: an LF after it ends the same line. */
  let quotedCr = false
  let first = true

  const endCell = () => {
    if (size <= maxChars) cells.push(cell)
    cell = ''
  }
  const endRecord = (): CsvRecord | undefined => {
    endCell()
    const record: CsvRecord | undefined =
      size > maxChars
        ? { line: recordLine, error: `a record of ${size} characters: longer than ${maxChars}` }
        : cells.length === 1 && cells[0].trim() === ''
          ? undefined
          : { line: recordLine, cells }
    cells = []
    size = 0
    recordLine = line
    return record
  }

  for await (let chunk of headFirst(input)) {
    if (first && chunk.length) {
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1)
      delimiter = delimiterOf(chunk.split(/\r\n|\r|\n/, 1)[0]).charCodeAt(0)
      first = false
    }
    let run = 0
    const add = (to: number) => {
      if (to > run) {
        size += to - run
        if (size <= maxChars) cell += chunk.slice(run, to)
      }
    }
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i)
      if (afterCr) {
        afterCr = false
        if (c === LF) {
          run = i + 1
          continue
        }
      }
      if (quoted) {
        if (quoteSeen) {
          quoteSeen = false
          if (c === QUOTE) {
            run = i
            continue
          }
          quoted = false
        } else {
          if (c === QUOTE) {
            add(i)
            run = i + 1
            quoteSeen = true
          } else if (c === CR || (c === LF && !quotedCr)) line++
          quotedCr = c === CR
          continue
        }
      }
      if (c === delimiter) {
        add(i)
        size++
        endCell()
        run = i + 1
      } else if (c === LF || c === CR) {
        add(i)
        line++
        const record = endRecord()
        if (record) yield record
        run = i + 1
        if (c === CR) afterCr = true
      } else if (c === QUOTE && i - run + cell.length <= 16 && (cell + chunk.slice(run, i)).trim() === '') {
        // A quote opens a cell only before its text (after a few spaces too: `a, "b, c"`); later, it is text.
        size -= cell.length
        cell = ''
        quoted = true
        run = i + 1
      }
    }
    add(chunk.length)
  }
  if (quoted && !quoteSeen) {
    yield { line: recordLine, unterminated: true }
    return
  }
  if (cell !== '' || cells.length) {
    const record = endRecord()
    if (record) yield record
  }
}

/** The input with its first line whole in the first chunk (up to 64 KB of it), so the delimiter is told from all of it. */
async function* headFirst(input: TextChunks): AsyncGenerator<string> {
  let head = ''
  let told = false
  for await (const chunk of input) {
    if (told) {
      yield chunk
      continue
    }
    head += chunk
    if (/[\r\n]/.test(head) || head.length >= 65_536) {
      told = true
      yield head
      head = ''
    }
  }
  if (!told && head) yield head
}

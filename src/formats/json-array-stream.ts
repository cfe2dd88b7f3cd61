/**
 * The elements of one array inside a top-level JSON object (`objects` of a STIX bundle,
 * `indicator` of a V2 batch file), read from text as it streams (a file's chunks): only the element
 * being read is held, so a file of a million Indicators takes the memory of one. Each element comes out as
 * its JSON text; the caller parses it, so a bad element is that element's error alone. The
 * document's other top-level string members are kept (a bundle's `type`, `id`).
 */
/** An element longer than this is reported instead of read (the batch refuses 2 MB uploads anyway). */
export const MAX_ELEMENT_CHARS = 1_000_000

/** The file is not the JSON document it should be (as opposed to a failure of whoever reads its elements). */
export class MalformedJsonFile extends Error {}

export type ArrayElement = { index: number; text: string } | { index: number; error: string }

export class JsonArrayReader {
  /** Top-level members whose value is a string, once read (after the walk for those past the array). */
  readonly strings = new Map<string, string>()
  /** The array was found. */
  found = false

  constructor(
    private readonly input: AsyncIterable<string>,
    private readonly key: string,
  ) {}

  async *elements(): AsyncGenerator<ArrayElement> {
    let depth = 0
    let inString = false
    let escaped = false
    let stringText = ''
    let lastString: string | undefined
    let memberKey: string | undefined
    let inArray = false
    let element = ''
    let overflow = false
    let index = 0
    let started = false
    const finish = (): ArrayElement | undefined => {
      const text = element.trim()
      element = ''
      if (!text && !overflow) return undefined
      const out: ArrayElement = overflow
        ? { index, error: `longer than ${MAX_ELEMENT_CHARS} characters` }
        : { index, text }
      overflow = false
      index++
      return out
    }
    for await (const text of this.input) {
      let segment = 0
      const keep = (end: number) => {
        if (!overflow) element += text.slice(segment, end)
        if (element.length > MAX_ELEMENT_CHARS) {
          overflow = true
          element = ''
        }
      }
      for (let i = 0; i < text.length; i++) {
        const c = text[i]
        if (!started) {
          if (/\s/.test(c) || c === '\uFEFF') continue
          if (c !== '{') throw new MalformedJsonFile('The file is not a JSON object')
          started = true
          depth = 1
          continue
        }
        if (inString) {
          if (escaped) escaped = false
          else if (c === '\\') escaped = true
          else if (c === '"') {
            inString = false
            if (depth === 1) lastString = readMemberString(stringText)
            continue
          }
          if (depth === 1 && stringText.length <= MAX_MEMBER_STRING) stringText += c
          continue
        }
        if (c === '"') {
          inString = true
          stringText = ''
        } else if (c === '{' || c === '[') {
          if (depth === 1 && c === '[' && memberKey === this.key && !this.found) {
            inArray = true
            this.found = true
            segment = i + 1
          }
          depth++
        } else if (c === '}' || c === ']') {
          if (depth === 1) this.member(memberKey, lastString)
          depth--
          if (inArray && depth === 1) {
            keep(i)
            const last = finish()
            if (last) yield last
            inArray = false
          }
          if (depth === 0) {
            this.completed = true
            return
          }
        } else if (c === ':' && depth === 1) {
          memberKey = lastString
          lastString = undefined
        } else if (c === ',' && depth === 1) {
          this.member(memberKey, lastString)
          memberKey = undefined
          lastString = undefined
        } else if (c === ',' && inArray && depth === 2) {
          keep(i)
          segment = i + 1
          const next = finish()
          if (next) yield next
        }
      }
      if (inArray) keep(text.length)
    }
    if (!started) throw new MalformedJsonFile('The file is empty')
    if (!this.completed) throw new MalformedJsonFile('The file ends before its JSON document does')
  }

  /** The closing brace of the document was read. */
  completed = false

  private member(key: string | undefined, value: string | undefined) {
    if (key !== undefined && value !== undefined) this.strings.set(key, value)
  }
}

/** Top-level member names and string values longer than this are not kept. */
const MAX_MEMBER_STRING = 4096

function readMemberString(raw: string): string | undefined {
  if (raw.length > MAX_MEMBER_STRING) return undefined
  try {
    return JSON.parse(`"${raw}"`) as string
  } catch {
    return undefined
  }
}

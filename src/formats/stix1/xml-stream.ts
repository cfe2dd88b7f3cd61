/**
 * The elements of a stream of XML documents one after another (STIX_Package after STIX_Package, as
 * the TAXII 1.1 puller hands them, or one file), cut out of the text as it streams. Only the
 * markup needed to tell where elements start and end is scanned here (tags, comments, CDATA,
 * processing instructions); the elements a caller wants are handed out as text for an XML parser,
 * with the start tags of their ancestors so the namespaces declared on those stay in scope. Memory
 * holds one wanted element, never more than `maxChars` of it, and the start tags above it.
 *
 * A DTD (`<!DOCTYPE`, `<!ENTITY`) is refused wherever it stands: no feed needs one, and entity
 * declarations are how XML external entity and expansion attacks come in.
 */
import type { TextChunks } from '../format.js'

/** The input is not well-formed XML (or holds a DTD): what is read before it stands. */
export class MalformedXml extends Error {}

/** An element of depth 1 to 3 (a package, a child of it, a child of that) opened or closed. */
export type ScanEvent =
  /** A package opened: `starts` holds its own start tag. */
  | { kind: 'open'; path: readonly string[]; starts: readonly string[] }
  | {
      kind: 'close'
      /** The qualified names from the root down to this element. */
      path: readonly string[]
      /** The start tags of its ancestors, root first. */
      starts: readonly string[]
      /** The element's text, when it was wanted and no longer than maxChars. */
      text?: string
      /** The element's length in characters, when it was wanted. */
      length?: number
    }

/** The local part of a qualified name (`stix:Indicator` → Indicator). */
export const localName = (name: string) => name.slice(name.indexOf(':') + 1)

const TAG_NAME = /^<\/?\s*([^\s/>]+)/

type MarkupKind = 'tag' | 'comment' | 'cdata' | 'pi'
const TERMINATOR: Record<Exclude<MarkupKind, 'tag'>, string> = { comment: '-->', cdata: ']]>', pi: '?>' }
/** `<!-->` is no whole comment, nor `<?>` a whole instruction. */
const MIN_LENGTH: Record<Exclude<MarkupKind, 'tag'>, number> = { comment: 7, cdata: 12, pi: 4 }
/** What can end a tag or change how it is read. */
const TAG_STOP = /["'<>]/g

/** The kind of markup its first characters make, '' while they do not say yet. Throws for a DTD. */
function classify(markup: string): MarkupKind | '' {
  if (markup.length < 2) return ''
  if (markup[1] === '?') return 'pi'
  if (markup[1] !== '!') return 'tag'
  if (markup.startsWith('<!--')) return 'comment'
  if (markup.startsWith('<![CDATA[')) return 'cdata'
  if ('<!--'.startsWith(markup) || '<![CDATA['.startsWith(markup)) return ''
  throw new MalformedXml(
    `${JSON.stringify(markup)}… is a DTD or entity declaration (<!DOCTYPE, <!ENTITY), which is not accepted`,
  )
}

/**
 * Scans `input`, saying when each element of depth 1 opens and when each of depth 1 to 3 closes;
 * those `want` says yes to (from their path) are given whole on closing. Throws MalformedXml
 * where the input stops being well-formed as far as this scan can tell (an end tag that closes
 * another element, text outside an element, an input cut short); what an element holds is left
 * to the parser of its text.
 */
export async function* scanElements(
  input: TextChunks,
  want: (path: readonly string[]) => boolean,
  maxChars: number,
): AsyncGenerator<ScanEvent> {
  const names: string[] = []
  const starts: string[] = []
  let markup = ''
  let inMarkup = false
  let quote = ''
  /** What the markup being read is, once its first characters say. */
  let kind: MarkupKind | '' = ''
  /** The depth of the element being captured (0: none), its text, its length so far. */
  let captureDepth = 0
  let capture = ''
  let captureLength = 0
  let first = true
  const events: ScanEvent[] = []

  const keep = (text: string) => {
    if (!captureDepth) return
    captureLength += text.length
    if (captureLength <= maxChars) capture += text
    else capture = ''
  }

  const text = (segment: string) => {
    if (!segment) return
    if (names.length === 0) {
      if (/\S/.test(segment))
        throw new MalformedXml(`text outside an element: ${JSON.stringify(segment.trim().slice(0, 40))}`)
      return
    }
    keep(segment)
  }

  const complete = (tag: string) => {
    if (tag.startsWith('<!--') || tag.startsWith('<![CDATA[') || tag.startsWith('<?')) {
      if (tag.startsWith('<![CDATA[') && names.length === 0) throw new MalformedXml('CDATA outside an element')
      keep(tag)
      return
    }
    const name = TAG_NAME.exec(tag)?.[1]
    if (!name) throw new MalformedXml(`a tag without a name: ${JSON.stringify(tag.slice(0, 40))}`)
    if (tag[1] === '/') {
      const open = names.at(-1)
      if (open !== name) throw new MalformedXml(open ? `</${name}> closes <${open}>` : `</${name}> closes no element`)
      keep(tag)
      close()
      return
    }
    names.push(name)
    starts.push(tag)
    const depth = names.length
    if (depth === 1) events.push({ kind: 'open', path: [...names], starts: [tag] })
    if (captureDepth) keep(tag)
    else if (depth <= 3 && want(names)) {
      captureDepth = depth
      capture = ''
      captureLength = 0
      keep(tag)
    }
    if (tag.endsWith('/>')) close()
  }

  const close = () => {
    const depth = names.length
    if (depth <= 3) {
      const event: ScanEvent = { kind: 'close', path: [...names], starts: starts.slice(0, -1) }
      if (captureDepth === depth) {
        event.length = captureLength
        if (captureLength <= maxChars) event.text = capture
        captureDepth = 0
        capture = ''
      }
      events.push(event)
    }
    names.pop()
    starts.pop()
  }

  try {
    for await (let chunk of input) {
      if (first && chunk.length) {
        if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1)
        first = false
      }
      let at = 0
      while (at < chunk.length) {
        // Given as soon as closed: a chunk may be a whole package (the TAXII 1.1 puller's are).
        if (events.length) yield* events.splice(0)
        if (!inMarkup) {
          const lt = chunk.indexOf('<', at)
          text(chunk.slice(at, lt < 0 ? chunk.length : lt))
          if (lt < 0) break
          inMarkup = true
          markup = '<'
          at = lt + 1
          continue
        }
        if (!kind) {
          // The first characters say what the markup is; then it is read in runs up to what can end it.
          markup += chunk[at++]
          kind = classify(markup)
          continue
        }
        if (kind === 'tag') {
          if (quote) {
            const q = chunk.indexOf(quote, at)
            const stop = q < 0 ? chunk.length : q + 1
            append(chunk.slice(at, stop))
            at = stop
            if (q >= 0) quote = ''
            continue
          }
          TAG_STOP.lastIndex = at
          const found = TAG_STOP.exec(chunk)
          const stop = found ? found.index + 1 : chunk.length
          append(chunk.slice(at, stop))
          at = stop
          const c = found?.[0]
          if (c === '"' || c === "'") quote = c
          else if (c === '>') finish()
          else if (c === '<') throw new MalformedXml(`a '<' inside the tag ${JSON.stringify(markup.slice(0, 40))}`)
          continue
        }
        const gt = chunk.indexOf('>', at)
        const stop = gt < 0 ? chunk.length : gt + 1
        append(chunk.slice(at, stop))
        at = stop
        if (gt >= 0 && markup.length >= MIN_LENGTH[kind] && markup.endsWith(TERMINATOR[kind])) finish()
      }
      if (events.length) yield* events.splice(0)
    }
  } catch (error) {
    // The elements closed before the fault in the same chunk are given first: they stand.
    yield* events.splice(0)
    throw error
  }
  if (inMarkup) throw new MalformedXml(`the input ends inside ${JSON.stringify(markup.slice(0, 40))}`)
  if (names.length) throw new MalformedXml(`the input ends inside <${names.at(-1)}>`)

  function finish() {
    const tag = markup
    inMarkup = false
    markup = ''
    kind = ''
    complete(tag)
  }

  function append(part: string) {
    markup += part
    if (markup.length > maxChars) throw new MalformedXml(`markup longer than ${maxChars} characters`)
  }
}

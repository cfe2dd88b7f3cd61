/**
 * Checks a request body before any XML parser sees it: no DOCTYPE (so no DTD, no external
 * entity, no entity expansion), no nesting deeper than TAXII needs. One linear pass over the
 * text with constant memory; the size limit is the route's body limit.
 */
import { badMessage } from './errors.js'

/** TAXII 1.1 requests nest at most about ten levels (a Poll_Request with a Default Query). */
export const MAX_DEPTH = 32

export function guardXml(text: string): void {
  let depth = 0
  let i = text.indexOf('<')
  while (i !== -1) {
    const next = text.charCodeAt(i + 1)
    if (next === 0x21 /* ! */) {
      if (text.startsWith('<!--', i)) i = skipPast(text, '-->', i + 4)
      else if (text.startsWith('<![CDATA[', i)) i = skipPast(text, ']]>', i + 9)
      // <!DOCTYPE, <!ENTITY and every other declaration: TAXII messages never need one.
      else throw badMessage('DTDs and entity declarations are not accepted')
    } else if (next === 0x3f /* ? */) {
      i = skipPast(text, '?>', i + 2)
    } else if (next === 0x2f /* / */) {
      depth--
      i = skipPast(text, '>', i + 2)
    } else {
      const end = tagEnd(text, i + 1)
      if (text.charCodeAt(end - 1) !== 0x2f) {
        depth++
        if (depth > MAX_DEPTH) throw badMessage(`The message nests deeper than ${MAX_DEPTH} elements`)
      }
      i = end + 1
    }
    i = text.indexOf('<', i)
  }
}

function skipPast(text: string, marker: string, from: number): number {
  const at = text.indexOf(marker, from)
  if (at === -1) throw badMessage('Malformed XML: an unterminated markup section')
  return at + marker.length
}

/** Index of the `>` closing a start tag; `>` may occur inside quoted attribute values. */
function tagEnd(text: string, from: number): number {
  let quote = 0
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (quote) {
      if (c === quote) quote = 0
    } else if (c === 0x22 || c === 0x27) {
      quote = c
    } else if (c === 0x3e) {
      return i
    }
  }
  throw badMessage('Malformed XML: an unterminated start tag')
}

import { XMLParser } from 'fast-xml-parser'

/**
 * A parser that gives XML back as it was written: elements in order, no value converted or trimmed,
 * CDATA and comments kept apart. Numeric character references (`&#13;`) are decoded; a DTD never
 * reaches it (its callers refuse one before parsing), so no entity is defined by the input.
 */
export function verbatimXmlParser(attributeNamePrefix: string): XMLParser {
  return new XMLParser({
    preserveOrder: true,
    ignoreAttributes: false,
    attributeNamePrefix,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: false,
    processEntities: true,
    htmlEntities: true,
    ignoreDeclaration: true,
    ignorePiTags: true,
    cdataPropName: '#cdata',
    commentPropName: '#comment',
  })
}

/**
 * Escaping for XML built as text. Characters XML 1.0 cannot carry at all (most C0 controls,
 * lone surrogates, U+FFFE/U+FFFF) are replaced by U+FFFD: an Indicator value holding one must
 * not make the whole Poll_Response unreadable.
 */
const SPECIAL =
  /[&<>"'\r\n\t]|[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

const TEXT: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '"',
  "'": "'",
  '\r': '&#13;',
  '\n': '\n',
  '\t': '\t',
}
const ATTRIBUTE: Record<string, string> = { ...TEXT, '"': '&quot;', "'": '&apos;', '\n': '&#10;', '\t': '&#9;' }

/** Element content. */
export function xmlText(value: string): string {
  return value.replace(SPECIAL, (c) => TEXT[c] ?? '\uFFFD')
}

/** An attribute value between double quotes; newlines and tabs survive attribute normalisation. */
export function xmlAttr(value: string): string {
  return value.replace(SPECIAL, (c) => ATTRIBUTE[c] ?? '\uFFFD')
}

/**
 * XML for the v2 API, in the platform's documented shape: a `<{name}Response>` root,
 * `<Status>`, then `<Data xsi:type="…">` holding PascalCase elements; arrays repeat their
 * element. Request bodies in XML are read back into the camelCase objects JSON would give.
 */
import { XMLBuilder, XMLParser } from 'fast-xml-parser'
import { invalid } from '../../core/errors.js'
import { MAX_INPUT_DEPTH, checkInputShape } from '../../core/input.js'

const XSI = 'http://www.w3.org/2001/XMLSchema-instance'

/** Keys the platform leaves in camelCase inside XML (custom indicator type extras). */
const CAMEL_KEYS = new Set([
  'casePreference',
  'value1Label',
  'value1Type',
  'value2Label',
  'value2Type',
  'value3Label',
  'value3Type',
  'value3Option',
])

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  suppressEmptyNode: true,
  format: false,
  processEntities: true,
})
const parser = new XMLParser({
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: true,
  processEntities: true,
  isArray: () => false,
})

/** Element name for a JSON key; custom type fields such as `Key Name` lose their spaces (`KeyName`). */
export function pascal(key: string): string {
  if (CAMEL_KEYS.has(key)) return key
  const name = key.replace(/[^A-Za-z0-9_.-]+/g, '')
  return name.charAt(0).toUpperCase() + name.slice(1)
}

function toXmlValue(value: unknown): unknown {
  if (value === null || value === undefined) return undefined
  if (Array.isArray(value)) return value.map(toXmlValue)
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (v === undefined || v === null) continue
      out[pascal(k)] = toXmlValue(v)
    }
    return out
  }
  return String(value)
}

/**
 * Renders a v2 success body. `data` is exactly what the JSON form carries under `data`.
 * @example renderV2Xml('owner', true, { resultCount: 1, owner: [{ id: 1, name: 'Org', type: 'Organization' }] })
 */
export function renderV2Xml(entity: string, list: boolean, data: Record<string, unknown>): string {
  const inner = toXmlValue(data) as Record<string, unknown>
  const root = list ? `${plural(entity)}Response` : `${entity}Response`
  const typeName = list ? `${entity}ListResponseData` : `${entity}ResponseData`
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>${builder.build({
    [root]: { Status: 'Success', Data: { '@xsi:type': typeName, '@xmlns:xsi': XSI, ...inner } },
  })}`
}

export function renderPlainXml(root: string, body: Record<string, unknown>): string {
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>${builder.build({ [root]: toXmlValue(body) })}`
}

export function plural(entity: string): string {
  if (entity.endsWith('y') && !/[aeiou]y$/.test(entity)) return `${entity.slice(0, -1)}ies`
  if (/(s|x|ch|sh)$/.test(entity)) return `${entity}es`
  return `${entity}s`
}

function camel(key: string): string {
  return key.charAt(0).toLowerCase() + key.slice(1)
}

function fromXmlValue(value: unknown, depth = 0): unknown {
  // Checked here as well as by checkInputShape: this copy recurses, so a deep document must stop it first.
  if (depth > MAX_INPUT_DEPTH) throw invalid(`The input is nested more than ${MAX_INPUT_DEPTH} levels deep`)
  if (Array.isArray(value)) return value.map((v) => fromXmlValue(v, depth + 1))
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [camel(k), fromXmlValue(v, depth + 1)]))
  }
  return value
}

/** Parses an XML request body into the object its JSON twin would be (root element unwrapped). */
export function parseXmlBody(text: string): unknown {
  if (!text.trim()) return {}
  let doc: Record<string, unknown>
  try {
    doc = parser.parse(text, true) as Record<string, unknown>
  } catch (error) {
    throw invalid(`Malformed XML body: ${(error as Error).message.split('\n')[0]}`)
  }
  const roots = Object.keys(doc).filter((k) => k !== '?xml')
  if (roots.length !== 1) throw invalid('Malformed XML body: expected exactly one root element')
  const body = fromXmlValue(typeof doc[roots[0]] === 'object' && doc[roots[0]] !== null ? doc[roots[0]] : {})
  checkInputShape(body)
  return body
}

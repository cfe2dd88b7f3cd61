/**
 * The TAXII 1.1 puller: a collection polled in windows of at most 24 hours, oldest first, each
 * Poll_Response (and each Poll_Fulfillment part after one saying more="true") one page of the
 * content blocks' STIX 1.x packages (docs/feeds.md, "TAXII 2.1 and TAXII 1.1 feeds").
 *
 * Why the cursor is lossless. A window is (begin, end]: Exclusive_Begin_Timestamp_Label and
 * Inclusive_End_Timestamp_Label, so consecutive windows neither overlap nor leave a gap. The
 * cursor is the end of the last window whose every part is stored; a page of a part before the
 * last keeps the window's begin, so a pull stopped inside a window polls the whole window again
 * (the batch writer finds what was stored `unchanged`: no duplicates). A result id, like a TAXII
 * 2.1 `next`, is the server's state and is never kept. When the server says it served a window
 * only up to an earlier end (Bulwark serves an end in the future as its now, and says so), the
 * cursor is that end, so what the server stamps after it comes with the next window.
 *
 * Where a first pull starts: the feed's importFrom, else DEFAULT_LOOKBACK_DAYS before the run (a
 * TAXII 1.1 server may hold years, and every 24 hours of them is one more request).
 */
import { randomUUID } from 'node:crypto'
import { invalid, notFound } from '../../core/errors.js'
import type { FeedHttp, PullContext, PullPage, Puller } from '../../domain/feeds/pull.js'
import { STIX1_PACKAGE_LISTS } from '../../formats/stix1/read.js'
import { verbatimXmlParser, xmlAttr, xmlText } from '../../formats/xml-text.js'

/** TAXII 1.1.1 identifiers (Part 3 and 4; libtaxii's constants): the strings servers compare byte for byte. */
export const TAXII11_NS = 'http://taxii.mitre.org/messages/taxii_xml_binding-1.1'
const MESSAGE_BINDING = 'urn:taxii.mitre.org:message:xml:1.1'
const SERVICES_VERSION = 'urn:taxii.mitre.org:services:1.1'
const PROTOCOLS: Record<string, string> = {
  'https:': 'urn:taxii.mitre.org:protocol:https:1.0',
  'http:': 'urn:taxii.mitre.org:protocol:http:1.0',
}
/** The STIX 1.x content a poll asks for; the STIX 1 reader reads a STIX_Package of any of them. */
const STIX_BINDINGS = [
  'urn:stix.mitre.org:xml:1.1.1',
  'urn:stix.mitre.org:xml:1.2',
  'urn:stix.mitre.org:xml:1.1',
  'urn:stix.mitre.org:xml:1.0.1',
  'urn:stix.mitre.org:xml:1.0',
]

/** The reader of STIX 1.x packages in formats/ (stix1). */
export const STIX1_FORMAT = 'stix1'

export const WINDOW_MS = 24 * 3_600_000
export const DEFAULT_LOOKBACK_DAYS = 30

/** What a TAXII 1.1 feed keeps between pulls. */
export interface Taxii11Cursor {
  /** The collection the cursor is of: a feed moved to another collection starts again. */
  collection: string
  /** The end of the last window stored whole (ISO 8601): the next poll's exclusive begin. */
  end: string
}

export function createTaxii11Puller(): Puller {
  return { pull: pullTaxii11 }
}

async function* pullTaxii11(context: PullContext): AsyncIterable<PullPage> {
  const { feed, http, signal } = context
  const collection = feed.settings.collection?.trim()
  if (!collection) throw invalid('A TAXII 1.1 feed needs the collection to poll (settings.collection)')
  const pollUrl = feed.settings.pollUrl ?? (await findPollService(http, feed.url, collection))
  const now = Date.parse(context.now)
  const stored =
    context.cursor?.collection === collection && typeof context.cursor.end === 'string'
      ? Date.parse(context.cursor.end)
      : Number.NaN
  const imported = feed.importFrom === undefined ? Number.NaN : Date.parse(feed.importFrom)
  let begin = !Number.isNaN(stored)
    ? stored
    : !Number.isNaN(imported)
      ? imported
      : now - DEFAULT_LOOKBACK_DAYS * 24 * 3_600_000
  /** The cursor of the last page given; an empty window moves `begin` past it without a page. */
  let committed = begin
  let fetched = 0
  let pageNumber = 0
  const page = (content: AsyncIterable<string>, items: number, cursorAt: number, what: string): PullPage => ({
    format: STIX1_FORMAT,
    content,
    name: `page ${++pageNumber} (${what})`,
    fetched: items,
    cursor: { collection, end: new Date(cursorAt).toISOString() } satisfies Taxii11Cursor,
  })

  while (begin < now && fetched < context.remaining) {
    if (signal.aborted) return
    const end = Math.min(begin + WINDOW_MS, now)
    const window = `${new Date(begin).toISOString()} to ${new Date(end).toISOString()}`
    let response = readPollResponse(
      await exchange(http, pollUrl, pollRequest(collection, begin, end), `the poll of '${collection}'`),
      collection,
    )
    for (let part = 1; ;) {
      const served = response.end !== undefined && response.end > begin && response.end < end ? response.end : end
      const cursorAt = response.more ? begin : served
      if (response.packages.length > 0) {
        const items = response.packages.reduce((sum, p) => sum + p.items, 0)
        yield page(packagesText(response.packages), items, cursorAt, `${window}, part ${part}`)
        committed = cursorAt
        fetched += items
      }
      if (!response.more) {
        begin = served
        break
      }
      if (signal.aborted) return
      if (!response.resultId)
        throw invalid(`The TAXII 1.1 server said more="true" without a result_id for '${collection}' (${window})`)
      part++
      response = readPollResponse(
        await exchange(
          http,
          pollUrl,
          pollFulfillment(collection, response.resultId, part),
          `part ${part} of the poll of '${collection}'`,
        ),
        collection,
      )
    }
  }
  // Windows with nothing in them moved `begin` on; one empty page keeps that, so they are not polled again.
  if (begin !== committed && !signal.aborted) yield page(empty(), 0, begin, 'empty windows')
}

async function* empty(): AsyncIterable<string> {}

/** Each content block's STIX_Package, whole and declaring every namespace it uses, one after the other. */
async function* packagesText(packages: StixPackage[]): AsyncIterable<string> {
  for (const p of packages) yield p.text
}

/** Discovery, then Collection Information, for the poll service of `collection`. */
async function findPollService(http: FeedHttp, discoveryUrl: string, collection: string): Promise<string> {
  const discovery = await exchange(http, discoveryUrl, message('Discovery_Request'), 'discovery')
  expectRoot(discovery, 'Discovery_Response', 'discovery')
  const services = elements(discovery, 'Service_Instance')
    .filter((s) => s.attrs.available !== 'false' && speaksXml11(s))
    .map((s) => ({ type: s.attrs.service_type, address: addressOf(s, discoveryUrl) }))
    .filter((s): s is { type: string; address: string } => s.address !== undefined)
  const management = services.find((s) => s.type === 'COLLECTION_MANAGEMENT')
  if (management) {
    const info = await exchange(
      http,
      management.address,
      message('Collection_Information_Request'),
      'collection information',
    )
    expectRoot(info, 'Collection_Information_Response', 'collection information')
    const collections = elements(info, 'Collection')
    const folded = collection.toLowerCase()
    const found =
      collections.find((c) => c.attrs.collection_name === collection) ??
      onlyOne(collections.filter((c) => c.attrs.collection_name?.toLowerCase() === folded))
    if (!found) {
      const names = collections.map((c) => c.attrs.collection_name).join(', ') || 'none'
      throw notFound(`The TAXII 1.1 collection '${collection}' is not at ${safeUrl(discoveryUrl)}: it offers ${names}`)
    }
    const polling = elements(found, 'Polling_Service')
      .filter(speaksXml11)
      .map((p) => addressOf(p, management.address))
      .find((a) => a !== undefined)
    if (polling) return polling
  }
  const poll = services.find((s) => s.type === 'POLL')
  if (!poll) throw invalid(`${safeUrl(discoveryUrl)} offers no TAXII 1.1 poll service (XML 1.1 message binding)`)
  return poll.address
}

function speaksXml11(service: XmlElement): boolean {
  const bindings = elements(service, 'Message_Binding').map(textOf)
  return bindings.length === 0 || bindings.includes(MESSAGE_BINDING)
}

function addressOf(service: XmlElement, base: string): string | undefined {
  const address = elements(service, 'Address').map(textOf)[0]?.trim()
  if (!address) return undefined
  try {
    return new URL(address, base).toString()
  } catch {
    return undefined
  }
}

const onlyOne = <T>(list: T[]): T | undefined => (list.length === 1 ? list[0] : undefined)

// ---- messages ---------------------------------------------------------------------------------

function message(name: string, attrs: Record<string, string> = {}, inner = ''): string {
  const all = { 'xmlns:taxii_11': TAXII11_NS, message_id: randomUUID(), ...attrs }
  const text = Object.entries(all)
    .map(([k, v]) => ` ${k}="${xmlAttr(v)}"`)
    .join('')
  return `<?xml version="1.0" encoding="UTF-8"?><taxii_11:${name}${text}>${inner}</taxii_11:${name}>`
}

const el = (name: string, text: string) => `<taxii_11:${name}>${xmlText(text)}</taxii_11:${name}>`

function pollRequest(collection: string, begin: number, end: number): string {
  const bindings = STIX_BINDINGS.map((b) => `<taxii_11:Content_Binding binding_id="${xmlAttr(b)}"/>`).join('')
  return message(
    'Poll_Request',
    { collection_name: collection },
    el('Exclusive_Begin_Timestamp', new Date(begin).toISOString()) +
      el('Inclusive_End_Timestamp', new Date(end).toISOString()) +
      `<taxii_11:Poll_Parameters allow_asynch="false">${el('Response_Type', 'FULL')}${bindings}</taxii_11:Poll_Parameters>`,
  )
}

function pollFulfillment(collection: string, resultId: string, part: number): string {
  return message('Poll_Fulfillment', {
    collection_name: collection,
    result_id: resultId,
    result_part_number: String(part),
  })
}

/** POSTs a TAXII 1.1 message (the HTTP binding's headers) and reads the answer; a Status_Message is an error. */
async function exchange(http: FeedHttp, url: string, body: string, what: string): Promise<XmlElement> {
  const protocol = PROTOCOLS[new URL(url).protocol] ?? PROTOCOLS['https:']
  const response = await http.request(url, {
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/xml',
      accept: 'application/xml',
      'x-taxii-content-type': MESSAGE_BINDING,
      'x-taxii-accept': MESSAGE_BINDING,
      'x-taxii-services': SERVICES_VERSION,
      'x-taxii-protocol': protocol,
    },
  })
  const root = parseXml(await response.text(), `${what} (${safeUrl(url)})`)
  if (root.ns !== TAXII11_NS)
    throw invalid(`${what} at ${safeUrl(url)} did not answer with a TAXII 1.1 message (root ${root.name})`)
  if (root.local === 'Status_Message') {
    const status = root.attrs.status_type ?? 'UNKNOWN'
    const said = elements(root, 'Message').map(textOf)[0]?.trim()
    const text = `${what} at ${safeUrl(url)} answered ${status}${said ? `: ${said.slice(0, 300)}` : ''}`
    throw status === 'NOT_FOUND' ? notFound(text) : invalid(text)
  }
  return root
}

function expectRoot(root: XmlElement, name: string, what: string): void {
  if (root.local !== name) throw invalid(`${what} answered ${root.local}, not ${name}`)
}

interface StixPackage {
  text: string
  /** The package's items (Indicators, Observables, TTPs …), for the run's count. */
  items: number
}

interface PollResult {
  more: boolean
  resultId?: string
  /** The Inclusive_End_Timestamp the server says it served to (ms), when it says one. */
  end?: number
  packages: StixPackage[]
}

function readPollResponse(root: XmlElement, collection: string): PollResult {
  expectRoot(root, 'Poll_Response', `the poll of '${collection}'`)
  const endText = elements(root, 'Inclusive_End_Timestamp').map(textOf)[0]?.trim()
  const end = endText ? Date.parse(endText) : Number.NaN
  const packages: StixPackage[] = []
  for (const block of elements(root, 'Content_Block')) {
    for (const content of elements(block, 'Content')) {
      const stix = content.children.find((c): c is XmlElement => 'local' in c && c.local === 'STIX_Package')
      if (stix) {
        packages.push({ text: serialize(stix, true), items: itemsOf(stix) })
        continue
      }
      // Some servers carry the package as escaped text rather than as XML.
      const text = content.children
        .map((c) => ('text' in c ? c.text : ''))
        .join('')
        .trim()
        .replace(/^<\?xml[^>]*\?>\s*/, '')
      if (/^<([\w.-]+:)?STIX_Package[\s>]/.test(text)) {
        const parsed = parseXml(text, 'a content block')
        packages.push({ text: serialize(parsed, true), items: itemsOf(parsed) })
      }
    }
  }
  return {
    more: root.attrs.more === 'true' || root.attrs.more === '1',
    resultId: root.attrs.result_id,
    end: Number.isNaN(end) ? undefined : end,
    packages,
  }
}

function itemsOf(stixPackage: XmlElement): number {
  let count = 0
  for (const child of stixPackage.children)
    if ('local' in child && STIX1_PACKAGE_LISTS.has(child.local))
      count += child.children.filter((c) => 'local' in c).length
  return count
}

// ---- XML --------------------------------------------------------------------------------------

type XmlNode = XmlElement | { text: string } | { cdata: string } | { comment: string }

interface XmlElement {
  /** As written, prefix included. */
  name: string
  local: string
  ns: string | undefined
  attrs: Record<string, string>
  children: XmlNode[]
  /** The namespace declarations in scope, by prefix ('' the default). */
  scope: Map<string, string>
}

const parser = verbatimXmlParser('@_')

type Parsed = Record<string, unknown>

/** The document's root element, namespaces resolved. A DTD is refused: a feed's XML never needs one. */
function parseXml(text: string, what: string): XmlElement {
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw invalid(`${what} holds a DTD, which is not accepted`)
  let nodes: Parsed[]
  try {
    nodes = parser.parse(text) as Parsed[]
  } catch (error) {
    throw invalid(`${what} is not XML: ${(error as Error).message.split('\n')[0]}`)
  }
  const root = nodes.map((n) => toElement(n, new Map())).find((n): n is XmlElement => n !== undefined && 'local' in n)
  if (!root) throw invalid(`${what} holds no XML element`)
  return root
}

function toElement(node: Parsed, parentScope: Map<string, string>): XmlNode | undefined {
  if ('#text' in node) return { text: String(node['#text']) }
  if ('#cdata' in node) return { cdata: innerText(node['#cdata']) }
  if ('#comment' in node) return { comment: innerText(node['#comment']) }
  const name = Object.keys(node).find((k) => k !== ':@')
  if (!name) return undefined
  const attrs: Record<string, string> = {}
  for (const [k, v] of Object.entries((node[':@'] as Record<string, unknown> | undefined) ?? {}))
    attrs[k.slice(2)] = String(v)
  let scope = parentScope
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'xmlns' || k.startsWith('xmlns:')) {
      if (scope === parentScope) scope = new Map(parentScope)
      scope.set(k === 'xmlns' ? '' : k.slice(6), v)
    }
  }
  const colon = name.indexOf(':')
  const element: XmlElement = {
    name,
    local: colon === -1 ? name : name.slice(colon + 1),
    ns: scope.get(colon === -1 ? '' : name.slice(0, colon)),
    attrs,
    children: [],
    scope,
  }
  for (const child of (node[name] as Parsed[] | undefined) ?? []) {
    const converted = toElement(child, scope)
    if (converted) element.children.push(converted)
  }
  return element
}

function innerText(value: unknown): string {
  return Array.isArray(value) ? value.map((v) => String((v as Parsed)['#text'] ?? '')).join('') : String(value ?? '')
}

/** The child elements of `parent` in the TAXII 1.1 namespace called `local`. */
function elements(parent: XmlElement, local: string): XmlElement[] {
  return parent.children.filter((c): c is XmlElement => 'local' in c && c.local === local && c.ns === TAXII11_NS)
}

function textOf(element: XmlElement): string {
  return element.children.map((c) => ('text' in c ? c.text : 'cdata' in c ? c.cdata : '')).join('')
}

/**
 * The element as XML text. As the root of a package taken out of its message it declares every
 * namespace in scope, its own and its ancestors': prefixes are used in attribute values too
 * (`xsi:type="indicator:IndicatorType"`), where no parser could tell which are needed.
 */
function serialize(element: XmlElement, standalone = false): string {
  let out = `<${element.name}`
  if (standalone) {
    for (const [prefix, uri] of element.scope) {
      const key = prefix === '' ? 'xmlns' : `xmlns:${prefix}`
      if (!(key in element.attrs)) out += ` ${key}="${xmlAttr(uri)}"`
    }
  }
  for (const [k, v] of Object.entries(element.attrs)) out += ` ${k}="${xmlAttr(v)}"`
  if (element.children.length === 0) return `${out}/>`
  out += '>'
  for (const child of element.children) {
    if ('local' in child) out += serialize(child)
    else if ('text' in child) out += xmlText(child.text)
    else if ('cdata' in child) out += `<![CDATA[${child.cdata.replaceAll(']]>', ']]]]><![CDATA[>')}]]>`
    else out += `<!--${child.comment.replaceAll('--', '- -')}-->`
  }
  return `${out}</${element.name}>`
}

/** A URL for a message: no credentials, no query. */
function safeUrl(url: string): string {
  try {
    const u = new URL(url)
    return `${u.origin}${u.pathname}`
  } catch {
    return '(the feed URL)'
  }
}

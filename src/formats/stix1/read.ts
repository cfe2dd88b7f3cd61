/**
 * STIX 1.x packages (1.0 to 1.2), read: each `stix:Indicator` and each top-level
 * `cybox:Observable` becomes the Indicators of its CybOX objects, read back as stix.ts writes
 * them; the items of the other lists (TTPs, Campaigns, Threat_Actors …) are skipped by their kind.
 * The packages stream (xml-stream.ts): memory holds one item of one package, never more than
 * MAX_ITEM_CHARS of it. Elements are matched by local name, whatever their prefix and whichever
 * STIX or CybOX version's namespace they are in; an object's kind is its `xsi:type`'s local part.
 * docs/import.md, section STIX 1.x.
 */
import { XMLValidator } from 'fast-xml-parser'
import { invalid } from '../../core/errors.js'
import { parseApiTime } from '../../core/time.js'
import { composeSummary, findIndicatorType } from '../../model/indicator-types.js'
import type { ElementItems, Format, ReadEvent, ReadIndicator, ReadOptions, TextChunks } from '../format.js'
import { verbatimXmlParser } from '../xml-text.js'
import { STIX_EXTRA_ATTRIBUTE, STIX_ID_ATTRIBUTE, type TlpLabel, expandHive, tlpLabel } from '../stix2/stix.js'
import { MalformedXml, type ScanEvent, localName, scanElements } from './xml-stream.js'

/** A longer item (or header) is that element's error instead of being read, as a JSON element is (json-array-stream.ts). */
export const MAX_ITEM_CHARS = 4_000_000

/** Observables of a package remembered for the indicators that name them by idref, at most this many. */
const MAX_REMEMBERED = 100_000

/** The lists of a package whose items are read; the other lists' items are skipped by kind. */
const READ_LISTS = new Set(['Indicators', 'Observables'])
/** The lists a STIX 1.x package holds its items in (STIX_Package's children besides its header). */
export const STIX1_PACKAGE_LISTS: ReadonlySet<string> = new Set([
  'Observables',
  'Indicators',
  'TTPs',
  'Exploit_Targets',
  'Incidents',
  'Courses_Of_Action',
  'Campaigns',
  'Threat_Actors',
  'Reports',
])

/** A STIX_Package as the first element of a file's head (after a declaration, comments). */
const STIX1_HEAD = /^\uFEFF?\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*<(?:[\w.-]+:)?STIX_Package[\s/>]/

export const stix1Packages: Format = {
  name: 'stix1',
  detect: (fileName, head) =>
    /\.xml$/i.test(fileName) || (!/\.[^./\\]+$/.test(fileName) && !!head && STIX1_HEAD.test(head())),
  reader: {
    sourceVersions: true,
    read: (input, options) => readStix1(input, options),
  },
}

/** What is known of the package being read, for its items. */
interface PackageState {
  index: number
  /** Its TLP, from its STIX_Header's Handling, for the items without their own. */
  tlp?: TlpLabel
  /** Its timestamp in the stored form (a time that is none is left out, as any date of an item). */
  timestamp?: string
  /** Its top-level observables and objects by id, for indicators naming them (idref). */
  observables: Map<string, Reading>
}

export async function* readStix1(input: TextChunks, options: ReadOptions): AsyncGenerator<ReadEvent> {
  const now = options.now === undefined ? Date.now() : Date.parse(options.now)
  let pkg: PackageState | undefined
  let packages = 0
  let given = 0
  const counts = new Map<string, number>()
  const want = (path: readonly string[]) =>
    path.length === 2 ? localName(path[1]) === 'STIX_Header' : path.length === 3 && READ_LISTS.has(localName(path[1]))
  try {
    for await (const event of scanElements(input, want, MAX_ITEM_CHARS)) {
      const out = onEvent(event)
      if (out) {
        given++
        yield out
      }
    }
  } catch (error) {
    if (!(error instanceof MalformedXml)) throw error
    if (given === 0) throw invalid(`${options.name}: ${error.message}`)
    yield { kind: 'input', error: error.message }
  }

  function onEvent(event: ScanEvent): ReadEvent | undefined {
    const local = localName(event.path.at(-1)!)
    if (event.kind === 'open') {
      if (local !== 'STIX_Package')
        throw new MalformedXml(`a <${event.path[0]}> element where a STIX_Package should be: this is not STIX 1`)
      pkg = { index: packages++, observables: new Map() }
      const timestamp = parseApiTime(/\stimestamp\s*=\s*["']([^"']+)["']/.exec(event.starts[0])?.[1])
      if (timestamp) pkg.timestamp = timestamp
      counts.clear()
      return undefined
    }
    const state = pkg!
    if (event.path.length === 1) {
      pkg = undefined
      return undefined
    }
    const list = localName(event.path[1])
    if (event.path.length === 2) {
      if (list === 'STIX_Header') return readHeader(event, state)
      if (STIX1_PACKAGE_LISTS.has(list)) return undefined
      // Related_Packages and the like: nothing an Indicator is made of.
      return { kind: 'element', where: `packages[${state.index}] ${list}`, indicators: [], skipped: list }
    }
    // The children of the header and of Related_Packages are no items.
    if (!STIX1_PACKAGE_LISTS.has(list)) return undefined
    const n = counts.get(list) ?? 0
    counts.set(list, n + 1)
    const where = `packages[${state.index}] ${list}[${n}]`
    if (!READ_LISTS.has(list)) return { kind: 'element', where, indicators: [], skipped: local }
    if (event.text === undefined)
      return { kind: 'element', where, indicators: [], error: `longer than ${MAX_ITEM_CHARS} characters` }
    let item: El
    try {
      item = parseItem(event)
    } catch (error) {
      return { kind: 'element', where, indicators: [], error: (error as Error).message }
    }
    if (list === 'Observables') {
      if (local !== 'Observable') return { kind: 'element', where, indicators: [], skipped: local }
      return { kind: 'element', where, ...readTopObservable(item, where, state) }
    }
    if (local !== 'Indicator') return { kind: 'element', where, indicators: [], skipped: local }
    return { kind: 'element', where, ...readIndicator(item, where, state, now) }
  }
}

// ---- XML ------------------------------------------------------------------------------------

/** An element as the mapping reads it: names as written, its direct text (CDATA included). */
interface El {
  name: string
  local: string
  attrs: Record<string, string>
  children: El[]
  text: string
}

const parser = verbatimXmlParser('')

type Parsed = Record<string, unknown>

/**
 * The element closed, parsed by itself: nothing here resolves a prefix (elements are matched by
 * local name, xsi:types by their local part), so the namespaces its ancestors declare are not needed.
 */
function parseItem(event: Extract<ScanEvent, { kind: 'close' }>): El {
  const text = event.text ?? ''
  // The parser is lenient (an attribute without a value, say): the validator says what is not XML.
  const valid = XMLValidator.validate(text)
  if (valid !== true) throw new Error(`not well-formed XML: ${valid.err.msg}`)
  let nodes: Parsed[]
  try {
    nodes = parser.parse(text) as Parsed[]
  } catch (error) {
    throw new Error(`not well-formed XML: ${(error as Error).message.split('\n')[0]}`)
  }
  const el = nodes.map(toEl).find((e) => e !== undefined)
  if (!el) throw new Error('not well-formed XML')
  return el
}

function toEl(node: Parsed): El | undefined {
  const name = Object.keys(node).find((k) => k !== ':@')
  if (!name || name === '#text' || name === '#cdata' || name === '#comment') return undefined
  const attrs: Record<string, string> = {}
  for (const [k, v] of Object.entries((node[':@'] as Record<string, unknown> | undefined) ?? {})) attrs[k] = String(v)
  const el: El = { name, local: localName(name), attrs, children: [], text: '' }
  for (const child of (node[name] as Parsed[] | undefined) ?? []) {
    if ('#text' in child) el.text += String(child['#text'])
    else if ('#cdata' in child) el.text += innerText(child['#cdata'])
    else {
      const converted = toEl(child)
      if (converted) el.children.push(converted)
    }
  }
  return el
}

function innerText(value: unknown): string {
  return Array.isArray(value) ? value.map((v) => String((v as Parsed)['#text'] ?? '')).join('') : String(value ?? '')
}

const child = (el: El | undefined, local: string) => el?.children.find((c) => c.local === local)
const children = (el: El | undefined, local: string) => el?.children.filter((c) => c.local === local) ?? []
/** The first element called `local` below `el`, at any depth. */
function descendants(el: El, local: string, out: El[] = []): El[] {
  for (const c of el.children) {
    if (c.local === local) out.push(c)
    descendants(c, local, out)
  }
  return out
}
const textOf = (el: El | undefined) => el?.text.trim() ?? ''

/** The local part of an element's `xsi:type` (any prefix: `AddressObj:AddressObjectType` → AddressObjectType). */
function xsiType(el: El): string | undefined {
  const key = Object.keys(el.attrs).find((k) => k.endsWith(':type'))
  return key === undefined ? undefined : localName(el.attrs[key])
}

// ---- CybOX objects --------------------------------------------------------------------------

/** An Indicator an object holds: its type, value slots, and what else it said that no field holds. */
interface Found {
  type: string
  values: (string | null)[]
  extras?: string[]
}

/** What an observable gives: its Indicators, and why any part of it gave none. */
interface Reading {
  found: Found[]
  errors: string[]
}

/**
 * The values a property element matches: its text, or each entry of a `##comma##` list (its
 * `delimiter`) when it matches ANY of them. Throws for a condition other than Equals.
 */
function valuesOf(el: El): string[] {
  const condition = el.attrs.condition
  if (condition !== undefined && condition.toLowerCase() !== 'equals')
    throw new Error(`${el.name} condition="${condition}" is not read (only Equals makes an Indicator)`)
  const text = textOf(el)
  const delimiter = el.attrs.delimiter || '##comma##'
  if (!text.includes(delimiter)) return text ? [text] : []
  const apply = el.attrs.apply_condition ?? 'ANY'
  if (apply.toUpperCase() !== 'ANY')
    throw new Error(`${el.name} apply_condition="${apply}" over a list is not read (only ANY: one Indicator each)`)
  return text
    .split(delimiter)
    .map((v) => v.trim())
    .filter((v) => v !== '')
}

function required(el: El | undefined, what: string, owner: El): string[] {
  const values = el ? valuesOf(el) : []
  if (!values.length) throw new Error(`the ${xsiType(owner)} has no ${what}`)
  return values
}

const one = (type: string, value: string): Found => ({ type, values: [value, null, null] })

/** The number of an ASN, however written (`64500`, `AS64500`, `ASN64500`), as the ASN type takes it. */
const asn = (value: string) => {
  const digits = /^(?:ASN?)?\s*(\d+)$/i.exec(value)?.[1]
  return digits === undefined ? value : `ASN${digits}`
}

function addressIndicators(props: El): Found[] {
  const category = (props.attrs.category ?? 'ipv4-addr').toLowerCase()
  return required(child(props, 'Address_Value'), 'Address_Value', props).map((value) => {
    switch (category) {
      case 'ipv4-addr':
      case 'ipv6-addr':
        return one(value.includes('/') ? 'CIDR' : 'Address', value)
      case 'ipv4-net':
      case 'ipv6-net':
      case 'cidr':
        return one('CIDR', value)
      case 'e-mail':
        return one('EmailAddress', value)
      case 'asn':
        return one('ASN', asn(value))
      default:
        throw new Error(`an address of category ${category} is not an Indicator Bulwark holds`)
    }
  })
}

const HASH_SLOT: Record<string, number> = { MD5: 0, SHA1: 1, SHA256: 2 }

function fileIndicators(props: El): Found[] {
  const slots: string[][] = [[], [], []]
  const extras: string[] = []
  for (const hash of descendants(props, 'Hash')) {
    const name = textOf(child(hash, 'Type')).toUpperCase().replace(/-/g, '')
    const value = child(hash, 'Simple_Hash_Value') ?? child(hash, 'Fuzzy_Hash_Value')
    if (!value) continue
    const values = valuesOf(value)
    const slot = HASH_SLOT[name]
    if (slot === undefined) extras.push(...values.map((v) => `${name || 'hash'} = ${v}`))
    else slots[slot].push(...values)
  }
  for (const field of ['File_Name', 'File_Path', 'Size_In_Bytes']) {
    const el = child(props, field)
    if (el) extras.push(...valuesOf(el).map((v) => `${field} = ${v}`))
  }
  const used = slots.filter((s) => s.length)
  if (!used.length) throw new Error('a File needs an MD5, SHA1 or SHA256 hash')
  const withExtras = (found: Found): Found => (extras.length ? { ...found, extras } : found)
  if (used.every((s) => s.length === 1)) return [withExtras({ type: 'File', values: slots.map((s) => s[0] ?? null) })]
  // A list of one hash is one File each; a list beside other hashes cannot say which hash goes with which.
  if (used.length > 1) throw new Error('a File with a list of hashes beside other hashes is not read')
  const slot = slots.indexOf(used[0])
  return used[0].map((hash) => {
    const values: (string | null)[] = [null, null, null]
    values[slot] = hash
    return withExtras({ type: 'File', values })
  })
}

function registryIndicators(props: El): Found[] {
  const hive = child(props, 'Hive')
  const hiveText = hive ? (valuesOf(hive)[0] ?? '') : ''
  const keys = child(props, 'Key') ? valuesOf(child(props, 'Key')!) : []
  if (!keys.length && !hiveText) throw new Error('the WindowsRegistryKeyObjectType has no Key')
  const value = child(child(props, 'Values'), 'Value')
  const name = child(value, 'Name')
  const datatype = child(value, 'Datatype')
  const valueName = name ? (valuesOf(name)[0] ?? null) : null
  const valueType = datatype ? (valuesOf(datatype)[0] ?? null) : null
  return (keys.length ? keys : ['']).map((key) => ({
    type: 'Registry Key',
    values: [expandHive(hiveText && key ? `${hiveText}\\${key}` : hiveText || key), valueName, valueType],
  }))
}

/** The Indicators of one cybox:Properties, by its xsi:type. Throws, saying why, for one that makes none. */
function propertiesIndicators(props: El): Found[] {
  const type = xsiType(props)
  if (!type) throw new Error('the object has no xsi:type on its Properties')
  switch (type) {
    case 'AddressObjectType':
      return addressIndicators(props)
    case 'DomainNameObjectType':
      return required(child(props, 'Value'), 'Value', props).map((v) => one('Host', v))
    case 'URIObjectType':
    case 'LinkObjectType': {
      const kind = props.attrs.type ?? 'URL'
      if (kind !== 'URL' && kind !== 'Domain Name') throw new Error(`a URI of type ${kind} is not an Indicator`)
      return required(child(props, 'Value'), 'Value', props).map((v) => one(kind === 'URL' ? 'URL' : 'Host', v))
    }
    case 'EmailMessageObjectType': {
      const header = child(props, 'Header')
      const from = child(header, 'From')
      if (!from) throw new Error('an EmailMessageObjectType without a From address is not read')
      const subject = child(header, 'Subject')
      const extras = subject ? valuesOf(subject).map((s) => `Subject = ${s}`) : []
      return required(child(from, 'Address_Value'), 'From address', props).map((v) => ({
        ...one('EmailAddress', v),
        ...(extras.length ? { extras } : {}),
      }))
    }
    case 'MutexObjectType':
    case 'WindowsMutexObjectType':
      return required(child(props, 'Name'), 'Name', props).map((v) => one('Mutex', v))
    case 'WindowsRegistryKeyObjectType':
      return registryIndicators(props)
    case 'HTTPSessionObjectType': {
      const agents = descendants(props, 'User_Agent').flatMap(valuesOf)
      if (!agents.length) throw new Error('an HTTPSessionObjectType without a User_Agent is not read')
      return agents.map((v) => one('User Agent', v))
    }
    case 'ASObjectType':
      return required(child(props, 'Number'), 'Number', props).map((v) => one('ASN', asn(v)))
    default:
      // FileObjectType and its extensions (Windows, Windows executable, Unix, archive, image, PDF files).
      if (type.endsWith('FileObjectType')) return fileIndicators(props)
      throw new Error(`a CybOX ${type} is not an Indicator Bulwark holds`)
  }
}

/** The Indicators of a cybox:Observable: its Object's, an OR composition's, or those of the observable its idref names. */
function readObservable(obs: El, state: PackageState, depth = 0): Reading {
  const named = obs.attrs.id ? `${obs.attrs.id}: ` : ''
  const fail = (error: string): Reading => ({ found: [], errors: [`${named}${error}`] })
  try {
    const ref = obs.attrs.idref
    if (ref !== undefined && !obs.children.length) {
      const known = state.observables.get(ref)
      return known ?? fail(`${ref} is no observable read before it in its package`)
    }
    if (obs.attrs.negate === 'true' || obs.attrs.negate === '1') return fail('a negated observable is not an Indicator')
    const object = child(obs, 'Object')
    if (object) return readObject(object, state)
    const composition = child(obs, 'Observable_Composition')
    if (composition) {
      const operator = composition.attrs.operator ?? ''
      if (operator.toUpperCase() !== 'OR')
        return fail(`an Observable_Composition with operator ${operator || '(none)'} is not read (only OR)`)
      if (depth > 20) return fail('compositions nested too deep')
      const parts = children(composition, 'Observable').map((o) => readObservable(o, state, depth + 1))
      return { found: parts.flatMap((p) => p.found), errors: parts.flatMap((p) => p.errors) }
    }
    if (child(obs, 'Event')) return fail('a CybOX Event is not read')
    return fail('the observable has no Object')
  } catch (error) {
    return fail((error as Error).message)
  }
}

function readObject(object: El, state: PackageState): Reading {
  const ref = object.attrs.idref
  const props = child(object, 'Properties')
  if (ref !== undefined && !props)
    return state.observables.get(ref) ?? { found: [], errors: [`${ref} is no object read before it in its package`] }
  if (!props) return { found: [], errors: ['the object has no Properties'] }
  try {
    return { found: propertiesIndicators(props), errors: [] }
  } catch (error) {
    return { found: [], errors: [(error as Error).message] }
  }
}

// ---- Items ----------------------------------------------------------------------------------

/** The TLP of a Handling element: its TLPMarkingStructureType colors, the strictest. */
function tlpOf(handling: El | undefined): TlpLabel | undefined {
  if (!handling) return undefined
  const rank = ['TLP:WHITE', 'TLP:CLEAR', 'TLP:GREEN', 'TLP:AMBER', 'TLP:AMBER+STRICT', 'TLP:RED']
  const labels = descendants(handling, 'Marking_Structure')
    .filter((s) => xsiType(s) === 'TLPMarkingStructureType' && s.attrs.color)
    .map((s) => tlpLabel(`TLP:${s.attrs.color}`))
    .filter((l) => l !== undefined)
  return labels.sort((a, b) => rank.indexOf(b.name) - rank.indexOf(a.name))[0]
}

function readHeader(event: Extract<ScanEvent, { kind: 'close' }>, state: PackageState): ReadEvent | undefined {
  const where = `packages[${state.index}] STIX_Header`
  if (event.text === undefined)
    return { kind: 'element', where, indicators: [], error: `longer than ${MAX_ITEM_CHARS} characters` }
  try {
    const header = parseItem(event)
    state.tlp = tlpOf(child(header, 'Handling'))
  } catch (error) {
    return { kind: 'element', where, indicators: [], error: (error as Error).message }
  }
  return undefined
}

/** STIX 2.1 Appendix A's High-Medium-Low scale as 0-100: None 0, Low 15, Medium 50, High 85. */
const CONFIDENCE: Record<string, number> = { NONE: 0, LOW: 15, MEDIUM: 50, HIGH: 85 }

function confidenceOf(el: El | undefined): number | undefined {
  const text = textOf(child(el, 'Value')).toUpperCase()
  if (text in CONFIDENCE) return CONFIDENCE[text]
  return /^\d{1,3}$/.test(text) && Number(text) <= 100 ? Number(text) : undefined
}

/** An Indicator of an item as the batch file holds it: type, summary, value slots, the item's fields. */
function batchItem(found: Found, fields: Record<string, unknown>, id: string | undefined): Record<string, unknown> {
  const def = findIndicatorType(found.type)!
  const item: Record<string, unknown> = { type: found.type, summary: composeSummary(def, found.values) }
  // By slot too: a summary cannot say which field a lone second value is (a Registry Key's value type without a value name).
  if (def.fields.length > 1)
    found.values.forEach((value, slot) => {
      if (value !== null) item[`value${slot + 1}`] = value
    })
  Object.assign(item, fields)
  const attributes = [
    ...(id ? [{ type: STIX_ID_ATTRIBUTE, value: id }] : []),
    ...(found.extras ?? []).map((value) => ({ type: STIX_EXTRA_ATTRIBUTE, value })),
  ]
  if (attributes.length) item.attribute = attributes
  return item
}

function items(reading: Reading, where: string, fields: (found: Found) => Record<string, unknown>, id?: string) {
  const indicators: ReadIndicator[] = reading.found.map((found, i) => ({
    where: i === 0 ? where : `${where} (value ${i + 1})`,
    indicator: batchItem(found, fields(found), id),
  }))
  const out: ElementItems = { indicators }
  if (reading.errors.length) out.error = reading.errors.join('; ')
  return out
}

/**
 * A top-level observable: its Indicators with its id as External ID and the package's TLP. It
 * says nothing of dates or validity, so its items set no field (as a STIX 2 SCO's). Remembered
 * for the indicators after it that name it.
 */
function readTopObservable(obs: El, where: string, state: PackageState): ElementItems {
  const reading = readObservable(obs, state)
  if (state.observables.size < MAX_REMEMBERED) {
    if (obs.attrs.id) state.observables.set(obs.attrs.id, reading)
    const objectId = child(obs, 'Object')?.attrs.id
    if (objectId) state.observables.set(objectId, reading)
  }
  const tlp = state.tlp
  return items(reading, where, () => (tlp ? { securityLabel: [tlp] } : {}), obs.attrs.id || undefined)
}

function readIndicator(el: El, where: string, state: PackageState, now: number): ElementItems {
  const named = el.attrs.id ? `${el.attrs.id}: ` : ''
  if (el.attrs.idref !== undefined && !el.children.length) return { indicators: [], skipped: 'Indicator reference' }
  if (child(el, 'Composite_Indicator_Expression'))
    return { indicators: [], error: `${named}a Composite_Indicator_Expression is not read` }
  const observables = children(el, 'Observable')
  if (!observables.length) return { indicators: [], error: `${named}the indicator has no Observable` }
  const parts = observables.map((o) => readObservable(o, state))
  const reading: Reading = { found: parts.flatMap((p) => p.found), errors: parts.flatMap((p) => p.errors) }
  if (!reading.found.length) return { indicators: [], error: `${named}${reading.errors.join('; ')}` }

  const fields: Record<string, unknown> = {}
  const title = textOf(child(el, 'Title'))
  const descriptions = [...children(el, 'Description'), ...children(el, 'Short_Description')]
    .map(textOf)
    .filter((d) => d !== '')
  const confidence = confidenceOf(child(el, 'Confidence'))
  if (confidence !== undefined) fields.confidence = confidence
  let start: string | undefined
  let end: string | undefined
  for (const position of children(el, 'Valid_Time_Position')) {
    const s = parseApiTime(textOf(child(position, 'Start_Time')))
    const e = parseApiTime(textOf(child(position, 'End_Time')))
    if (s && (!start || s < start)) start = s
    if (e && (!end || e > end)) end = e
  }
  if (start) fields.firstSeen = start
  if (end) fields.externalDateExpires = end
  // Always said: a newer version whose validity was extended makes an expired Indicator active again.
  fields.active = !(end && Date.parse(end) <= now)
  const modified = parseApiTime(el.attrs.timestamp) ?? state.timestamp
  if (modified) fields.externalLastModified = modified
  const producer = textOf(child(child(child(el, 'Producer'), 'Identity'), 'Name'))
  if (producer) fields.source = producer
  const tlp = tlpOf(child(el, 'Handling')) ?? state.tlp
  if (tlp) fields.securityLabel = [tlp]
  const out = items(
    reading,
    where,
    (found) => {
      // The title Bulwark writes is the summary: a title saying more is kept with the description.
      const summary = composeSummary(findIndicatorType(found.type)!, found.values)
      const description = [title !== summary ? title : '', ...descriptions].filter((d) => d !== '').join('\n')
      return description ? { ...fields, description } : fields
    },
    el.attrs.id || undefined,
  )
  if (out.error) out.error = `${named}${out.error}`
  return out
}

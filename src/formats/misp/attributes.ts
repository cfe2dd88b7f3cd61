/**
 * MISP attributes and objects as batch items: which attribute types become which Indicators, the
 * attribute's own dates, comment, tags, TLP and uuid, and the event's Group they are associated
 * with. Pure: the event reader (misp.ts) hands in parsed JSON and the event's context, and takes
 * back Indicators in the V2 batch file's shape, the MISP types it left out, and refusals with
 * their reasons. docs/import.md (section MISP) is the table of this file.
 */
import { parseApiTime } from '../../core/time.js'
import { composeSummary, findIndicatorType } from '../../model/indicator-types.js'
import { TAG_MAX_LENGTH } from '../../domain/metadata/tags.js'
import { STIX_EXTRA_ATTRIBUTE, STIX_ID_ATTRIBUTE, type TlpLabel, markingOf, tlpLabel } from '../stix2/stix.js'
import { quoteValue, valuesOfType } from '../text/values.js'

/** What every attribute of one event shares. */
export interface EventContext {
  /** The event's uuid, its Group's xid: each Indicator is associated with it. */
  groupXid?: string
  /** The event's date (ISO 8601): the source's date of adding its attributes. */
  dateAdded?: string
  /** The creating organisation's name (Orgc): the Indicators' source. */
  source?: string
  /** The event's TLP, for attributes that have none of their own. */
  tlp?: TlpLabel
}

/** The Indicators of one attribute or object, each with the place its errors are named by (after the element's). */
export interface MispReading {
  indicators: { suffix: string; indicator: Record<string, unknown> }[]
  /** The MISP types of attributes left out (no Indicator type holds them), one entry per attribute. */
  skipped: string[]
  /** Why attributes were refused, each naming the attribute. */
  errors: string[]
}

type Attr = Record<string, unknown>

/** MISP types with one value of an Indicator type. */
const SINGLE: Record<string, string> = {
  'ip-src': 'Address',
  'ip-dst': 'Address',
  domain: 'Host',
  hostname: 'Host',
  url: 'URL',
  uri: 'URL',
  'email-src': 'EmailAddress',
  'email-dst': 'EmailAddress',
  email: 'EmailAddress',
  'email-reply-to': 'EmailAddress',
  'whois-registrant-email': 'EmailAddress',
  AS: 'ASN',
  mutex: 'Mutex',
  regkey: 'Registry Key',
  'user-agent': 'User Agent',
}

/** The File hashes Bulwark has a column for, by MISP type, and their slot (value1–value3). */
const HASH_SLOT: Record<string, number> = { md5: 0, sha1: 1, sha256: 2 }

/** Hashes of a file no column holds: kept as attributes of a File an object gives, refused alone. */
const OTHER_HASHES = new Set([
  'sha224',
  'sha384',
  'sha512',
  'sha512/224',
  'sha512/256',
  'sha3-224',
  'sha3-256',
  'sha3-384',
  'sha3-512',
  'ssdeep',
  'imphash',
  'impfuzzy',
  'telfhash',
  'authentihash',
  'vhash',
  'pehash',
  'tlsh',
  'cdhash',
])

const LINK_TYPES = new Set(['link'])

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (typeof value === 'number') return String(value)
  return undefined
}

/** A MISP time (epoch seconds as text or number, or ISO 8601) as ISO 8601; undefined for none. */
export function mispTime(value: unknown): string | undefined {
  if (value === null || value === undefined || value === '') return undefined
  if (typeof value === 'number' || (typeof value === 'string' && /^\d+$/.test(value)))
    return parseApiTime(Number(value)) ?? undefined
  return parseApiTime(value) ?? undefined
}

/** MISP's to_ids: false, 0, "0" and "false" say the value is no indicator to detect with. */
function forDetection(value: unknown): boolean {
  return !(value === false || value === 0 || value === '0' || value === 'false')
}

/** The Security Label of a `tlp:*` tag (`tlp:white` → TLP:WHITE), undefined for any other tag. */
export function tagLabel(name: string): TlpLabel | undefined {
  return /^tlp\s*:/i.test(name) ? tlpLabel(name.replace(/\s+/g, '')) : undefined
}

/** The strictest of several TLP labels. */
export function strictest(labels: readonly TlpLabel[]): TlpLabel | undefined {
  const marking = markingOf(labels.map((l) => l.name))
  return marking && labels.find((l) => markingOf([l.name]) === marking)
}

/** A MISP `Tag` array's names (entries `{name}` or plain text), trimmed, without empties. */
export function tagNames(value: unknown): string[] {
  if (!Array.isArray(value)) return []
  return value
    .map((t) => (t && typeof t === 'object' ? text((t as Attr).name) : text(t)))
    .filter((n): n is string => !!n && n.trim() !== '')
    .map((n) => n.trim())
}

/**
 * Tags and the Security Label of tag names: `tlp:*` the strictest label (else `fallback`), the
 * others tags; a name over the tag limit is left out and said.
 */
export function tagsAndLabel(
  names: readonly string[],
  fallback: TlpLabel | undefined,
  errors: string[],
): { tag?: { name: string }[]; securityLabel?: TlpLabel[] } {
  const labels: TlpLabel[] = []
  const tags: string[] = []
  for (const name of names) {
    const label = tagLabel(name)
    if (label) labels.push(label)
    else if (name.length > TAG_MAX_LENGTH)
      errors.push(`tag ${quoteValue(name)} is not kept: tags are at most ${TAG_MAX_LENGTH} characters`)
    else if (!tags.includes(name)) tags.push(name)
  }
  const label = strictest(labels) ?? fallback
  return {
    ...(tags.length ? { tag: tags.map((name) => ({ name })) } : {}),
    ...(label ? { securityLabel: [label] } : {}),
  }
}

/** An Indicator's identifying fields from its values, or why the values are no such Indicator. */
function identity(typeName: string, values: (string | null)[]): Record<string, unknown> {
  const def = findIndicatorType(typeName)!
  const item: Record<string, unknown> = { type: def.name, summary: composeSummary(def, values) }
  // By slot too where a summary cannot say which field a value is (a Registry Key's value name).
  if (def.fields.length > 1)
    values.forEach((v, slot) => {
      if (v !== null) item[`value${slot + 1}`] = v
    })
  return item
}

/** The values of one MISP value as an Indicator type, or a reason. */
function valuesOf(typeName: string, raw: string, mispType: string): Found {
  let name = typeName
  if (name === 'Address' && raw.includes('/')) name = 'CIDR'
  const def = findIndicatorType(name)!
  let value = raw.trim()
  if (name === 'ASN' && /^\d+$/.test(value)) value = `AS${value}`
  const values =
    name === 'Registry Key' ? [def.normalize(0, value), null, null] : name === 'File' ? null : valuesOfType(def, value)
  if (!values || values[0] === null)
    return `${quoteValue(raw)} is not ${/^[AEIOU]/.test(def.name) ? 'an' : 'a'} ${def.name} (MISP type ${mispType})`
  return { typeName: def.name, values }
}

/** An Indicator's type and values, or why a value is none. */
type Found = { typeName: string; values: (string | null)[] } | string

function fileValues(slot: number, raw: string, mispType: string): Found {
  const def = findIndicatorType('File')!
  const hash = def.normalize(slot, raw.trim())
  if (hash === null) return `${quoteValue(raw)} is not a valid ${mispType.toUpperCase()} hash`
  const values: (string | null)[] = [null, null, null]
  values[slot] = hash
  return { typeName: 'File', values }
}

/** The fields every Indicator of an attribute carries: dates, state, comment, tags and label, uuid, Group. */
function common(
  attr: Attr,
  ctx: EventContext,
  errors: string[],
  extra: { description?: string[]; extras?: string[]; uuid?: unknown } = {},
): Record<string, unknown> {
  const item: Record<string, unknown> = {}
  // Always said: a newer version of an attribute flagged for detection again makes it active again.
  item.active = forDetection(attr.to_ids)
  const description = [text(attr.comment) ?? '', ...(extra.description ?? [])].filter((d) => d.trim() !== '')
  if (description.length) item.description = description.join('\n')
  if (ctx.source) item.source = ctx.source
  if (ctx.dateAdded) item.externalDateAdded = ctx.dateAdded
  const modified = mispTime(attr.timestamp)
  if (modified) item.externalLastModified = modified
  const firstSeen = mispTime(attr.first_seen)
  const lastSeen = mispTime(attr.last_seen)
  if (firstSeen) item.firstSeen = firstSeen
  if (lastSeen) item.lastSeen = lastSeen
  const uuid = text(extra.uuid ?? attr.uuid)
  const attributes = [
    ...(uuid ? [{ type: STIX_ID_ATTRIBUTE, value: uuid }] : []),
    ...(extra.extras ?? []).map((value) => ({ type: STIX_EXTRA_ATTRIBUTE, value })),
  ]
  if (attributes.length) item.attribute = attributes
  Object.assign(item, tagsAndLabel(tagNames(attr.Tag), ctx.tlp, errors))
  if (ctx.groupXid) item.associatedGroups = [{ groupXid: ctx.groupXid }]
  return item
}

/**
 * One attribute (of the event or of an object) as Indicators. `extras` and `occurrences` are a
 * File's, given when an object's other attributes say more about it.
 */
export function readAttribute(attr: unknown, ctx: EventContext): MispReading {
  const out: MispReading = { indicators: [], skipped: [], errors: [] }
  if (!attr || typeof attr !== 'object' || Array.isArray(attr)) {
    out.errors.push('the attribute is not a JSON object')
    return out
  }
  const a = attr as Attr
  const type = text(a.type)
  const raw = text(a.value)
  if (a.deleted === true) return out
  if (!type || raw === undefined) {
    out.errors.push(`the attribute has no ${type ? 'value' : 'type'}`)
    return out
  }
  const named = text(a.uuid) ? `attribute ${String(a.uuid)}: ` : ''
  const add = (suffix: string, found: Found, extra = {}, more: Record<string, unknown> = {}) => {
    if (typeof found === 'string') {
      out.errors.push(`${named}${found}`)
      return
    }
    out.indicators.push({
      suffix,
      indicator: { ...identity(found.typeName, found.values), ...common(a, ctx, out.errors, extra), ...more },
    })
  }
  const single = SINGLE[type]
  if (single) {
    add('', valuesOf(single, raw, type))
    return out
  }
  if (type in HASH_SLOT) {
    add('', fileValues(HASH_SLOT[type], raw, type))
    return out
  }
  const bar = raw.lastIndexOf('|')
  const [left, right] = bar < 0 ? [raw, ''] : [raw.slice(0, bar), raw.slice(bar + 1)]
  const pair = type.split('|')
  if (pair.length === 2 && bar < 0) {
    out.errors.push(`${named}${quoteValue(raw)} is not two values separated by '|' (MISP type ${type})`)
    return out
  }
  switch (type) {
    case 'ip-src|port':
    case 'ip-dst|port':
    case 'hostname|port':
    case 'domain|port': {
      const typeName = pair[0].startsWith('ip') ? 'Address' : 'Host'
      // No Indicator type holds a port: it is said in the description, as the plain-list reader does.
      add('', valuesOf(typeName, left, type), { description: [`port ${right.trim()}`] })
      return out
    }
    case 'domain|ip':
      add('', valuesOf('Host', left, type))
      add(' (ip)', valuesOf('Address', right, type))
      return out
    case 'regkey|value':
      // The part after '|' is the value's data, which no field of a Registry Key holds: kept as an attribute.
      add('', valuesOf('Registry Key', left, type), {
        extras: right.trim() ? [`registry value data: ${right}`] : [],
      })
      return out
  }
  if (pair.length === 2 && pair[0] === 'filename') {
    if (pair[1] in HASH_SLOT) {
      add('', fileValues(HASH_SLOT[pair[1]], right, pair[1]), {}, occurrence(left))
      return out
    }
    if (OTHER_HASHES.has(pair[1])) {
      out.errors.push(`${named}${aloneReason(pair[1])}`)
      return out
    }
  }
  if (OTHER_HASHES.has(type)) {
    out.errors.push(`${named}${aloneReason(type)}`)
    return out
  }
  out.skipped.push(LINK_TYPES.has(type) ? `${type} (a reference, not an indicator)` : type)
  return out
}

function aloneReason(hash: string): string {
  return `a ${hash} hash alone is no File: Bulwark finds Files by MD5, SHA-1 or SHA-256 (a file object that gives one of them keeps the ${hash} as an attribute)`
}

function occurrence(fileName: string, path?: string): Record<string, unknown> {
  const name = fileName.trim()
  if (!name && !path) return {}
  return { fileOccurrence: [{ ...(name ? { fileName: name } : {}), ...(path ? { path } : {}) }] }
}

/**
 * A MISP object's attributes as Indicators. A `file` object's MD5, SHA-1 and SHA-256 are one File,
 * its other hashes kept as that File's attributes and its file name and path as its occurrence;
 * any other object's attributes are read one by one, as the event's are.
 */
export function readObject(object: unknown, ctx: EventContext): MispReading & { attributes: number } {
  const out: MispReading & { attributes: number } = { indicators: [], skipped: [], errors: [], attributes: 0 }
  if (!object || typeof object !== 'object' || Array.isArray(object)) {
    out.errors.push('the object is not a JSON object')
    return out
  }
  const o = object as Attr
  if (o.deleted === true) return out
  const attributes = (Array.isArray(o.Attribute) ? o.Attribute : []).filter(
    (a): a is Attr => !!a && typeof a === 'object' && (a as Attr).deleted !== true,
  )
  out.attributes = attributes.length
  const rest: [number, Attr][] = []
  const hashes: Attr[] = []
  const extras: string[] = []
  let fileName: string | undefined
  let path: string | undefined
  const isFile = o.name === 'file' && attributes.some((a) => (text(a.type) ?? '') in HASH_SLOT)
  attributes.forEach((a, i) => {
    const type = text(a.type) ?? ''
    if (!isFile) rest.push([i, a])
    else if (type in HASH_SLOT) hashes.push(a)
    else if (OTHER_HASHES.has(type)) extras.push(`${type}: ${text(a.value) ?? ''}`)
    else if (type === 'filename' && fileName === undefined) fileName = text(a.value)
    else if (a.object_relation === 'path' && path === undefined) path = text(a.value)
    else rest.push([i, a])
  })
  const objectContext = o.comment && typeof o.comment === 'string' ? o.comment : ''
  if (isFile) {
    const values: (string | null)[] = [null, null, null]
    const named = text(o.uuid) ? `object ${String(o.uuid)}: ` : ''
    for (const h of hashes) {
      const type = text(h.type)!
      const hash = findIndicatorType('File')!.normalize(HASH_SLOT[type], (text(h.value) ?? '').trim())
      if (hash === null) out.errors.push(`${named}${quoteValue(text(h.value) ?? '')} is not a valid ${type} hash`)
      else if (values[HASH_SLOT[type]] === null) values[HASH_SLOT[type]] = hash
      else if (values[HASH_SLOT[type]] !== hash) extras.push(`${type}: ${hash}`)
    }
    if (values.some((v) => v !== null)) {
      // The File is what the object says of it: flagged for detection when any hash is, last changed with the latest.
      const times = hashes.map((h) => mispTime(h.timestamp)).filter((t): t is string => !!t)
      const merged: Attr = {
        to_ids: hashes.some((h) => forDetection(h.to_ids)),
        comment: objectContext || hashes.map((h) => text(h.comment) ?? '').find((c) => c.trim()) || '',
        timestamp: times.sort().at(-1) ?? o.timestamp,
        first_seen: o.first_seen ?? hashes.find((h) => h.first_seen)?.first_seen,
        last_seen: o.last_seen ?? hashes.find((h) => h.last_seen)?.last_seen,
        Tag: hashes.flatMap((h) => (Array.isArray(h.Tag) ? h.Tag : [])),
      }
      out.indicators.push({
        suffix: '',
        indicator: {
          ...identity('File', values),
          ...common(merged, ctx, out.errors, { extras, uuid: o.uuid }),
          ...occurrence(fileName ?? '', path),
        },
      })
    }
  }
  for (const [i, a] of rest) {
    const reading = readAttribute(objectContext && !text(a.comment) ? { ...a, comment: objectContext } : a, ctx)
    out.indicators.push(...reading.indicators.map((r) => ({ ...r, suffix: `.Attribute[${i}]${r.suffix}` })))
    out.skipped.push(...reading.skipped)
    out.errors.push(...reading.errors)
  }
  return out
}

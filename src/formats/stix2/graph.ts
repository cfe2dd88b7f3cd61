/**
 * The STIX objects around the indicators (docs/import.md): the SDOs Bulwark has a Group type for
 * become Groups named by their STIX id (their xid), and relationships and a report's object_refs
 * become associations between those Groups and the Indicators of indicator objects. An
 * association is given as soon as both its ends have been read; one that names an object not
 * read yet is held back (its place and the two ids, nothing more) until that object comes, or
 * until the end of the input.
 */
import { SpillMap } from '../../core/spill-map.js'
import { GROUP_SUBTYPES } from '../../model/group.js'
import type { ReadItem } from '../format.js'
import { killChainAttributes } from './kill-chain.js'
import { STIX_EXTRA_ATTRIBUTE, STIX_ID_ATTRIBUTE, type TlpLabel, stixString, tlpOfObject } from './stix.js'

/**
 * The STIX types imported as Groups, each as the first Group type of model/group.ts that maps to
 * it (`threat-actor` is Adversary's, declared before Threat's).
 */
const SDO_TYPES = [
  'threat-actor',
  'intrusion-set',
  'campaign',
  'malware',
  'tool',
  'attack-pattern',
  'course-of-action',
  'vulnerability',
  'report',
  'incident',
] as const

export const GROUP_TYPE_OF: ReadonlyMap<string, string> = new Map(
  SDO_TYPES.map((type) => {
    const subtype = GROUP_SUBTYPES.find((s) => (s.stix21 as { type?: string }).type === type)
    if (!subtype) throw new Error(`model/group.ts maps no Group type to the STIX type ${type}`)
    return [type, subtype.name]
  }),
)

/** The SCO types whose value an Indicator type holds: each becomes the Indicators of its pattern (patternOfSco). */
export const SCO_TYPES: ReadonlySet<string> = new Set([
  'ipv4-addr',
  'ipv6-addr',
  'domain-name',
  'url',
  'email-addr',
  'mutex',
  'autonomous-system',
  'file',
  'windows-registry-key',
])

/**
 * The pattern that matches an SCO (one of SCO_TYPES), so its value is read as an indicator's
 * is: a file's hashes (any algorithm), name and size ORed (one File with its MD5, SHA-1 and
 * SHA-256, the rest kept as attributes). Undefined for an SCO without its value.
 */
export function patternOfSco(o: Record<string, unknown>): string | undefined {
  const type = o.type as string
  switch (type) {
    case 'mutex':
      return typeof o.name === 'string' && o.name ? `[mutex:name = ${stixString(o.name)}]` : undefined
    case 'autonomous-system':
      return Number.isInteger(o.number) ? `[autonomous-system:number = ${String(o.number)}]` : undefined
    case 'windows-registry-key':
      return typeof o.key === 'string' && o.key ? `[windows-registry-key:key = ${stixString(o.key)}]` : undefined
    case 'file': {
      const hashes = o.hashes && typeof o.hashes === 'object' ? Object.entries(o.hashes as Record<string, unknown>) : []
      const terms = hashes.flatMap(([name, value]) =>
        typeof value === 'string' && value && !name.includes("'")
          ? [`file:hashes.'${name}' = ${stixString(value)}`]
          : [],
      )
      if (typeof o.name === 'string' && o.name) terms.push(`file:name = ${stixString(o.name)}`)
      if (Number.isInteger(o.size)) terms.push(`file:size = ${String(o.size)}`)
      return terms.length ? `[${terms.join(' OR ')}]` : undefined
    }
    default:
      return typeof o.value === 'string' && o.value ? `[${type}:value = ${stixString(o.value)}]` : undefined
  }
}

/** The STIX type of an identifier (`malware--…` → malware). */
export const stixTypeOf = (id: string) => id.slice(0, Math.max(0, id.indexOf('--'))) || id

/** Longest values of the attribute types an import writes (model/reference-data.ts). */
const EXTERNAL_ID_MAX = 255
const SOURCE_MAX = 500
const EXTRA_MAX = 65_500

interface Attribute {
  type: string
  value: string
}

/** An attribute of the type wanted, or Additional Analysis and Context where the value is longer than that type holds. */
function attribute(type: string, max: number, value: string): Attribute | undefined {
  if (value.length <= max) return { type, value }
  return value.length <= EXTRA_MAX ? { type: STIX_EXTRA_ATTRIBUTE, value } : undefined
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined)

/**
 * What an SDO says that a Group has no field for, as attributes: each external reference (its
 * id as `External ID` `<source>: <id>`, its URL as `Source`, a reference with neither as
 * `Additional Analysis and Context`), the confidence, the aliases and the kill chain phases (kill-chain.ts).
 */
function groupAttributes(o: Record<string, unknown>): Attribute[] {
  const out: (Attribute | undefined)[] = []
  const references = Array.isArray(o.external_references) ? o.external_references : []
  for (const ref of references as Record<string, unknown>[]) {
    if (!ref || typeof ref !== 'object') continue
    const source = text(ref.source_name)
    const id = text(ref.external_id)
    const url = text(ref.url)
    if (id) out.push(attribute(STIX_ID_ATTRIBUTE, EXTERNAL_ID_MAX, source ? `${source}: ${id}` : id))
    if (url) out.push(attribute('Source', SOURCE_MAX, url))
    const description = text(ref.description)
    if (!id && !url && (source || description))
      out.push(attribute(STIX_EXTRA_ATTRIBUTE, EXTRA_MAX, [source, description].filter(Boolean).join(': ')))
  }
  if (typeof o.confidence === 'number') out.push({ type: STIX_EXTRA_ATTRIBUTE, value: `confidence: ${o.confidence}` })
  const aliases = Array.isArray(o.aliases) ? o.aliases.filter((a): a is string => typeof a === 'string' && !!a) : []
  if (aliases.length) out.push(attribute(STIX_EXTRA_ATTRIBUTE, EXTRA_MAX, `aliases: ${aliases.join(', ')}`))
  out.push(...killChainAttributes(o))
  const seen = new Set<string>()
  return out.filter((a): a is Attribute => {
    if (!a || seen.has(`${a.type}|${a.value}`)) return false
    seen.add(`${a.type}|${a.value}`)
    return true
  })
}

/**
 * An SDO as a Group of the V2 batch file: its type (GROUP_TYPE_OF), its id as xid, its name, its
 * description as the displayed Description attribute, the source's dates, labels as tags, its TLP marking as Security Label, the rest
 * as attributes. A Report needs a file name (its STIX id with `.json`) and takes its publishDate
 * from `published`; an Incident needs an event date (`first_seen`, else `created`).
 */
export function groupOfSdo(
  o: Record<string, unknown>,
  markings: ReadonlyMap<string, TlpLabel>,
): Record<string, unknown> {
  if (o.spec_version !== undefined && o.spec_version !== '2.1' && o.spec_version !== '2.0')
    throw new Error(`spec_version ${String(o.spec_version)} is not 2.0 or 2.1`)
  if (o.revoked === true) throw new Error(`the ${String(o.type)} is revoked`)
  if (typeof o.id !== 'string' || !o.id.startsWith(`${String(o.type)}--`))
    throw new Error(`the ${String(o.type)} has no id of its type`)
  const type = GROUP_TYPE_OF.get(o.type as string)!
  const item: Record<string, unknown> = { type, xid: o.id, name: o.name }
  const set = (field: string, value: unknown) => {
    if (text(value) !== undefined) item[field] = value
  }
  set('externalDateAdded', o.created)
  set('externalLastModified', o.modified)
  set('firstSeen', o.first_seen)
  set('lastSeen', o.last_seen)
  if (type === 'Report') {
    item.fileName = `${o.id}.json`
    set('publishDate', o.published)
  }
  if (type === 'Incident') set('eventDate', o.first_seen ?? o.created)
  const tags = Array.isArray(o.labels)
    ? [...new Set(o.labels.filter((l): l is string => typeof l === 'string' && l.trim() !== ''))]
    : []
  if (tags.length) item.tag = tags.map((name) => ({ name }))
  const tlp = tlpOfObject(o, markings)
  if (tlp) item.securityLabel = [tlp]
  // A Group's description is its displayed Description attribute, as the API writes it (no body field sets the column).
  const description = text(o.description)
  const attributes = [
    ...(description !== undefined && description.length <= EXTRA_MAX
      ? [{ type: 'Description', value: description, displayed: true }]
      : []),
    ...groupAttributes(o),
  ]
  if (attributes.length) item.attribute = attributes
  return item
}

/** An Indicator as an association's end names it: its type and summary. */
export interface IndicatorKey {
  type: string
  summary: string
}

/** What a sighting says of the Indicators it is a sighting of (an observation of each). */
export interface Sighting {
  count: number
  dateObserved: string
  externalLastModified?: string
  /** Its window, for a sighting of a Group (which widens the Group's firstSeen / lastSeen). */
  firstSeen?: string
  lastSeen?: string
}

/** What a relationship says of its pair beyond its ends: kept on the association (a: its source, b: its target). */
export interface RelationshipOf {
  type: string
  modified?: string
}

/** A link waiting for an end: the place it is reported by and the two ids, nothing of the objects. */
interface Held {
  where: string
  a: string
  b: string
  /** A relationship's type and version, for its associations. */
  relationship?: RelationshipOf
  /** Set for a sighting (a: its id, b: what it is a sighting of): observations, not an association. */
  sighting?: Sighting
  /** Whether an end not read by the end of the input is a reason to report it (a relationship) or to drop it (a report's reference). */
  strict: boolean
  done?: true
}

export interface Linked {
  associations: ReadItem[]
  observations: ReadItem[]
  errors: { where: string; error: string }[]
}

const nothingLinked = (): Linked => ({ associations: [], observations: [], errors: [] })

type End = { kind: 'group'; type: string; xid: string } | { kind: 'indicator'; keys: IndicatorKey[] }

const UUID_ID = /^indicator--([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})$/

/**
 * The key an indicator object is remembered by: the 16 bytes of its UUID as a 16-character string
 * (a third of the id's memory); an id of another form as it is (longer than 16 characters, so
 * never equal to a packed one).
 */
function indicatorKey(id: string): string {
  const m = UUID_ID.exec(id)
  return m ? Buffer.from(m.slice(1).join(''), 'hex').toString('latin1') : id
}

/** The text as one sequential string (a concatenation is kept as a tree of its parts until read). */
const flat = (text: string) => Buffer.from(text, 'utf8').toString('utf8')

/** STIX types a report may reference that make no association: what they are is imported (or skipped) on its own. */
const NOT_LINKED = new Set([
  'relationship',
  'sighting',
  'marking-definition',
  'language-content',
  'extension-definition',
])

/**
 * What one input has read so far of the objects associations may name, and the associations
 * held back. Memory: per Group its id and type; per indicator object its id and the type and
 * summary of each of its Indicators (on disk past the first few thousand: a bundle of millions of
 * indicators is read in bounded memory); per held association its place and two ids.
 */
export class StixGraph {
  private readonly groups = new Map<string, string>()
  /** Indicator object (by indicatorKey) → its Indicators as `type\tsummary` lines; an empty string for an object that made none. */
  private readonly indicators = new SpillMap()
  private readonly waiting = new Map<string, Held[]>()

  /** A Group has been read: the links it completes. */
  groupRead(id: string, type: string): Linked {
    this.groups.set(id, type)
    return this.release(id)
  }

  /** An indicator object (or an SCO) has been read, with the Indicators it made (none when refused): the links it completes. */
  indicatorRead(id: string, keys: readonly IndicatorKey[]): Linked {
    // Copied into one flat string: the concatenation alone is a tree of strings, half again the memory per object.
    this.indicators.set(indicatorKey(id), flat(keys.map((k) => `${k.type}\t${k.summary}`).join('\n')))
    return this.release(id)
  }

  /**
   * A relationship between two objects (`strict`: every end must resolve, else it is reported),
   * or a report's reference to one of its objects (references to what makes no association are
   * left out). Given at once when both ends are read; else held.
   */
  link(where: string, a: string, b: string, strict: boolean, relationship?: RelationshipOf): Linked {
    const out = nothingLinked()
    if (!strict && NOT_LINKED.has(stixTypeOf(b))) return out
    this.settle({ where, a, b, strict, ...(relationship ? { relationship } : {}) }, false, out)
    return out
  }

  /** A sighting (`id`) of an object: an observation of each of its Indicators, once the object is read. */
  sighting(where: string, id: string, of: string, sighting: Sighting): Linked {
    const out = nothingLinked()
    this.settle({ where, a: id, b: of, strict: true, sighting }, false, out)
    return out
  }

  /** The end of the input: every held link, its unread Group ends named by xid (held in the owner, perhaps). */
  end(): Linked {
    const out = nothingLinked()
    for (const list of this.waiting.values()) for (const held of list) if (!held.done) this.settle(held, true, out)
    this.waiting.clear()
    this.close()
    return out
  }

  /** Lets go of what was remembered (the end does, and a reader stopped early must). */
  close(): void {
    this.indicators.close()
  }

  private release(id: string): Linked {
    const out = nothingLinked()
    const list = this.waiting.get(id)
    if (!list) return out
    this.waiting.delete(id)
    for (const held of list) if (!held.done) this.settle(held, false, out)
    return out
  }

  /** Gives the link, reports it, or holds it on the first end not read yet. */
  private settle(held: Held, final: boolean, out: Linked) {
    if (held.sighting) return this.settleSighting(held, held.sighting, final, out)
    const ends: End[] = []
    for (const id of [held.a, held.b]) {
      const end = this.endOf(id, final)
      if (end === 'later') {
        const list = this.waiting.get(id)
        if (list) list.push(held)
        else this.waiting.set(id, [held])
        return
      }
      if (typeof end === 'string') {
        held.done = true
        if (held.strict) out.errors.push({ where: held.where, error: end })
        return
      }
      ends.push(end)
    }
    held.done = true
    const [a, b] = ends
    const refuse = (error: string) => {
      if (held.strict) out.errors.push({ where: held.where, error })
    }
    if (held.a === held.b) return refuse(`it relates ${held.a} to itself`)
    if (a.kind === 'indicator' && b.kind === 'indicator')
      return refuse(
        `${held.a} and ${held.b} are both indicators: Bulwark associates two Indicators only by an association type of their two types (URL Host, File Download, …), which a STIX relationship does not name`,
      )
    const refs = (end: End) =>
      end.kind === 'group'
        ? [{ ref: end.xid, type: end.type }]
        : end.keys.map((k) => ({ ref: k.summary, type: k.type }))
    const pairs = refs(a).flatMap((x) => refs(b).map((y) => [x, y] as const))
    // End 1 is the relationship's source: the association keeps which end that was.
    const typed = held.relationship
      ? {
          relationshipType: held.relationship.type,
          ...(held.relationship.modified ? { relationshipModified: held.relationship.modified } : {}),
        }
      : {}
    pairs.forEach(([x, y], i) =>
      out.associations.push({
        where: pairs.length > 1 ? `${held.where} (association ${i + 1} of ${pairs.length})` : held.where,
        item: { ref_1: x.ref, type_1: x.type, ref_2: y.ref, type_2: y.type, ...typed },
      }),
    )
  }

  private settleSighting(held: Held, sighting: Sighting, final: boolean, out: Linked) {
    const end = this.endOf(held.b, final)
    if (end === 'later') {
      const list = this.waiting.get(held.b)
      if (list) list.push(held)
      else this.waiting.set(held.b, [held])
      return
    }
    held.done = true
    if (typeof end === 'string') return void out.errors.push({ where: held.where, error: end })
    const { firstSeen, lastSeen, ...observed } = sighting
    // Observations are of Indicators: a sighting of a Group widens its first and last seen, and is kept as its attribute.
    if (end.kind === 'group')
      return void out.observations.push({
        where: held.where,
        item: {
          groupXid: end.xid,
          sourceId: held.a,
          ...observed,
          ...(firstSeen ? { firstSeen } : {}),
          ...(lastSeen ? { lastSeen } : {}),
        },
      })
    end.keys.forEach((key, i) =>
      out.observations.push({
        where: end.keys.length > 1 ? `${held.where} (observation ${i + 1} of ${end.keys.length})` : held.where,
        item: { type: key.type, summary: key.summary, sourceId: held.a, ...observed },
      }),
    )
  }

  /** An end as the association names it, 'later' while it may still come, or why it cannot be one. */
  private endOf(id: string, final: boolean): End | 'later' | string {
    const group = this.groups.get(id)
    if (group) return { kind: 'group', type: group, xid: id }
    const type = stixTypeOf(id)
    const indicator = type === 'indicator' || SCO_TYPES.has(type) ? this.indicators.get(indicatorKey(id)) : undefined
    if (indicator !== undefined) {
      if (indicator === '') return `${id} made no Indicator (it is reported on its own)`
      return {
        kind: 'indicator',
        keys: indicator.split('\n').map((line) => {
          const tab = line.indexOf('\t')
          return { type: line.slice(0, tab), summary: line.slice(tab + 1) }
        }),
      }
    }
    const groupType = GROUP_TYPE_OF.get(type)
    if (groupType) return final ? { kind: 'group', type: groupType, xid: id } : 'later'
    if (type === 'indicator' || SCO_TYPES.has(type))
      return final
        ? `${id} is not in this input (an Indicator is found by its value, which only its object gives)`
        : 'later'
    return `${id} is ${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}, which Bulwark does not import`
  }
}

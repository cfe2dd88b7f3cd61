/**
 * STIX files, both ways. Read: STIX 2.0 and 2.1 in a bundle, an array, JSON Lines or one bare
 * object (stix-input.ts); each indicator object (and SCO of a held type) becomes the Indicators
 * of its pattern (fromStixIndicator) with its STIX id and its source's dates, the SDOs Bulwark has
 * a Group type for become Groups, relationships and report references associations, sightings
 * observations (graph.ts); TLP marking definitions become Security Labels of the objects after
 * them; an object of any other type is skipped by its type, and a comparison or object Bulwark
 * cannot hold is that object's error (docs/import.md).
 * Written: the four TLP 1.0 marking definitions, each Indicator as the TAXII 2.1 collections
 * serve it with the fields of both application versions, then any TLP 2.0 marking one used
 * (known only once the Indicators are; STIX does not order a bundle's objects).
 */
import { randomUUID } from 'node:crypto'
import type { FeedIndicator } from '../../domain/listing/feed.js'
import { composeSummary, findIndicatorType } from '../../model/indicator-types.js'
import type { FileWriter, Format, WriteOptions, WrittenIndicator } from '../format.js'
import { type ElementReading, messageOf } from '../read-json-array.js'
import {
  GROUP_TYPE_OF,
  type Linked,
  type RelationshipOf,
  SCO_TYPES,
  type Sighting,
  StixGraph,
  groupOfSdo,
  patternOfSco,
} from './graph.js'
import { readStixInput } from './stix-input.js'
import { killChainAttributes, killChainPhases } from './kill-chain.js'
import { stixGraphObjects } from './stix-graph.js'
import type { FeedGraph } from '../../domain/listing/feed-graph.js'
import {
  ALWAYS_MARKINGS,
  MARKINGS,
  STIX_EXTRA_ATTRIBUTE,
  STIX_ID_ATTRIBUTE,
  StixIds,
  type StixMarking,
  type TlpLabel,
  fromStixIndicator,
  labelOfMarkingDefinition,
  markingOf,
  toStixIndicator,
} from './stix.js'

/** A STIX identifier (`indicator--<uuid>`) in the first 4 KB: what a STIX input has whatever holds its objects. */
const STIX_ID = /"id"\s*:\s*"[a-z][a-z0-9-]*--[0-9a-fA-F-]{36}"/

export const stixBundle: Format = {
  name: 'stix',
  detect: (fileName, head) =>
    /\.stix(\.json)?$/i.test(fileName) ||
    ((/\.(json|jsonl|ndjson)$/i.test(fileName) || !/\.[^./\\]+$/.test(fileName)) &&
      !!head &&
      /^\uFEFF?\s*[[{]/.test(head()) &&
      (/"type"\s*:\s*"bundle"|"objects"\s*:\s*\[|"spec_version"\s*:/.test(head()) || STIX_ID.test(head()))),
  reader: {
    sourceVersions: true,
    async *read(input, { name, now }) {
      const state: ReadState = {
        markings: new Map<string, TlpLabel>(),
        graph: new StixGraph(),
        now: now === undefined ? Date.now() : Date.parse(now),
      }
      let held: Linked
      try {
        yield* readStixInput(input, name, (object, where) => readStixObject(object, where, state))
        held = state.graph.end()
      } finally {
        state.graph.close()
      }
      if (held.associations.length || held.observations.length || held.errors.length)
        yield {
          kind: 'element',
          where: '(end of input)',
          heldBack: true,
          indicators: [],
          associations: held.associations,
          observations: held.observations,
          earlierErrors: held.errors,
        }
    },
  },
  writer: {
    metadata: ['tags', 'securityLabels', 'attributes', 'stixIds'],
    mayLeaveOut: true,
    open: (options) => new BundleWriter(options),
  },
}

/** What reading one input remembers from object to object. */
interface ReadState {
  /** TLP marking definitions of the input, by id, for the objects after them. */
  markings: Map<string, TlpLabel>
  graph: StixGraph
  /** The time of the import: an indicator whose valid_until is past it comes in inactive. */
  now: number
}

/** An element's reading with the associations (and refusals of them) that reading it completed. */
function withLinks(reading: ElementReading, linked: Linked, where: string): ElementReading {
  const associations = [...(reading.associations ?? []), ...linked.associations]
  const observations = [...(reading.observations ?? []), ...linked.observations]
  const own = linked.errors.filter((e) => e.where === where).map((e) => e.error)
  const earlier = linked.errors.filter((e) => e.where !== where)
  const errors = [reading.error, ...own].filter((e) => e !== undefined)
  const out: ElementReading = { ...reading }
  if (associations.length) out.associations = associations
  if (observations.length) out.observations = observations
  if (errors.length) out.error = errors.join('; ')
  if (earlier.length) out.earlierErrors = earlier
  return out
}

/**
 * The batch items of one STIX object: an indicator's Indicators, an SDO's Group, a
 * relationship's associations, and the associations held back for an object until it came. A
 * TLP marking definition is remembered for the objects that follow. An indicator some of whose
 * comparisons Bulwark cannot hold gives the others, and says which it left out. An object of a
 * type not imported is `skipped` with its type.
 */
function readStixObject(object: unknown, where: string, state: ReadState): ElementReading {
  if (!object || typeof object !== 'object' || Array.isArray(object))
    return { indicators: [], error: 'not a JSON object' }
  const o = object as Record<string, unknown>
  if (typeof o.type !== 'string' || o.type === '') return { indicators: [], error: 'not a STIX object: it has no type' }
  if (o.type === 'marking-definition') {
    const label = labelOfMarkingDefinition(o)
    if (label && typeof o.id === 'string') {
      state.markings.set(o.id, label)
      return { indicators: [] }
    }
    // A statement or other marking: only TLP markings become Security Labels.
    return { indicators: [], skipped: 'marking-definition' }
  }
  const id = typeof o.id === 'string' && o.id !== '' ? o.id : undefined
  if (o.type === 'relationship') return readRelationship(o, where, state)
  if (o.type === 'sighting') return readSighting(o, where, state)
  if (GROUP_TYPE_OF.has(o.type)) {
    let group: Record<string, unknown>
    try {
      group = groupOfSdo(o, state.markings)
    } catch (error) {
      return { indicators: [], error: `${id ? `${id}: ` : ''}${messageOf(error)}` }
    }
    const reading: ElementReading = { indicators: [], groups: [{ where, item: group }] }
    const linked = state.graph.groupRead(id!, group.type as string)
    // A report's object_refs: each a link from the report to an object, dropped where it makes no association.
    const refs = o.type === 'report' && Array.isArray(o.object_refs) ? o.object_refs : []
    refs.forEach((ref, k) => {
      if (typeof ref !== 'string') return
      const made = state.graph.link(`${where} object_refs[${k}]`, id!, ref, false)
      linked.associations.push(...made.associations)
    })
    return withLinks(reading, linked, where)
  }
  const sco = SCO_TYPES.has(o.type)
  if (o.type !== 'indicator' && !sco) return { indicators: [], skipped: o.type }
  const reading = sco ? readSco(o, where, state) : readIndicator(o, where, state)
  if (!id) return reading
  const keys = reading.indicators.map(({ indicator }) => {
    const { type, summary } = indicator as { type: string; summary: string }
    return { type, summary }
  })
  return withLinks(reading, state.graph.indicatorRead(id, keys), where)
}

/** relationship_type as the STIX 2.1 schema allows it, and no longer than an association keeps. */
const RELATIONSHIP_TYPE = /^[a-z0-9-]{1,100}$/

/** A relationship: its association now when both ends were read, else held; refused with the reason. */
function readRelationship(o: Record<string, unknown>, where: string, state: ReadState): ElementReading {
  const named = typeof o.id === 'string' ? `${o.id}: ` : ''
  if (o.revoked === true) return { indicators: [], error: `${named}the relationship is revoked` }
  if (typeof o.source_ref !== 'string' || typeof o.target_ref !== 'string')
    return { indicators: [], error: `${named}a relationship needs a source_ref and a target_ref` }
  // A type STIX's grammar does not allow (it is served again as relationship_type) leaves the association untyped.
  const type = typeof o.relationship_type === 'string' && RELATIONSHIP_TYPE.test(o.relationship_type)
  const relationship: RelationshipOf | undefined = type
    ? {
        type: o.relationship_type as string,
        ...(typeof o.modified === 'string' && o.modified !== '' ? { modified: o.modified } : {}),
      }
    : undefined
  const linked = state.graph.link(where, o.source_ref, o.target_ref, true, relationship)
  return withLinks({ indicators: [] }, linked, where)
}

/**
 * A sighting of an indicator: an observation of each of its Indicators, `count` times (1 when the
 * sighting does not say), at its `last_seen` (else `first_seen`, else when it was made), keyed by
 * the sighting's id and versioned by its `modified`.
 */
function readSighting(o: Record<string, unknown>, where: string, state: ReadState): ElementReading {
  const named = typeof o.id === 'string' ? `${o.id}: ` : ''
  const refuse = (error: string): ElementReading => ({ indicators: [], error: `${named}${error}` })
  if (typeof o.id !== 'string' || !o.id.startsWith('sighting--')) return refuse('a sighting needs its id')
  if (o.revoked === true) return refuse('the sighting is revoked')
  if (typeof o.sighting_of_ref !== 'string') return refuse('a sighting needs a sighting_of_ref')
  const count = o.count === undefined ? 1 : o.count
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 0)
    return refuse(`count ${JSON.stringify(count)} is not a whole number`)
  if (count === 0) return refuse('count 0: the sighting says it was not seen, which records no observation')
  const when = [o.last_seen, o.first_seen, o.created].find((t) => typeof t === 'string' && t !== '') as
    string | undefined
  if (!when) return refuse('a sighting needs last_seen, first_seen or created: the time of the observation')
  const sighting: Sighting = { count, dateObserved: when }
  if (typeof o.modified === 'string' && o.modified !== '') sighting.externalLastModified = o.modified
  if (typeof o.first_seen === 'string' && o.first_seen !== '') sighting.firstSeen = o.first_seen
  if (typeof o.last_seen === 'string' && o.last_seen !== '') sighting.lastSeen = o.last_seen
  return withLinks({ indicators: [] }, state.graph.sighting(where, o.id, o.sighting_of_ref, sighting), where)
}

/**
 * An SCO of a type an Indicator holds: the Indicators of the pattern that matches it, with its id
 * as External ID and its TLP marking. It has no dates and says nothing of validity, so its items
 * set no field (an existing Indicator keeps its own, and is left as it is: docs/import.md).
 */
function readSco(o: Record<string, unknown>, where: string, state: ReadState): ElementReading {
  const pattern = patternOfSco(o)
  const named = typeof o.id === 'string' ? `${o.id}: ` : ''
  if (pattern === undefined) return { indicators: [], error: `${named}the ${String(o.type)} has no value` }
  const reading = readIndicator(
    { type: 'indicator', id: o.id, pattern, pattern_type: 'stix', object_marking_refs: o.object_marking_refs },
    where,
    state,
  )
  for (const { indicator } of reading.indicators) delete (indicator as Record<string, unknown>).active
  return reading
}

function readIndicator(o: Record<string, unknown>, where: string, state: ReadState): ElementReading {
  const named = typeof o.id === 'string' ? `${o.id}: ` : ''
  try {
    const read = fromStixIndicator(o, state.markings, state.now)
    const phases = killChainAttributes(o)
    const indicators = read.indicators.map((indicator, i) => {
      const def = findIndicatorType(indicator.type)!
      const item: Record<string, unknown> = { type: indicator.type, summary: composeSummary(def, indicator.values) }
      // By slot too: a summary cannot say which field a lone second value is (a Registry Key's value type without a value name).
      if (def.fields.length > 1)
        indicator.values.forEach((value, slot) => {
          if (value !== null) item[`value${slot + 1}`] = value
        })
      Object.assign(item, read.fields)
      // Always said: a newer version whose validity was extended makes an expired Indicator active again.
      item.active = read.active !== false
      const attributes = [
        ...(read.stixId ? [{ type: STIX_ID_ATTRIBUTE, value: read.stixId }] : []),
        ...(indicator.extras ?? []).map((value) => ({ type: STIX_EXTRA_ATTRIBUTE, value })),
        ...phases,
      ]
      if (attributes.length) item.attribute = attributes
      // Served under its source's id (migration 0139) when it is the object's only Indicator: an OR's several cannot all be.
      if (read.stixId?.startsWith('indicator--') && read.indicators.length === 1) item.stixId = read.stixId
      if (read.tags.length) item.tag = read.tags.map((name) => ({ name }))
      if (read.securityLabels.length) item.securityLabel = read.securityLabels
      return { where: i === 0 ? where : `${where} (pattern alternative ${i + 1})`, indicator: item }
    })
    return read.skipped.length
      ? { indicators, error: `${named}not imported from its pattern: ${read.skipped.join('; ')}` }
      : { indicators }
  } catch (error) {
    return { indicators: [], error: `${named}${messageOf(error)}` }
  }
}

/** A bundle written as it streams: its opening with the TLP 1.0 markings, indicators, then any TLP 2.0 marking used. */
class BundleWriter implements FileWriter {
  private readonly ids: StixIds
  private readonly ownerName: string
  private readonly optionalMarkings = new Set<StixMarking>()

  constructor(options: WriteOptions) {
    this.ids = new StixIds(options.installationId)
    this.ownerName = options.ownerName
  }

  opening(): string {
    const always = MARKINGS.slice(0, ALWAYS_MARKINGS)
      .map((m) => JSON.stringify(m))
      .join(',\n')
    return `{"type":"bundle","id":"bundle--${randomUUID()}","objects":[\n${always}`
  }

  /** The indicator object's JSON, or undefined for a value with no pattern (nothing valid stores one). */
  indicator({ record: r, tags, securityLabels, attributes, stixId }: WrittenIndicator): string | undefined {
    const labels = securityLabels.map((l) => l.name)
    const feed: FeedIndicator = {
      id: r.id,
      ownerId: r.ownerId,
      type: r.type,
      summary: r.summary,
      values: [r.values[0] ?? null, r.values[1] ?? null, r.values[2] ?? null],
      rating: r.rating,
      confidence: r.confidence,
      description: r.description,
      active: r.active,
      dateAdded: r.dateAdded,
      lastModified: r.lastModified,
      externalAdded: r.externalDateAdded,
      expires: r.externalDateExpires,
      stixId: stixId ?? null,
      tags: tags.map((t) => t.name),
      securityLabels: labels,
    }
    const object = toStixIndicator(this.ids, feed, this.ownerName, 'bundle')
    if (object === undefined) return undefined
    const phases = killChainPhases(attributes)
    if (phases.length) object.kill_chain_phases = phases
    const marking = markingOf(labels)
    if (marking && MARKINGS.indexOf(marking) >= ALWAYS_MARKINGS) this.optionalMarkings.add(marking)
    return `,\n${JSON.stringify(object)}`
  }

  /** The Groups and relationships (stix-graph.ts), after the indicators. */
  graph(graph: FeedGraph): { text: string; count: number } {
    const objects = stixGraphObjects(this.ids, graph)
    for (const o of objects)
      if (o.marking && MARKINGS.indexOf(o.marking) >= ALWAYS_MARKINGS) this.optionalMarkings.add(o.marking)
    return { text: objects.map((o) => `,\n${JSON.stringify(o.object)}`).join(''), count: objects.length }
  }

  closing(): string {
    return `${[...this.optionalMarkings].map((m) => `,\n${JSON.stringify(m)}`).join('')}\n]}\n`
  }
}

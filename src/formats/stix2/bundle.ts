/**
 * A STIX 2.1 bundle file, both ways. Read: each indicator object becomes the Indicators of its
 * pattern (fromStixIndicator), TLP marking definitions become Security Labels of the indicators
 * after them, any other object and any pattern Bulwark cannot hold is that object's error.
 * Written: the four TLP 1.0 marking definitions, each Indicator as the TAXII 2.1 collections
 * serve it with the fields of both application versions, then any TLP 2.0 marking one used
 * (known only once the Indicators are; STIX does not order a bundle's objects).
 */
import { randomUUID } from 'node:crypto'
import { invalid } from '../../core/errors.js'
import type { FeedIndicator } from '../../domain/listing/feed.js'
import { composeSummary, findIndicatorType } from '../../model/indicator-types.js'
import type { FileWriter, Format, WriteOptions, WrittenIndicator } from '../format.js'
import { JsonArrayReader } from '../json-array-stream.js'
import { type ElementReading, messageOf, readJsonArray } from '../read-json-array.js'
import {
  ALWAYS_MARKINGS,
  MARKINGS,
  StixIds,
  type StixMarking,
  type TlpLabel,
  fromStixIndicator,
  labelOfMarkingDefinition,
  markingOf,
  toStixIndicator,
} from './stix.js'

export const stixBundle: Format = {
  name: 'stix',
  detect: (fileName, head) =>
    /\.stix(\.json)?$/i.test(fileName) ||
    (/\.json$/i.test(fileName) && !!head && /"type"\s*:\s*"bundle"|"objects"\s*:\s*\[|"spec_version"\s*:/.test(head())),
  reader: {
    async *read(input, { name }) {
      const reader = new JsonArrayReader(input, 'objects')
      const markings = new Map<string, TlpLabel>()
      yield* readJsonArray(reader, name, 'objects', (object, where) => readStixObject(object, where, markings))
      if (!reader.found) throw invalid(`${name} is not a STIX bundle: it has no objects array`)
      if (reader.completed && reader.strings.get('type') !== 'bundle') {
        yield {
          kind: 'input',
          error: 'the document is not a STIX bundle (its type is not "bundle"); its objects were read anyway',
        }
      }
    },
  },
  writer: { metadata: ['tags', 'securityLabels'], mayLeaveOut: true, open: (options) => new BundleWriter(options) },
}

/** The batch items of one STIX object; a TLP marking definition is remembered for the indicators that follow. */
function readStixObject(object: unknown, where: string, markings: Map<string, TlpLabel>): ElementReading {
  if (!object || typeof object !== 'object' || Array.isArray(object))
    return { indicators: [], error: 'not a JSON object' }
  const o = object as Record<string, unknown>
  if (o.type === 'marking-definition') {
    const label = labelOfMarkingDefinition(o)
    if (label && typeof o.id === 'string') {
      markings.set(o.id, label)
      return { indicators: [] }
    }
    return {
      indicators: [],
      error: `marking definition ${String(o.id)} is not a TLP marking (only TLP markings become Security Labels)`,
    }
  }
  try {
    const read = fromStixIndicator(o, markings)
    const indicators = read.indicators.map((indicator, i) => {
      const def = findIndicatorType(indicator.type)!
      const item: Record<string, unknown> = { type: indicator.type, summary: composeSummary(def, indicator.values) }
      // By slot too: a summary cannot say which field a lone second value is (a Registry Key's value type without a value name).
      if (def.fields.length > 1)
        indicator.values.forEach((value, slot) => {
          if (value !== null) item[`value${slot + 1}`] = value
        })
      if (read.rating !== undefined) item.rating = read.rating
      if (read.confidence !== undefined) item.confidence = read.confidence
      if (read.description !== undefined) item.description = read.description
      if (read.created) item.externalDateAdded = read.created
      if (read.modified) item.externalLastModified = read.modified
      if (read.expires) item.externalDateExpires = read.expires
      if (read.tags.length) item.tag = read.tags.map((name) => ({ name }))
      if (read.securityLabels.length) item.securityLabel = read.securityLabels
      return { where: i === 0 ? where : `${where} (pattern alternative ${i + 1})`, indicator: item }
    })
    return { indicators }
  } catch (error) {
    return {
      indicators: [],
      error: `${o.type === 'indicator' && typeof o.id === 'string' ? `${o.id}: ` : ''}${messageOf(error)}`,
    }
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
  indicator({ record: r, tags, securityLabels }: WrittenIndicator): string | undefined {
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
      expires: r.externalDateExpires,
      tags: tags.map((t) => t.name),
      securityLabels: labels,
    }
    const object = toStixIndicator(this.ids, feed, this.ownerName, 'bundle')
    if (object === undefined) return undefined
    const marking = markingOf(labels)
    if (marking && MARKINGS.indexOf(marking) >= ALWAYS_MARKINGS) this.optionalMarkings.add(marking)
    return `,\n${JSON.stringify(object)}`
  }

  closing(): string {
    return `${[...this.optionalMarkings].map((m) => `,\n${JSON.stringify(m)}`).join('')}\n]}\n`
  }
}

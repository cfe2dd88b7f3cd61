/**
 * STIX files, both ways. Read: STIX 2.0 and 2.1 in a bundle, an array, JSON Lines or one bare
 * object (stix-input.ts); each indicator object becomes the Indicators of its pattern
 * (fromStixIndicator) with its STIX id and its source's dates, TLP marking definitions become
 * Security Labels of the indicators after them, any other object, and any comparison Bulwark
 * cannot hold, is that object's error (docs/import.md).
 * Written: the four TLP 1.0 marking definitions, each Indicator as the TAXII 2.1 collections
 * serve it with the fields of both application versions, then any TLP 2.0 marking one used
 * (known only once the Indicators are; STIX does not order a bundle's objects).
 */
import { randomUUID } from 'node:crypto'
import type { FeedIndicator } from '../../domain/listing/feed.js'
import { composeSummary, findIndicatorType } from '../../model/indicator-types.js'
import type { FileWriter, Format, WriteOptions, WrittenIndicator } from '../format.js'
import { type ElementReading, messageOf } from '../read-json-array.js'
import { readStixInput } from './stix-input.js'
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
      const markings = new Map<string, TlpLabel>()
      const at = now === undefined ? Date.now() : Date.parse(now)
      yield* readStixInput(input, name, (object, where) => readStixObject(object, where, markings, at))
    },
  },
  writer: { metadata: ['tags', 'securityLabels'], mayLeaveOut: true, open: (options) => new BundleWriter(options) },
}

/** Where an import keeps what a STIX object says that Bulwark has no column for (model/reference-data.ts types). */
export const STIX_ID_ATTRIBUTE = 'External ID'
export const STIX_EXTRA_ATTRIBUTE = 'Additional Analysis and Context'

/**
 * The batch items of one STIX object; a TLP marking definition is remembered for the indicators
 * that follow. An indicator some of whose comparisons Bulwark cannot hold gives the others, and
 * says which it left out.
 */
function readStixObject(object: unknown, where: string, markings: Map<string, TlpLabel>, now: number): ElementReading {
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
  const named = typeof o.id === 'string' ? `${o.id}: ` : ''
  try {
    const read = fromStixIndicator(o, markings, now)
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
      ]
      if (attributes.length) item.attribute = attributes
      if (read.tags.length) item.tag = read.tags.map((name) => ({ name }))
      if (read.securityLabels.length) item.securityLabel = read.securityLabels
      return { where: i === 0 ? where : `${where} (pattern alternative ${i + 1})`, indicator: item }
    })
    return read.skipped.length
      ? { indicators, error: `${named}not imported from its pattern: ${read.skipped.join('; ')}` }
      : { indicators }
  } catch (error) {
    return { indicators: [], error: `${o.type === 'indicator' ? named : ''}${messageOf(error)}` }
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
      externalAdded: r.externalDateAdded,
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

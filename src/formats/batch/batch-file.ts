/**
 * The V2 batch file (`{"indicator": [...], "group": [...], "association": [...]}`, the shape
 * POST /v2/batch takes) as `bulwark import` and `export` use it: read, each element of its
 * `indicator` array as it is, for the batch job to judge; written, each Indicator with its type,
 * summary (and its value fields by slot where the summary cannot say them), rating, confidence,
 * description, source, tags and attributes (not its security labels or associations). The job's own reading of a stored file, its validation and writes are
 * domain/batch's.
 */
import { invalid } from '../../core/errors.js'
import type { AttributeView } from '../../domain/metadata/item-metadata.js'
import type { Tag } from '../../domain/metadata/tags.js'
import type { IndicatorRecord } from '../../domain/indicators/record.js'
import { findIndicatorType, parseSummary } from '../../model/indicator-types.js'
import type { FileWriter, Format } from '../format.js'
import { JsonArrayReader } from '../json-array-stream.js'
import { readJsonArray } from '../read-json-array.js'

export const batchFile: Format = {
  name: 'batch',
  detect: (fileName) => /\.json$/i.test(fileName),
  reader: {
    async *read(input, { name }) {
      const reader = new JsonArrayReader(input, 'indicator')
      yield* readJsonArray(reader, name, 'indicator', (indicator, where) => ({ indicators: [{ where, indicator }] }))
      if (!reader.found) throw invalid(`${name} has no indicator array`)
    },
  },
  writer: {
    metadata: ['tags', 'attributes'],
    mayLeaveOut: false,
    open: (): FileWriter => {
      let count = 0
      return {
        opening: () => '{"indicator":[',
        indicator: ({ record, tags, attributes }) =>
          `${count++ ? ',' : ''}\n${JSON.stringify(batchIndicator(record, tags, attributes))}`,
        closing: () => '\n]}\n',
      }
    },
  },
}

/** One Indicator as a batch file item, as POST /v2/batch and `bulwark import` read it back. */
export function batchIndicator(
  r: IndicatorRecord,
  tags: readonly Tag[],
  attributes: readonly AttributeView[],
): Record<string, unknown> {
  const entry: Record<string, unknown> = { type: r.type, summary: r.summary }
  // A summary leaves out empty fields, so a Registry Key's value type without a value name would read back as the name.
  const def = findIndicatorType(r.type)
  if (def && def.fields.length > 1 && !sameValues(parseSummary(def, r.summary), r.values)) {
    r.values.forEach((value, slot) => {
      if (value !== null) entry[`value${slot + 1}`] = value
    })
  }
  for (const [key, value] of Object.entries({
    rating: r.rating,
    confidence: r.confidence,
    description: r.description,
    source: r.source,
  })) {
    if (value !== null && value !== undefined) entry[key] = value
  }
  if (tags.length) entry.tag = tags.map((t) => ({ name: t.name }))
  if (attributes.length)
    entry.attribute = attributes.map((a) => ({ type: a.type, value: a.value, displayed: a.displayed }))
  return entry
}

function sameValues(read: readonly (string | null)[] | null, stored: readonly (string | null)[]): boolean {
  return !!read && read.every((value, slot) => value === (stored[slot] ?? null))
}

/**
 * `bulwark export --owner <name> --output <file> [--tql <filter>] [--format stix|batch]`: an
 * owner's Indicators as a STIX 2.1 bundle or a V2 batch file, both of which `bulwark import` reads
 * back (the batch file POST /v2/batch too). Pages of EXPORT_PAGE are read by id (keyset) and
 * written as they come, so memory stays flat however many there are.
 *
 * Batch: each Indicator carries its type, summary, rating, confidence, description, source, tags
 * and attributes (not its security labels or associations).
 * STIX: each Indicator is the indicator object the TAXII 2.1 server serves (protocols/taxii21/stix.ts,
 * the same ids, patterns and TLP markings), with the fields of both its application versions; the
 * four TLP 1.0 marking definitions come first, a TLP 2.0 one after the indicators when one used it.
 */
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { createWriteStream, rmSync } from 'node:fs'
import { listIndicatorObjects } from '../../domain/indicators/objects.js'
import type { IndicatorRecord } from '../../domain/indicators/record.js'
import type { FeedIndicator } from '../../domain/listing/feed.js'
import { invalid } from '../../domain/errors.js'
import { type AttributeView, loadAttributes, loadLabels, loadTags } from '../../domain/metadata/item-metadata.js'
import type { Tag } from '../../domain/metadata/tags.js'
import type { Services } from '../../domain/services.js'
import { ALWAYS_MARKINGS, MARKINGS, StixIds, type StixMarking, markingOf, toStixIndicator } from '../../formats/stix2/stix.js'
import type { Store } from '../../store/connect.js'
import { cliContext } from '../context.js'

export const EXPORT_PAGE = 1_000

export const EXPORT_FORMATS = ['batch', 'stix'] as const

export interface ExportArgs {
  owner: string
  output: string
  tql?: string
  format?: string
  userName: string
  /** Called after each page: Indicators written, and how many match in all. */
  progress?: (count: number, total: number | undefined) => void
}

export async function exportCommand(store: Store, services: Services, args: ExportArgs) {
  const format = args.format ?? (/\.stix(\.json)?$/i.test(args.output) ? 'stix' : 'batch')
  if (!(EXPORT_FORMATS as readonly string[]).includes(format)) throw invalid(`--format must be ${EXPORT_FORMATS.join(' or ')}, not '${format}'`)
  const ctx = await cliContext(store, services, args.userName, args.owner)
  // 0600: an export holds the owner's intelligence.
  const out = createWriteStream(args.output, { flags: 'wx', mode: 0o600 })
  await once(out, 'open')
  const write = async (text: string) => { if (!out.write(text)) await once(out, 'drain') }
  const stix = format === 'stix' ? new StixWriter(new StixIds(services.installationId), ctx.owner.name) : undefined
  let count = 0
  let skipped = 0
  let total: number | undefined
  let afterId: number | undefined
  try {
    await write(stix ? stix.opening() : '{"indicator":[')
    for (;;) {
      const page = await listIndicatorObjects(ctx, {
        tql: args.tql, resultStart: 0, resultLimit: EXPORT_PAGE, ownerScope: 'context', afterId, count: afterId === undefined,
      })
      total ??= page.total
      const ids = page.items.map((r) => r.id)
      if (stix) {
        const [tags, labels] = await Promise.all([loadTags(store.db, 'indicator', ids), loadLabels(store.db, 'indicator', ids)])
        for (const record of page.items) {
          const object = stix.indicator(record, (tags.get(record.id) ?? []).map((t) => t.name), (labels.get(record.id) ?? []).map((l) => l.name))
          if (object === undefined) { skipped++; continue }
          await write(`,\n${object}`)
          count++
        }
      } else {
        const [tags, attributes] = await Promise.all([loadTags(store.db, 'indicator', ids), loadAttributes(store.db, 'indicator', ids)])
        for (const record of page.items) {
          const entry = batchIndicator(record, tags.get(record.id) ?? [], attributes.get(record.id) ?? [])
          await write(`${count++ ? ',' : ''}\n${JSON.stringify(entry)}`)
        }
      }
      args.progress?.(count + skipped, total)
      if (!page.hasMore || page.items.length === 0) break
      afterId = page.items[page.items.length - 1].id
    }
    await write(stix ? stix.closing() : '\n]}\n')
  } catch (error) {
    out.destroy()
    rmSync(args.output, { force: true })
    throw error
  }
  out.end()
  await once(out, 'close')
  return { owner: ctx.owner.name, format, file: args.output, count, ...(stix ? { skipped } : {}) }
}

/** A bundle written as it streams: its opening with the TLP 1.0 markings, indicators, then any TLP 2.0 marking used. */
class StixWriter {
  private readonly optionalMarkings = new Set<StixMarking>()

  constructor(private readonly ids: StixIds, private readonly ownerName: string) {}

  opening(): string {
    const always = MARKINGS.slice(0, ALWAYS_MARKINGS).map((m) => JSON.stringify(m)).join(',\n')
    return `{"type":"bundle","id":"bundle--${randomUUID()}","objects":[\n${always}`
  }

  /** The indicator object's JSON, or undefined for a value with no pattern (nothing valid stores one). */
  indicator(r: IndicatorRecord, tags: string[], securityLabels: string[]): string | undefined {
    const feed: FeedIndicator = {
      id: r.id, ownerId: r.ownerId, type: r.type, summary: r.summary, values: [r.values[0] ?? null, r.values[1] ?? null, r.values[2] ?? null],
      rating: r.rating, confidence: r.confidence, description: r.description, active: r.active, dateAdded: r.dateAdded,
      lastModified: r.lastModified, expires: r.externalDateExpires, tags, securityLabels,
    }
    const object = toStixIndicator(this.ids, feed, this.ownerName, 'bundle')
    if (object === undefined) return undefined
    const marking = markingOf(securityLabels)
    if (marking && MARKINGS.indexOf(marking) >= ALWAYS_MARKINGS) this.optionalMarkings.add(marking)
    return JSON.stringify(object)
  }

  closing(): string {
    return `${[...this.optionalMarkings].map((m) => `,\n${JSON.stringify(m)}`).join('')}\n]}\n`
  }
}

function batchIndicator(r: IndicatorRecord, tags: readonly Tag[], attributes: readonly AttributeView[]): Record<string, unknown> {
  const entry: Record<string, unknown> = { type: r.type, summary: r.summary }
  for (const [key, value] of Object.entries({ rating: r.rating, confidence: r.confidence, description: r.description, source: r.source })) {
    if (value !== null && value !== undefined) entry[key] = value
  }
  if (tags.length) entry.tag = tags.map((t) => ({ name: t.name }))
  if (attributes.length) entry.attribute = attributes.map((a) => ({ type: a.type, value: a.value, displayed: a.displayed }))
  return entry
}

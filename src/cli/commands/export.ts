/**
 * `bulwark export --owner <name> --output <file> [--tql <filter>]`: an owner's Indicators as a V2
 * batch file, which `bulwark import` (or POST /v2/batch) reads back. Pages of EXPORT_PAGE are read
 * by id (keyset) and written as they come, so memory stays flat however many there are. Each
 * Indicator carries its type, summary, rating, confidence, description, source, tags and
 * attributes (not its security labels or associations).
 */
import { once } from 'node:events'
import { createWriteStream, rmSync } from 'node:fs'
import { listIndicatorObjects } from '../../domain/indicators/objects.js'
import type { IndicatorRecord } from '../../domain/indicators/record.js'
import { type AttributeView, loadAttributes, loadTags } from '../../domain/metadata/item-metadata.js'
import type { Tag } from '../../domain/metadata/tags.js'
import type { Services } from '../../domain/services.js'
import type { Store } from '../../store/connect.js'
import { cliContext } from '../context.js'

export const EXPORT_PAGE = 1_000

export interface ExportArgs {
  owner: string
  output: string
  tql?: string
  userName: string
  progress?: (count: number) => void
}

export async function exportCommand(store: Store, services: Services, args: ExportArgs) {
  const ctx = await cliContext(store, services, args.userName, args.owner)
  // 0600: an export holds the owner's intelligence.
  const out = createWriteStream(args.output, { flags: 'wx', mode: 0o600 })
  await once(out, 'open')
  const write = async (text: string) => { if (!out.write(text)) await once(out, 'drain') }
  let count = 0
  let afterId: number | undefined
  try {
    await write('{"indicator":[')
    for (;;) {
      const page = await listIndicatorObjects(ctx, { tql: args.tql, resultStart: 0, resultLimit: EXPORT_PAGE, ownerScope: 'context', afterId })
      const ids = page.items.map((r) => r.id)
      const [tags, attributes] = await Promise.all([loadTags(store.db, 'indicator', ids), loadAttributes(store.db, 'indicator', ids)])
      for (const record of page.items) {
        const entry = batchIndicator(record, tags.get(record.id) ?? [], attributes.get(record.id) ?? [])
        await write(`${count++ ? ',' : ''}\n${JSON.stringify(entry)}`)
      }
      args.progress?.(count)
      if (!page.hasMore || page.items.length === 0) break
      afterId = page.items[page.items.length - 1].id
    }
    await write('\n]}\n')
  } catch (error) {
    out.destroy()
    rmSync(args.output, { force: true })
    throw error
  }
  out.end()
  await once(out, 'close')
  return { owner: ctx.owner.name, format: 'batch', file: args.output, count }
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

/**
 * `bulwark export --owner <name> --output <file> [--tql <filter>] [--format stix|batch]`: an
 * owner's Indicators in any format of formats/ with a writer (a STIX 2.1 bundle or a V2 batch
 * file, both of which `bulwark import` reads back), chosen by the file's name (formats/index.ts
 * formatForOutput) unless `--format` names it. Pages of EXPORT_PAGE are read by id (keyset), with
 * the metadata the format asks for, and written as they come, so memory stays flat however many
 * there are.
 */
import { once } from 'node:events'
import { createWriteStream, rmSync } from 'node:fs'
import { listIndicatorObjects } from '../../domain/indicators/objects.js'
import { invalid } from '../../core/errors.js'
import { loadAttributes, loadLabels, loadTags } from '../../domain/metadata/item-metadata.js'
import type { Services } from '../../domain/services.js'
import { WRITE_FORMATS, findFormat, formatForOutput } from '../../formats/index.js'
import type { Store } from '../../store/connect.js'
import { cliContext } from '../context.js'

export const EXPORT_PAGE = 1_000

export const EXPORT_FORMATS = WRITE_FORMATS

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
  const format = args.format === undefined ? formatForOutput(args.output) : findFormat(args.format)
  if (!format?.writer) throw invalid(`--format must be ${EXPORT_FORMATS.join(' or ')}, not '${args.format}'`)
  const { metadata, mayLeaveOut } = format.writer
  const ctx = await cliContext(store, services, args.userName, args.owner)
  // 0600: an export holds the owner's intelligence.
  const out = createWriteStream(args.output, { flags: 'wx', mode: 0o600 })
  await once(out, 'open')
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain')
  }
  const writer = format.writer.open({ installationId: services.installationId, ownerName: ctx.owner.name })
  const none = new Map<number, never[]>()
  let count = 0
  let skipped = 0
  let total: number | undefined
  let afterId: number | undefined
  try {
    await write(writer.opening())
    for (;;) {
      const page = await listIndicatorObjects(ctx, {
        tql: args.tql,
        resultStart: 0,
        resultLimit: EXPORT_PAGE,
        ownerScope: 'context',
        afterId,
        count: afterId === undefined,
      })
      total ??= page.total
      const ids = page.items.map((r) => r.id)
      const [tags, labels, attributes] = await Promise.all([
        metadata.includes('tags') ? loadTags(store.db, 'indicator', ids) : none,
        metadata.includes('securityLabels') ? loadLabels(store.db, 'indicator', ids) : none,
        metadata.includes('attributes') ? loadAttributes(store.db, 'indicator', ids) : none,
      ])
      for (const record of page.items) {
        const text = writer.indicator({
          record,
          tags: tags.get(record.id) ?? [],
          securityLabels: labels.get(record.id) ?? [],
          attributes: attributes.get(record.id) ?? [],
        })
        if (text === undefined) {
          skipped++
          continue
        }
        await write(text)
        count++
      }
      args.progress?.(count + skipped, total)
      if (!page.hasMore || page.items.length === 0) break
      afterId = page.items[page.items.length - 1].id
    }
    await write(writer.closing())
  } catch (error) {
    out.destroy()
    rmSync(args.output, { force: true })
    throw error
  }
  out.end()
  await once(out, 'close')
  return { owner: ctx.owner.name, format: format.name, file: args.output, count, ...(mayLeaveOut ? { skipped } : {}) }
}

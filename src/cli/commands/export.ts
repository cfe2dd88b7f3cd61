/**
 * `bulwark export --owner <name> --output <file> [--tql <filter>] [--format stix|batch] [--force]`: an
 * owner's Indicators in any format of formats/ with a writer (a STIX 2.1 bundle or a V2 batch
 * file, both of which `bulwark import` reads back), chosen by the file's name (formats/index.ts
 * formatForOutput) unless `--format` names it. Pages of EXPORT_PAGE are read by id (keyset), with
 * the metadata the format asks for, and written as they come, so memory stays flat however many
 * there are. An existing file is refused unless `--force`, which replaces it whole: the export is
 * written to a new file beside it and renamed over it at the end, so a failed run leaves the old
 * file as it was and a reader never sees half of the new one.
 */
import { once } from 'node:events'
import { randomUUID } from 'node:crypto'
import { createWriteStream, existsSync, renameSync, rmSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { listIndicatorObjects } from '../../domain/indicators/objects.js'
import { loadOwnerGraph } from '../../domain/listing/feed-graph.js'
import { loadIndicatorStixIds } from '../../domain/listing/feed.js'
import { SERVED_GROUP_TYPES } from '../../formats/stix2/stix-graph.js'
import { conflict, invalid } from '../../core/errors.js'
import { loadAttributes, loadLabels, loadTags } from '../../domain/metadata/item-metadata.js'
import type { Services } from '../../domain/services.js'
import { WRITE_FORMATS, findFormat, formatForOutput } from '../../formats/index.js'
import type { Store } from '../../store/connect.js'
import { storeForRequest } from '../../domain/read-routing.js'
import { cliContext } from '../context.js'

export const EXPORT_PAGE = 1_000

export const EXPORT_FORMATS = WRITE_FORMATS

export interface ExportArgs {
  owner: string
  output: string
  tql?: string
  format?: string
  userName: string
  /** Replace an existing output file (atomically) instead of refusing it. */
  force?: boolean
  /** Called after each page: Indicators written, and how many match in all. */
  progress?: (count: number, total: number | undefined) => void
}

export async function exportCommand(store: Store, services: Services, args: ExportArgs) {
  const format = args.format === undefined ? formatForOutput(args.output) : findFormat(args.format)
  if (!format?.writer) throw invalid(`--format must be ${EXPORT_FORMATS.join(' or ')}, not '${args.format}'`)
  const { metadata, mayLeaveOut } = format.writer
  if (!args.force && existsSync(args.output)) throw outputExists(args.output)
  const asCaller = await cliContext(store, services, args.userName, args.owner)
  // A read like a listing: from a read replica when configured (domain/read-routing.ts).
  const reading = await storeForRequest(store, asCaller.caller, true)
  const ctx = { ...asCaller, store: reading }
  const path = args.force ? join(dirname(args.output), `.${basename(args.output)}.${randomUUID()}.tmp`) : args.output
  // 0600: an export holds the owner's intelligence; 'wx' so that a file made since the check above is not written over.
  const out = createWriteStream(path, { flags: 'wx', mode: 0o600 })
  try {
    await once(out, 'open')
  } catch (error) {
    throw (error as NodeJS.ErrnoException).code === 'EEXIST' ? outputExists(args.output) : error
  }
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain')
  }
  const writer = format.writer.open({ installationId: services.installationId, ownerName: ctx.owner.name })
  const none = new Map<number, never[]>()
  let count = 0
  let skipped = 0
  let total: number | undefined
  let objects: number | undefined
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
      const [tags, labels, attributes, stixIds] = await Promise.all([
        metadata.includes('tags') ? loadTags(reading.db, 'indicator', ids) : none,
        metadata.includes('securityLabels') ? loadLabels(reading.db, 'indicator', ids) : none,
        metadata.includes('attributes') ? loadAttributes(reading.db, 'indicator', ids) : none,
        metadata.includes('stixIds') ? loadIndicatorStixIds(reading, ids) : new Map<number, string>(),
      ])
      for (const record of page.items) {
        const text = writer.indicator({
          record,
          tags: tags.get(record.id) ?? [],
          securityLabels: labels.get(record.id) ?? [],
          attributes: attributes.get(record.id) ?? [],
          ...(stixIds.has(record.id) ? { stixId: stixIds.get(record.id) } : {}),
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
    // The Groups and their relationships, for a format that holds them; a --tql filter selects Indicators only, so it leaves them out.
    if (writer.graph && args.tql === undefined) {
      const graph = writer.graph(await loadOwnerGraph(reading, ctx.owner.id, [...SERVED_GROUP_TYPES.keys()]))
      await write(graph.text)
      objects = graph.count
    }
    await write(writer.closing())
  } catch (error) {
    out.destroy()
    rmSync(path, { force: true })
    throw error
  }
  out.end()
  await once(out, 'close')
  if (path !== args.output) {
    try {
      renameSync(path, args.output)
    } catch (error) {
      rmSync(path, { force: true })
      throw error
    }
  }
  return {
    owner: ctx.owner.name,
    format: format.name,
    file: args.output,
    count,
    ...(mayLeaveOut ? { skipped } : {}),
    ...(objects !== undefined ? { otherObjects: objects } : {}),
  }
}

function outputExists(file: string) {
  return conflict(
    `${file} already exists: bulwark export does not overwrite a file; give --force to replace it, or another --output`,
  )
}

/**
 * `bulwark import <file> --owner <name>`: Indicators, and the Groups and associations around them,
 * from any format of formats/ with a reader (STIX 2.0 or 2.1, a V2 batch file, a CSV, a plain list or
 * free text), found from the file (its name and its first 4 KB) unless `--format` names it. The run
 * is the domain's (domain/imports/run-import.ts), in this process, as the file streams.
 */
import { closeSync, createReadStream, openSync, readSync, statSync } from 'node:fs'
import type { Store } from '../../store/connect.js'
import type { Services } from '../../domain/services.js'
import {
  IMPORT_CHUNK,
  IMPORT_FORMATS,
  type ImportTally,
  MAX_LISTED_ERRORS,
  importFormat,
  requireImportable,
  runImport,
} from '../../domain/imports/run-import.js'
import { cliContext } from '../context.js'

export { IMPORT_CHUNK, IMPORT_FORMATS, MAX_LISTED_ERRORS }

export interface ImportProgress extends Pick<ImportTally, 'items' | 'successCount' | 'errorCount'> {
  /** How much of the file has been read, 0 … 1. */
  fraction: number
}

export interface ImportArgs {
  file: string
  owner: string
  format?: string
  type?: string
  /** `--map`: which CSV column holds what (formats/csv/columns.ts). */
  map?: string
  userName: string
  /** Called as the run goes (the progress bar). */
  progress?: (done: ImportProgress) => void
}

export async function importCommand(store: Store, services: Services, args: ImportArgs) {
  const request = {
    owner: args.owner,
    name: args.file,
    format: args.format,
    type: args.type,
    map: args.map,
    head: () => readHead(args.file),
  }
  // Refused before anything is read: options the format cannot read with, an owner the caller cannot write.
  importFormat(request)
  const ctx = await cliContext(store, services, args.userName, args.owner)
  requireImportable(ctx.caller, args.owner)
  const size = Math.max(1, statSync(args.file).size)
  let charsRead = 0
  async function* counted() {
    for await (const chunk of createReadStream(args.file, { encoding: 'utf8', highWaterMark: 1 << 16 })) {
      charsRead += (chunk as string).length
      yield chunk as string
    }
  }
  const report = ({ items, successCount, errorCount }: ImportTally, fraction = Math.min(1, charsRead / size)) =>
    args.progress?.({ items, successCount, errorCount, fraction })
  const { format, ...tally } = await runImport(ctx, counted(), request, report)
  report(tally, 1)
  return { file: args.file, format, owner: args.owner, ...tally }
}

/** The first 4 KB of the file: what format detection reads of it where its name leaves the format open. */
function readHead(file: string): string {
  const head = Buffer.alloc(4096)
  const fd = openSync(file, 'r')
  try {
    return head.subarray(0, readSync(fd, head, 0, head.length, 0)).toString('utf8')
  } finally {
    closeSync(fd)
  }
}

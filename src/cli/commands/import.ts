/**
 * `bulwark import <file> --owner <name>`: Indicators, and the Groups and associations around them,
 * from any format of formats/ with a reader (STIX 2.0 or 2.1, a V2 batch file, a CSV, a plain list or
 * free text, MISP events), found from the file (its name and its first 4 KB) unless `--format` names it;
 * a directory is read by the format whose index file it holds (a MISP feed's manifest), its files
 * opened by name. The run is the domain's (domain/imports/run-import.ts), in this process, as the file streams.
 */
import { closeSync, createReadStream, existsSync, openSync, readSync, readdirSync, statSync } from 'node:fs'
import { basename, join } from 'node:path'
import { invalid } from '../../core/errors.js'
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
  // A directory is a format's published as files (a MISP feed: its manifest and one file per event).
  const directory = statSync(args.file).isDirectory()
  let charsRead = 0
  async function* counted(file: string) {
    for await (const chunk of createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 16 })) {
      charsRead += (chunk as string).length
      yield chunk as string
    }
  }
  const request = {
    owner: args.owner,
    name: args.file,
    format: args.format,
    type: args.type,
    map: args.map,
    head: directory ? undefined : () => readHead(args.file),
    files: directory
      ? {
          holds: (name: string) => existsSync(join(args.file, name)),
          open: (name: string) => {
            if (basename(name) !== name) throw invalid(`${name} is not a file name of ${args.file}`)
            return counted(join(args.file, name))
          },
        }
      : undefined,
  }
  // Refused before anything is read: options the format cannot read with, an owner the caller cannot write.
  importFormat(request)
  const ctx = await cliContext(store, services, args.userName, args.owner)
  requireImportable(ctx.caller, args.owner)
  const size = Math.max(
    1,
    directory
      ? readdirSync(args.file).reduce((n, name) => n + statSync(join(args.file, name)).size, 0)
      : statSync(args.file).size,
  )
  const report = ({ items, successCount, errorCount }: ImportTally, fraction = Math.min(1, charsRead / size)) =>
    args.progress?.({ items, successCount, errorCount, fraction })
  // A directory's files are the request's; its own input is none.
  const none = (async function* (): AsyncGenerator<string> {})()
  const { format, ...tally } = await runImport(ctx, directory ? none : counted(args.file), request, report)
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

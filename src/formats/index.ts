/**
 * The formats, in one list: each a folder beside this file, both directions where it has them,
 * named here once. Adapters pick a format from this list (by `--format`, or by what a file is)
 * and never branch on a format's name; a new format is a new folder and one line below.
 * STIX 1.x (stix1/) is read as a format (`--format stix1`, a `.xml` file, the TAXII 1.1 feed's
 * pages); its STIX 1.1.1 writer and the Group PDF (group-pdf/) are writers of one protocol each
 * (TAXII 1.1 poll, the Group pdf endpoints), which import them directly: no file is written in them.
 *
 * Formats import nothing from protocols/, store/ (its types aside), cli/ or fastify
 * (src/layers.test.ts).
 */
import { batchFile } from './batch/batch-file.js'
import { csvFile } from './csv/csv.js'
import type { Format } from './format.js'
import { mispEvents } from './misp/misp.js'
import { plainList } from './text/text.js'
import { stix1Packages } from './stix1/read.js'
import { stixBundle } from './stix2/bundle.js'

/**
 * In order of precedence: a file is the first format whose `detect` says so. The last one with a
 * reader takes any text, the last one with a writer any file name.
 */
export const FORMATS: readonly Format[] = [stixBundle, stix1Packages, mispEvents, batchFile, csvFile, plainList]

export const READ_FORMATS = FORMATS.filter((f) => f.reader).map((f) => f.name)
export const WRITE_FORMATS = FORMATS.filter((f) => f.writer).map((f) => f.name)

/** The format of that name, undefined for none. */
export function findFormat(name: string): Format | undefined {
  return FORMATS.find((f) => f.name === name)
}

/**
 * The format a file to read is in, from its name and, where that leaves it open, its first 4 KB.
 * @example detectFormat(fileName, () => '{"type": "bundle", …').name === 'stix'  // a .json file holding a bundle
 */
export function detectFormat(fileName: string, head: () => string): Format {
  const readable = FORMATS.filter((f) => f.reader)
  return readable.find((f) => f.detect(fileName, head)) ?? readable[readable.length - 1]
}

/**
 * The format a directory is in, from the files it holds (a MISP feed's `manifest.json`), or
 * undefined when no format reads such a directory.
 */
export function detectDirectoryFormat(holds: (fileName: string) => boolean): Format | undefined {
  return FORMATS.find((f) => f.reader?.directory && holds(f.reader.directory.index))
}

/** The format a new file is written in, from its name alone. */
export function formatForOutput(fileName: string): Format {
  const writable = FORMATS.filter((f) => f.writer)
  return writable.find((f) => f.detect(fileName)) ?? writable[writable.length - 1]
}

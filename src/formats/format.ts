/**
 * What a format is to the adapters that pick one from the list (index.ts): a name, a test of a
 * file, a reader of Indicators and a writer of them. A reader turns text into Indicators in the
 * V2 batch file's shape, each with its place in the input, so the batch job judges them by the
 * API's rules, whatever the format; a writer turns the domain's records into text. Neither
 * touches HTTP, SQL or the file system: the adapter hands text in and takes text out.
 */
import type { IndicatorRecord } from '../domain/indicators/record.js'
import type { FeedGraph } from '../domain/listing/feed-graph.js'
import type { AttributeView } from '../domain/metadata/item-metadata.js'
import type { SecurityLabel } from '../domain/metadata/security-labels.js'
import type { Tag } from '../domain/metadata/tags.js'

/** The text of an input as it streams: a file's UTF-8 chunks, say. */
export type TextChunks = AsyncIterable<string>

export interface ReadOptions {
  /** What refusals call the input (the file's path). */
  name: string
  /** The Indicator type of every value, for a format whose values do not say theirs (a plain list). */
  type?: string
  /** Which column holds what, for a CSV whose header a reader does not know (`value=IOC,type=Kind`, csv/columns.ts). */
  map?: string
  /** The time an import runs at (ISO 8601; the clock's when absent): a value whose end of validity is past it comes in inactive. */
  now?: string
}

/** An Indicator as the V2 batch file holds it, and its place in the input as its errors name it. */
export interface ReadIndicator {
  where: string
  indicator: unknown
}

/**
 * A Group or an association as the V2 batch file holds it (`group[]`, `association[]`: a Group
 * named by its `xid`, an association by `ref_n`/`type_n`), and its place in the input.
 */
export interface ReadItem {
  where: string
  item: unknown
}

/**
 * What a reader found, in the input's order: one element (an array element, a line) with its
 * Indicators or why it has none, or a problem of the input as a whole after the elements read
 * before it (a file cut short), which are kept.
 */
export type ReadEvent = ({ kind: 'element'; where: string } & ElementItems) | { kind: 'input'; error: string }

/**
 * What one element of an input holds: its Indicators, the Groups and associations it makes (a
 * STIX report, a relationship, a MISP event), or why it has none. An association may name a Group
 * or an Indicator of an earlier element, never of a later one: a reader that meets references
 * forwards (a relationship before its objects) holds the association back until they are given.
 */
export interface ElementItems {
  indicators: ReadIndicator[]
  groups?: ReadItem[]
  associations?: ReadItem[]
  /**
   * Observations of Indicators of this or an earlier element (a STIX sighting), as the batch
   * file's `observation` array holds them: `{type, summary, count, dateObserved, sourceId,
   * externalLastModified}` (domain/batch/write-observations.ts).
   */
  observations?: ReadItem[]
  error?: string
  /**
   * Set when the element is of a kind the format does not import (a STIX identity, say): that
   * kind, which the summary counts. Not an error: the format's documentation says why.
   */
  skipped?: string
  /** Refusals of earlier elements this one settled (a relationship held back until its object came), by their places. */
  earlierErrors?: { where: string; error: string }[]
  /**
   * Set on the one event, after every element, that is no element of the input: what the reader
   * held back to the end (associations naming an object that came later, or never; refusals of
   * them in earlierErrors). Not counted as an element.
   */
  heldBack?: true
}

export interface IndicatorReader {
  /**
   * Its items carry their source's id and version (externalLastModified): an import writes an item
   * only when it is a newer version than the one held (batch option sourceVersions).
   */
  sourceVersions?: true
  /** Refuses, before anything is read, options the format cannot read with (a plain list without its type). */
  check?(options: ReadOptions): void
  /** Throws (a domain `invalid`) when the input is not this format at all, before any element is given. */
  read(input: TextChunks, options: ReadOptions): AsyncIterable<ReadEvent>
  /** How the format reads a directory of files, for a format published as one (a MISP feed). */
  directory?: DirectoryReader
}

/** The files of a directory, by name, as the adapter opens them (a name with a path in it is refused). */
export interface DirectoryFiles {
  /** The file's text as it streams; reading it throws when the file cannot be read (missing, say). */
  open(name: string): TextChunks
}

/** A format published as a directory: a file that marks it (`manifest.json`) and the files it names. */
export interface DirectoryReader {
  /** The file whose presence makes a directory this format's. */
  index: string
  read(files: DirectoryFiles, options: ReadOptions): AsyncIterable<ReadEvent>
}

export interface WriteOptions {
  /** The namespace of derived ids (Services.installationId). */
  installationId: string
  ownerName: string
}

/** An Indicator with the metadata its format asked for (the others are left empty). */
export interface WrittenIndicator {
  record: IndicatorRecord
  tags: readonly Tag[]
  securityLabels: readonly SecurityLabel[]
  attributes: readonly AttributeView[]
  /** The source STIX id it is served under (migration 0139), for a format that asked for `stixIds`. */
  stixId?: string
}

/** One file being written: its opening, each Indicator's text (separator included) as it comes, its closing. */
export interface FileWriter {
  opening(): string
  /** Undefined for an Indicator the format cannot express. */
  indicator(indicator: WrittenIndicator): string | undefined
  /** The owner's Groups and associations, for a format that holds them (STIX); absent otherwise. */
  graph?(graph: FeedGraph): { text: string; count: number }
  closing(): string
}

export interface IndicatorWriter {
  /** The metadata each Indicator needs loaded. */
  metadata: readonly ('tags' | 'securityLabels' | 'attributes' | 'stixIds')[]
  /** Whether some Indicators have no form in the format, so an export says how many it left out. */
  mayLeaveOut: boolean
  open(options: WriteOptions): FileWriter
}

export interface Format {
  /** What `--format` calls it. */
  name: string
  /**
   * Whether a file is in this format, from its name and, where the name leaves it open, the first
   * 4 KB of its text (`head`; absent for a file not written yet).
   */
  detect(fileName: string, head?: () => string): boolean
  reader?: IndicatorReader
  writer?: IndicatorWriter
}

/**
 * A feed: a source of intelligence Bulwark pulls on a schedule into one owner (normally a
 * Source), and the record of each run. What each kind pulls, and how its cursor keeps a pull
 * lossless, is the puller's (src/feeds/); what a feed is, who may change it and how a run is
 * recorded is here. docs/feeds.md.
 */

export const FEED_KINDS = ['taxii21', 'taxii11', 'misp', 'csv', 'text'] as const
export type FeedKind = (typeof FEED_KINDS)[number]

/** How a feed proves who it is; never returned by the API, never logged. */
export type FeedCredentials =
  | { kind: 'basic'; user: string; password: string }
  | { kind: 'bearer'; token: string }
  | { kind: 'header'; name: string; value: string }

/** What only some kinds read. */
export interface FeedSettings {
  /** TAXII 2.1: the collection's id or alias; TAXII 1.1: the collection (feed) name. */
  collection?: string
  /** TAXII 2.1: `match[type]`, when only some STIX types are wanted. */
  types?: string[]
  /** CSV: which column holds what (formats/csv/columns.ts, `value=IOC,type=Kind`). */
  columns?: string
  /** Text (and a CSV without a type column): the Indicator type of every value. */
  indicatorType?: string
  /** CSV and text: values that left the list become inactive. */
  mirror?: boolean
  /** TAXII 1.1: the poll service's URL, when discovery is not to be asked. */
  pollUrl?: string
}

/** What a feed's items get when they do not say it themselves; nothing is invented (no TLP by default). */
export interface FeedDefaults {
  rating?: number
  confidence?: number
  tags?: string[]
  securityLabel?: string
}

/** A feed as administrators see it: everything but its credentials, of which only the kind shows. */
export interface FeedView {
  id: number
  name: string
  kind: FeedKind
  url: string
  owner: string
  credentials: FeedCredentials['kind'] | 'none'
  hasCaFile: boolean
  intervalSeconds: number
  enabled: boolean
  settings: FeedSettings
  defaults: FeedDefaults
  importFrom?: string
  maxObjectsPerRun?: number
  nextRunAt: string
  lastSuccessAt?: string
  failures: number
  dateAdded: string
  lastModified: string
}

/** A feed as its run needs it: with its credentials opened, its CA and its cursor. */
export interface FeedDefinition extends Omit<FeedView, 'credentials' | 'hasCaFile'> {
  ownerId: number
  credentials?: FeedCredentials
  caPem?: string
  cursor: FeedCursor | null
}

/** A puller's own record of where the next pull starts (JSON). */
export type FeedCursor = Record<string, unknown>

export const FEED_RUN_STATUSES = ['Running', 'Succeeded', 'Failed', 'Interrupted'] as const
export type FeedRunStatus = (typeof FEED_RUN_STATUSES)[number]

/** One run, as `feeds run --wait --json`, `feeds history` and the API give it. */
export interface FeedRun {
  id: number
  feed: string
  status: FeedRunStatus
  trigger: 'schedule' | 'manual'
  startedAt: string
  finishedAt?: string
  pages: number
  fetched: number
  created: number
  updated: number
  unchanged: number
  refused: number
  /** The first refusals, by the item's place in the page and the reason. */
  refusals: { item: string; message: string }[]
  error?: string
}

/**
 * `bulwark feeds add|list|show|set|remove`: defining the feeds Bulwark pulls (domain/feeds/feeds.ts),
 * as the installation's administrator. The options become the body POST and PUT /v3/feeds take,
 * so both interfaces share one reading and one set of messages.
 */
import { readFileSync } from 'node:fs'
import { invalid } from '../../core/errors.js'
import type { FeedView } from '../../domain/feeds/feed.js'
import { addFeed, getFeed, listFeeds, removeFeed, updateFeed } from '../../domain/feeds/feeds.js'
import type { Services } from '../../domain/services.js'
import type { Store } from '../../store/connect.js'
import { cliContext } from '../context.js'
import type { CommandResult } from '../output.js'

const resultOf = (feed: FeedView): CommandResult => ({ ...feed })

/** The options of `feeds add` and `feeds set`, as commander gives them. */
export interface FeedOptions {
  kind?: string
  url?: string
  owner?: string
  collection?: string
  /** Comma-separated STIX types. */
  types?: string
  columns?: string
  indicatorType?: string
  /** `--mirror` true, `--no-mirror` false. */
  mirror?: boolean
  user?: string
  password?: string
  token?: string
  /** `Name: value`. */
  header?: string
  noCredentials?: boolean
  caFile?: string
  noCaFile?: boolean
  interval?: string
  importFrom?: string
  maxPerRun?: string
  rating?: string
  confidence?: string
  tag?: string[]
  securityLabel?: string
  disabled?: boolean
  enabled?: boolean
}

export interface FeedCommandArgs {
  name: string
  /** The account the command acts as: the first-start administrator unless `--as` names another. */
  userName: string
}

/** The v3 body the options make; only what was given, so that `set` changes only that. */
export function feedBodyOf(o: FeedOptions): Record<string, unknown> {
  const body: Record<string, unknown> = {}
  const put = (key: string, value: unknown) => {
    if (value !== undefined) body[key] = value
  }
  put('kind', o.kind)
  put('url', o.url)
  put('owner', o.owner)
  put('interval', o.interval)
  put('importFrom', o.importFrom)
  put('maxObjectsPerRun', o.maxPerRun)
  if (o.disabled && o.enabled) throw invalid('Give --enabled or --disabled, not both')
  put('enabled', o.disabled ? false : o.enabled ? true : undefined)
  const settings: Record<string, unknown> = {}
  if (o.collection !== undefined) settings.collection = o.collection
  if (o.types !== undefined) settings.types = o.types.split(',').map((t) => t.trim())
  if (o.columns !== undefined) settings.columns = o.columns
  if (o.indicatorType !== undefined) settings.indicatorType = o.indicatorType
  if (o.mirror !== undefined) settings.mirror = o.mirror
  if (Object.keys(settings).length) body.settings = settings
  const defaults: Record<string, unknown> = {}
  if (o.rating !== undefined) defaults.rating = o.rating
  if (o.confidence !== undefined) defaults.confidence = o.confidence
  if (o.tag?.length) defaults.tags = o.tag
  // An empty --security-label takes the default label away.
  if (o.securityLabel !== undefined) defaults.securityLabel = o.securityLabel || null
  if (Object.keys(defaults).length) body.defaults = defaults
  put('credentials', credentialsOf(o))
  if (o.caFile !== undefined && o.noCaFile) throw invalid('Give --ca-file or --no-ca-file, not both')
  put('caPem', o.noCaFile ? null : o.caFile === undefined ? undefined : readCaFile(o.caFile))
  return body
}

function credentialsOf(o: FeedOptions): Record<string, unknown> | null | undefined {
  const basic = o.user !== undefined || o.password !== undefined
  const given = [basic, o.token !== undefined, o.header !== undefined, !!o.noCredentials].filter(Boolean).length
  if (given > 1) throw invalid('Give one of --user with --password, --token, --header or --no-credentials')
  if (o.noCredentials) return null
  if (basic) {
    if (!o.user || !o.password) throw invalid('--user and --password go together')
    return { kind: 'basic', user: o.user, password: o.password }
  }
  if (o.token !== undefined) return { kind: 'bearer', token: o.token }
  if (o.header === undefined) return undefined
  const colon = o.header.indexOf(':')
  const name = o.header.slice(0, colon).trim()
  const value = o.header.slice(colon + 1).trim()
  if (colon < 0 || !name || !value) throw invalid("--header takes 'Name: value'")
  return { kind: 'header', name, value }
}

function readCaFile(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch (error) {
    throw invalid(`Cannot read the CA file ${path}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`)
  }
}

export async function addFeedCommand(
  store: Store,
  services: Services,
  args: FeedCommandArgs & { options: FeedOptions },
): Promise<CommandResult> {
  const ctx = await cliContext(store, services, args.userName)
  return resultOf(await addFeed(ctx, { name: args.name, ...feedBodyOf(args.options) }))
}

export async function setFeedCommand(
  store: Store,
  services: Services,
  args: FeedCommandArgs & { options: FeedOptions },
): Promise<CommandResult> {
  const ctx = await cliContext(store, services, args.userName)
  return resultOf(await updateFeed(ctx, args.name, feedBodyOf(args.options)))
}

export async function showFeedCommand(store: Store, services: Services, args: FeedCommandArgs): Promise<CommandResult> {
  return resultOf(await getFeed(await cliContext(store, services, args.userName), args.name))
}

export async function listFeedsCommand(store: Store, services: Services, args: Omit<FeedCommandArgs, 'name'>) {
  return { feeds: await listFeeds(await cliContext(store, services, args.userName)) }
}

export async function removeFeedCommand(store: Store, services: Services, args: FeedCommandArgs) {
  const feed = await removeFeed(await cliContext(store, services, args.userName), args.name)
  return { removed: feed.name, id: feed.id }
}

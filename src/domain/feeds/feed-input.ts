/**
 * A feed's definition read from a v3 body (the CLI builds the same body from its options): every
 * value checked here, each refusal naming its field, and no secret ever echoed in a message. What
 * needs the database (the owner, its Security Labels, a unique name) is feeds.ts's.
 */
import { X509Certificate } from 'node:crypto'
import { invalid } from '../../core/errors.js'
import { booleanValue, oneOf, optionalBoolean, optionalInteger, optionalTime, requiredText } from '../../core/input.js'
import { parseColumnMap } from '../../formats/csv/columns.js'
import { INDICATOR_TYPES } from '../../model/indicator-types.js'
import { checkTagName } from '../metadata/tags.js'
import { FEED_KINDS, type FeedCredentials, type FeedDefaults, type FeedKind, type FeedSettings } from './feed.js'

type Body = Record<string, unknown>

/** A feed's stored fields but its credentials, its CA and what its runs write. */
export interface FeedDraft {
  name: string
  kind: FeedKind
  url: string
  /** The owner's name, as given; feeds.ts finds it. */
  owner: string
  intervalSeconds: number
  enabled: boolean
  settings: FeedSettings
  defaults: FeedDefaults
  importFrom: string | null
  maxObjectsPerRun: number | null
}

export const DEFAULT_INTERVAL_SECONDS = 3600
export const MIN_INTERVAL_SECONDS = 60
const MAX_INTERVAL_SECONDS = 365 * 86_400
const NAME_MAX_LENGTH = 200
const SECRET_MAX_LENGTH = 8192
const CA_MAX_LENGTH = 1024 * 1024

const FIELDS = [
  'name',
  'kind',
  'url',
  'owner',
  'credentials',
  'caPem',
  'interval',
  'intervalSeconds',
  'enabled',
  'settings',
  'defaults',
  'importFrom',
  'maxObjectsPerRun',
]
/** A FeedView's fields no body sets: ignored, so that what GET gave can be sent back with changes. */
const READ_ONLY = ['id', 'hasCaFile', 'nextRunAt', 'lastSuccessAt', 'failures', 'dateAdded', 'lastModified']

/** Which kinds read each setting. */
const SETTING_KINDS: Record<keyof FeedSettings, readonly FeedKind[]> = {
  collection: ['taxii21', 'taxii11'],
  types: ['taxii21'],
  columns: ['csv'],
  indicatorType: ['csv', 'text'],
  mirror: ['csv', 'text'],
  pollUrl: ['taxii11'],
}
const DEFAULT_FIELDS = ['rating', 'confidence', 'tags', 'securityLabel']
const INDICATOR_TYPE_NAMES = INDICATOR_TYPES.map((t) => t.name)

const isRecord = (value: unknown): value is Body => typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * The draft a body makes: each field it gives over `current` (an update), or over the defaults
 * (a create: name, kind, url and owner required; every hour; enabled).
 *
 * @example readFeedDraft({ name: 'abuse.ch', kind: 'text', url: 'https://…', owner: 'Feeds', settings: { indicatorType: 'URL' } })
 */
export function readFeedDraft(body: unknown, current?: FeedDraft): FeedDraft {
  if (!isRecord(body)) throw invalid('The body must be a JSON object')
  for (const key of Object.keys(body))
    if (!FIELDS.includes(key) && !READ_ONLY.includes(key))
      throw invalid(`'${key}' is not a field of a feed; the fields are ${FIELDS.join(', ')}`)
  const creating = current === undefined
  const kind = oneOf(body, 'kind', FEED_KINDS, creating) ?? current!.kind
  return {
    name: requiredText(body, 'name', creating, { max: NAME_MAX_LENGTH }) ?? current!.name,
    kind,
    url: body.url === undefined ? current!.url : readUrl(body.url, 'url'),
    owner: requiredText(body, 'owner', creating) ?? current!.owner,
    intervalSeconds: readIntervalField(body) ?? current?.intervalSeconds ?? DEFAULT_INTERVAL_SECONDS,
    enabled: optionalBoolean(body, 'enabled') ?? current?.enabled ?? true,
    settings: readSettings(kind, merged(body, 'settings', current?.settings)),
    defaults: readDefaults(merged(body, 'defaults', current?.defaults)),
    importFrom: orCurrent(optionalTime(body, 'importFrom'), current?.importFrom),
    maxObjectsPerRun: orCurrent(optionalInteger(body, 'maxObjectsPerRun', { min: 1 }), current?.maxObjectsPerRun),
  }
}

const orCurrent = <T>(value: T | null | undefined, current: T | null | undefined): T | null =>
  value === undefined ? (current ?? null) : value

/** A nested object of the body over the current one: a key given null is removed, `null` for the whole empties it. */
function merged(body: Body, field: 'settings' | 'defaults', current: object = {}): Body {
  const given = body[field]
  if (given === undefined) return { ...current }
  if (given === null) return {}
  if (!isRecord(given)) throw invalid(`${field} must be an object`)
  const result: Body = { ...current, ...given }
  for (const key of Object.keys(result)) if (result[key] === null) delete result[key]
  return result
}

/** An absolute http(s) URL without a user name or password (those belong in credentials). */
export function readUrl(value: unknown, field: string): string {
  if (typeof value !== 'string' || !value.trim()) throw invalid(`${field} is required`)
  let url: URL
  try {
    url = new URL(value.trim())
  } catch {
    throw invalid(`${field} must be an absolute http or https URL`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw invalid(`${field} must be an http or https URL, not ${url.protocol.slice(0, -1)}`)
  if (url.username || url.password)
    throw invalid(`${field} must not carry a user name or password; give them in credentials`)
  return url.href
}

/** `interval` ('15m', '1h', '1d', whole seconds) or `intervalSeconds`; undefined when neither is given. */
function readIntervalField(body: Body): number | undefined {
  if (body.interval !== undefined && body.intervalSeconds !== undefined)
    throw invalid('Give interval or intervalSeconds, not both')
  const value = body.interval ?? body.intervalSeconds
  return value === undefined ? undefined : readInterval(value)
}

const UNIT_SECONDS: Record<string, number> = { '': 1, s: 1, m: 60, h: 3600, d: 86_400 }

/**
 * A duration in seconds: whole seconds, or a number with s, m, h or d.
 * @example readInterval('15m') === 900; readInterval(3600) === 3600
 */
export function readInterval(value: unknown): number {
  const match = /^\s*(\d+)\s*([smhd]?)\s*$/i.exec(String(value))
  const seconds =
    typeof value === 'number' ? value : match ? Number(match[1]) * UNIT_SECONDS[match[2].toLowerCase()] : Number.NaN
  if (!Number.isSafeInteger(seconds))
    throw invalid(`interval must be a duration such as 15m, 1h or 1d, or whole seconds; not '${String(value)}'`)
  if (seconds < MIN_INTERVAL_SECONDS) throw invalid(`interval must be at least ${MIN_INTERVAL_SECONDS} seconds (1m)`)
  if (seconds > MAX_INTERVAL_SECONDS) throw invalid('interval must be at most 365d')
  return seconds
}

/** What the kind reads, each value checked; a setting another kind reads is refused, not kept unread. */
function readSettings(kind: FeedKind, given: Body): FeedSettings {
  const settings: FeedSettings = {}
  for (const [key, value] of Object.entries(given)) {
    const kinds = SETTING_KINDS[key as keyof FeedSettings]
    if (!kinds)
      throw invalid(`settings.${key} is not a feed setting; the settings are ${Object.keys(SETTING_KINDS).join(', ')}`)
    if (!kinds.includes(kind))
      throw invalid(`settings.${key} applies to ${kinds.join(' and ')} feeds only, not to a ${kind} feed`)
    const field = `settings.${key}`
    if (key === 'collection') settings.collection = text(value, field)
    else if (key === 'types') settings.types = readTypes(value)
    else if (key === 'columns') settings.columns = readColumns(value)
    else if (key === 'indicatorType') settings.indicatorType = readIndicatorType(value)
    else if (key === 'mirror') settings.mirror = booleanValue(value, field)
    else settings.pollUrl = readUrl(value, field)
  }
  if ((kind === 'taxii21' || kind === 'taxii11') && !settings.collection)
    throw invalid(
      `A ${kind} feed needs settings.collection (${kind === 'taxii21' ? "the collection's id or alias" : "the collection's name"})`,
    )
  if (kind === 'text' && !settings.indicatorType)
    throw invalid(`A text feed needs settings.indicatorType, one of ${INDICATOR_TYPE_NAMES.join(', ')}`)
  return settings
}

function text(value: unknown, field: string): string {
  if (typeof value !== 'string' || !value.trim()) throw invalid(`${field} must be a non-empty string`)
  return value.trim()
}

function readTypes(value: unknown): string[] {
  const list = Array.isArray(value) ? value : undefined
  if (!list?.length || !list.every((t) => typeof t === 'string' && /^[a-z0-9][a-z0-9-]*$/.test(t)))
    throw invalid('settings.types must be a list of STIX object types, e.g. ["indicator", "malware"]')
  return [...new Set(list as string[])]
}

function readColumns(value: unknown): string {
  const columns = text(value, 'settings.columns')
  try {
    parseColumnMap(columns)
  } catch (error) {
    throw invalid(`settings.columns: ${(error as Error).message.replace(/^--map:? ?/, '')}`)
  }
  return columns
}

function readIndicatorType(value: unknown): string {
  const name = typeof value === 'string' ? value.trim().toLowerCase() : undefined
  const found = INDICATOR_TYPE_NAMES.find((n) => n.toLowerCase() === name)
  if (!found)
    throw invalid(`settings.indicatorType must be one of ${INDICATOR_TYPE_NAMES.join(', ')}; not '${String(value)}'`)
  return found
}

/** What the feed's items get when they say nothing themselves; the label is checked against the owner later. */
function readDefaults(given: Body): FeedDefaults {
  const defaults: FeedDefaults = {}
  for (const [key, value] of Object.entries(given)) {
    if (!DEFAULT_FIELDS.includes(key))
      throw invalid(`defaults.${key} is not a feed default; the defaults are ${DEFAULT_FIELDS.join(', ')}`)
    if (key === 'rating') defaults.rating = numberIn(value, 'defaults.rating', 0, 5, false)
    else if (key === 'confidence') defaults.confidence = numberIn(value, 'defaults.confidence', 0, 100, true)
    else if (key === 'securityLabel') defaults.securityLabel = text(value, 'defaults.securityLabel')
    else defaults.tags = readTags(value)
  }
  return defaults
}

function numberIn(value: unknown, field: string, min: number, max: number, whole: boolean): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() ? Number(value) : Number.NaN
  if (!Number.isFinite(n) || (whole && !Number.isInteger(n)) || n < min || n > max)
    throw invalid(`${field} must be ${whole ? 'a whole number' : 'a number'} from ${min} to ${max}`)
  return n
}

function readTags(value: unknown): string[] {
  if (!Array.isArray(value)) throw invalid('defaults.tags must be a list of tag names')
  try {
    return [...new Set(value.map(checkTagName))]
  } catch (error) {
    throw invalid(`defaults.tags: ${(error as Error).message}`)
  }
}

const CREDENTIAL_FIELDS: Record<FeedCredentials['kind'], readonly string[]> = {
  basic: ['user', 'password'],
  bearer: ['token'],
  header: ['name', 'value'],
}
const CREDENTIALS_SHAPE =
  'credentials must be {kind: "basic", user, password}, {kind: "bearer", token} or {kind: "header", name, value}'

/** undefined: not given (kept); null: none. Messages name fields, never their values. */
export function readCredentials(value: unknown): FeedCredentials | null | undefined {
  if (value === undefined || value === null) return value
  if (!isRecord(value)) throw invalid(CREDENTIALS_SHAPE)
  const kind = value.kind as FeedCredentials['kind']
  const fields =
    typeof kind === 'string' && Object.hasOwn(CREDENTIAL_FIELDS, kind) ? CREDENTIAL_FIELDS[kind] : undefined
  if (!fields) throw invalid(CREDENTIALS_SHAPE)
  for (const key of Object.keys(value))
    if (key !== 'kind' && !fields.includes(key))
      throw invalid(`credentials of kind ${kind} take ${fields.join(' and ')}, not ${key}`)
  const read: Record<string, string> = {}
  for (const key of fields) {
    const field = value[key]
    if (typeof field !== 'string' || !field) throw invalid(`credentials of kind ${kind} need ${key}`)
    if (field.length > SECRET_MAX_LENGTH)
      throw invalid(`credentials.${key} is longer than ${SECRET_MAX_LENGTH} characters`)
    // A line break in a header would let the value write headers of its own.
    if (/[\r\n\0]/.test(field)) throw invalid(`credentials.${key} must not contain line breaks`)
    read[key] = field
  }
  if (kind === 'basic' && read.user.includes(':')) throw invalid('credentials.user must not contain a colon')
  if (kind === 'header' && !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(read.name))
    throw invalid('credentials.name must be an HTTP header name')
  return { kind, ...read } as FeedCredentials
}

const CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g

/** PEM certificates to trust besides the system's, each one parsed; stored as the blocks alone. */
export function readCaPem(value: unknown): string | null | undefined {
  if (value === undefined || value === null) return value
  if (typeof value !== 'string') throw invalid('caPem must be PEM text')
  if (value.length > CA_MAX_LENGTH) throw invalid(`caPem is longer than ${CA_MAX_LENGTH} characters`)
  if (/PRIVATE KEY-----/.test(value)) throw invalid('caPem must hold certificates only, and it holds a private key')
  const blocks = value.match(CERTIFICATE) ?? []
  if (!blocks.length) throw invalid('caPem holds no PEM certificate (-----BEGIN CERTIFICATE-----)')
  blocks.forEach((block, i) => {
    try {
      new X509Certificate(block)
    } catch {
      throw invalid(`caPem: certificate ${i + 1} of ${blocks.length} is not a valid X.509 certificate`)
    }
  })
  return `${blocks.join('\n')}\n`
}

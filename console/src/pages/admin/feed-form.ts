/**
 * What the feed form means: its fields from a feed (FeedView, which never carries credentials: only their
 * kind), and the v3 body a filled form sends (POST /api/v3/feeds for a new feed, PUT for a change). The
 * server checks every value; this only says which fields the kind reads and what an empty field means.
 */
import type { FeedKind, FeedView } from '../../../../src/domain/feeds/feed.js'

export const KIND_LABELS: Record<FeedKind, string> = {
  taxii21: 'TAXII 2.1 collection',
  taxii11: 'TAXII 1.1 collection',
  misp: 'MISP feed',
  csv: 'CSV list',
  text: 'Text list (one value a line)',
}

type SettingName = 'collection' | 'types' | 'pollUrl' | 'columns' | 'indicatorType' | 'mirror'

/** Which kinds read each setting (docs/feeds.md); a setting the kind does not read is sent as null, so it goes. */
export const SETTING_KINDS: Record<SettingName, readonly FeedKind[]> = {
  collection: ['taxii21', 'taxii11'],
  types: ['taxii21'],
  pollUrl: ['taxii11'],
  columns: ['csv'],
  indicatorType: ['csv', 'text'],
  mirror: ['csv', 'text'],
}

export const readsSetting = (kind: FeedKind, setting: SettingName) => SETTING_KINDS[setting].includes(kind)

/** `keep`: leave the stored credentials as they are (a change only); `none`: no credentials (or remove them). */
export type CredentialsChoice = 'keep' | 'none' | 'basic' | 'bearer' | 'header'

export interface FeedForm {
  name: string
  kind: FeedKind
  url: string
  owner: string
  credentials: CredentialsChoice
  user: string
  password: string
  token: string
  headerName: string
  headerValue: string
  /** PEM text to trust; empty keeps what is stored. */
  caPem: string
  removeCa: boolean
  interval: string
  enabled: boolean
  collection: string
  /** STIX types, comma-separated. */
  types: string
  pollUrl: string
  columns: string
  indicatorType: string
  mirror: boolean
  rating: string
  confidence: string
  /** Tag names, comma-separated. */
  tags: string
  securityLabel: string
  importFrom: string
  maxObjectsPerRun: string
}

/** A duration as the API's `interval` reads it: the largest whole unit. */
export function intervalText(seconds: number): string {
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
  ] as const)
    if (seconds % size === 0) return `${seconds / size}${unit}`
  return String(seconds)
}

/** The form for a new feed, or for changing `feed`. */
export function feedForm(feed?: FeedView, owner = ''): FeedForm {
  const s = feed?.settings ?? {}
  const d = feed?.defaults ?? {}
  return {
    name: feed?.name ?? '',
    kind: feed?.kind ?? 'text',
    url: feed?.url ?? '',
    owner: feed?.owner ?? owner,
    credentials: feed ? 'keep' : 'none',
    user: '',
    password: '',
    token: '',
    headerName: '',
    headerValue: '',
    caPem: '',
    removeCa: false,
    interval: feed ? intervalText(feed.intervalSeconds) : '1h',
    enabled: feed?.enabled ?? true,
    collection: s.collection ?? '',
    types: (s.types ?? []).join(', '),
    pollUrl: s.pollUrl ?? '',
    columns: s.columns ?? '',
    indicatorType: s.indicatorType ?? '',
    mirror: s.mirror ?? false,
    rating: d.rating === undefined ? '' : String(d.rating),
    confidence: d.confidence === undefined ? '' : String(d.confidence),
    tags: (d.tags ?? []).join(', '),
    securityLabel: d.securityLabel ?? '',
    importFrom: feed?.importFrom ?? '',
    maxObjectsPerRun: feed?.maxObjectsPerRun === undefined ? '' : String(feed.maxObjectsPerRun),
  }
}

const words = (text: string) =>
  text
    .split(',')
    .map((w) => w.trim())
    .filter(Boolean)

/** A number typed in a field, sent as a number when it is one (else as typed, for the server to name). */
const numberOf = (text: string): number | string => (/^-?\d+(\.\d+)?$/.test(text.trim()) ? Number(text) : text.trim())

function credentialsOf(form: FeedForm, changing: boolean): Record<string, string> | null | undefined {
  switch (form.credentials) {
    case 'keep':
      return undefined
    case 'none':
      return changing ? null : undefined
    case 'basic':
      return { kind: 'basic', user: form.user, password: form.password }
    case 'bearer':
      return { kind: 'bearer', token: form.token }
    case 'header':
      return { kind: 'header', name: form.headerName, value: form.headerValue }
  }
}

/**
 * The body the form sends. A new feed sends what is filled in; a change sends every field, an empty one
 * as null (removed), and each setting the kind does not read as null, so a feed moved to another kind keeps
 * no setting of the old one.
 */
export function feedBody(form: FeedForm, changing: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = {
    name: form.name.trim(),
    kind: form.kind,
    url: form.url.trim(),
    owner: form.owner,
    interval: form.interval.trim() || '1h',
    enabled: form.enabled,
  }
  const settings: Record<string, unknown> = {}
  const given: Record<SettingName, unknown> = {
    collection: form.collection.trim() || null,
    types: words(form.types).length ? words(form.types) : null,
    pollUrl: form.pollUrl.trim() || null,
    columns: form.columns.trim() || null,
    indicatorType: form.indicatorType || null,
    mirror: form.mirror ? true : null,
  }
  for (const [name, value] of Object.entries(given) as [SettingName, unknown][]) {
    const read = readsSetting(form.kind, name)
    if (read && value !== null) settings[name] = value
    else if (changing) settings[name] = null
  }
  body.settings = settings
  const defaults: Record<string, unknown> = {
    rating: form.rating.trim() ? numberOf(form.rating) : null,
    confidence: form.confidence.trim() ? numberOf(form.confidence) : null,
    tags: words(form.tags).length ? words(form.tags) : null,
    securityLabel: form.securityLabel.trim() || null,
  }
  body.defaults = changing ? defaults : Object.fromEntries(Object.entries(defaults).filter(([, v]) => v !== null))
  if (form.importFrom.trim() || changing) body.importFrom = form.importFrom.trim() || null
  if (form.maxObjectsPerRun.trim() || changing)
    body.maxObjectsPerRun = form.maxObjectsPerRun.trim() ? numberOf(form.maxObjectsPerRun) : null
  const credentials = credentialsOf(form, changing)
  if (credentials !== undefined) body.credentials = credentials
  if (form.caPem.trim()) body.caPem = form.caPem
  else if (changing && form.removeCa) body.caPem = null
  return body
}

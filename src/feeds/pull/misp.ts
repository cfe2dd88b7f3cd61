/**
 * A MISP feed: a directory served over HTTPS, `manifest.json` naming each event by uuid with its
 * timestamp (the time of its last change), and `<uuid>.json` holding the event (`{"Event": …}`, the
 * misp reader's input as it is). The manifest is asked with the ETag of the last one read all the
 * way (304: no pages); each event new or changed since its stored timestamp is fetched and given as
 * one page, oldest first. A page's cursor is what is stored once its event is: the events held by
 * uuid → timestamp, and the manifest's ETag only on the page that ends the manifest, so a pull
 * stopped between events asks the manifest again and fetches only what is not stored yet.
 * docs/feeds.md, "MISP feeds, CSV and text lists".
 */
import { invalid } from '../../core/errors.js'
import { readJson } from '../../core/input.js'
import type { FeedCursor } from '../../domain/feeds/feed.js'
import type { PullContext, PullPage, Puller } from '../../domain/feeds/pull.js'
import { mispEvents } from '../../formats/misp/misp.js'
import { cursorOnlyPage, utf8Text } from './pages.js'

const MANIFEST = 'manifest.json'
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** The cursor of a MISP feed: the stored events' timestamps (Unix seconds, as MISP writes them) by uuid. */
export interface MispCursor {
  /** The ETag of the manifest whose every event is stored. */
  etag?: string
  events: Record<string, number>
}

interface ManifestEvent {
  uuid: string
  timestamp: number
}

export const mispPuller: Puller = {
  async *pull(context) {
    yield* pullMispFeed(context)
  },
}

async function* pullMispFeed(context: PullContext): AsyncGenerator<PullPage> {
  const { feed, http, signal } = context
  const budget = context.remaining
  const before = readMispCursor(context.cursor)
  const base = directoryUrl(feed.url)
  signal.throwIfAborted()
  const answer = await http.request(new URL(MANIFEST, base).href, {
    headers: before.etag ? { 'If-None-Match': before.etag } : {},
  })
  if (answer.status === 304) return
  const etag = answer.header('etag')
  const listed = readManifest(await answer.text())
  // Events gone from the manifest are forgotten: the cursor holds only what the feed still lists.
  const events: Record<string, number> = {}
  for (const e of listed) if (before.events[e.uuid] !== undefined) events[e.uuid] = before.events[e.uuid]
  const importFrom = feed.importFrom ? Date.parse(feed.importFrom) : Number.NaN
  const from = Number.isNaN(importFrom) ? undefined : importFrom
  const due = listed
    .filter((e) => events[e.uuid] !== e.timestamp && (from === undefined || e.timestamp * 1000 >= from))
    .sort((a, b) => a.timestamp - b.timestamp || (a.uuid < b.uuid ? -1 : 1))

  if (!due.length) {
    const moved = etag !== before.etag || Object.keys(events).length !== Object.keys(before.events).length
    if (moved) yield cursorOnlyPage(MANIFEST, cursorOf(events, etag))
    return
  }
  let fetched = 0
  for (const [i, event] of due.entries()) {
    if (fetched >= budget) return
    signal.throwIfAborted()
    const name = `${event.uuid}.json`
    const file = await http.request(new URL(name, base).href)
    events[event.uuid] = event.timestamp
    const last = i === due.length - 1
    // A copy: the run may hold a page's cursor while the next page adds to the record.
    yield {
      format: mispEvents.name,
      content: utf8Text(file.chunks()),
      name,
      fetched: 1,
      cursor: cursorOf({ ...events }, last ? etag : undefined),
    }
    fetched++
  }
}

function cursorOf(events: Record<string, number>, etag: string | undefined): FeedCursor {
  return etag ? { etag, events } : { events }
}

/** The cursor as stored, or an empty one for a first pull (or a cursor not of this kind). */
export function readMispCursor(cursor: FeedCursor | null): MispCursor {
  const events: Record<string, number> = {}
  const stored = cursor?.events
  if (stored && typeof stored === 'object' && !Array.isArray(stored))
    for (const [uuid, timestamp] of Object.entries(stored))
      if (typeof timestamp === 'number' && Number.isFinite(timestamp)) events[uuid] = timestamp
  return typeof cursor?.etag === 'string' ? { etag: cursor.etag, events } : { events }
}

/** The feed's directory, whether the feed was given by it or by its manifest's URL. */
function directoryUrl(url: string): URL {
  const base = new URL(url)
  if (base.pathname.endsWith(`/${MANIFEST}`)) base.pathname = base.pathname.slice(0, -MANIFEST.length)
  else if (!base.pathname.endsWith('/')) base.pathname += '/'
  return base
}

/**
 * The manifest's events with their timestamps. A key that is no uuid names no file a feed may ask
 * for (the directory reader refuses it too) and is left out; an event without a timestamp counts
 * as 0: fetched once, then again only when the manifest gives it one.
 */
export function readManifest(text: string): ManifestEvent[] {
  let manifest: unknown
  try {
    manifest = readJson(text)
  } catch (error) {
    throw invalid(`${MANIFEST} is not JSON: ${error instanceof Error ? error.message : String(error)}`)
  }
  if (!manifest || typeof manifest !== 'object' || Array.isArray(manifest))
    throw invalid(`${MANIFEST} is not a MISP feed manifest (an object of events by uuid)`)
  const events: ManifestEvent[] = []
  for (const [uuid, entry] of Object.entries(manifest as Record<string, unknown>)) {
    if (!UUID.test(uuid)) continue
    const stamp = entry && typeof entry === 'object' ? (entry as Record<string, unknown>).timestamp : undefined
    const timestamp = typeof stamp === 'number' ? stamp : typeof stamp === 'string' ? Number(stamp) : 0
    events.push({ uuid, timestamp: Number.isFinite(timestamp) ? Math.trunc(timestamp) : 0 })
  }
  return events
}

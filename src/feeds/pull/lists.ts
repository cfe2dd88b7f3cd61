/**
 * CSV and text lists: one file at one URL, the whole list each time. It is asked with the ETag and
 * Last-Modified of the last copy read (304: no pages). Whatever the server answers, the body's
 * SHA-256 decides whether the list changed: the same bytes as the stored copy are not read again,
 * whatever new ETag or date they come with (a page without items then only moves the cursor). A
 * changed list is one page, `complete`, so a feed in mirror mode retires what left it once the page
 * is stored.
 *
 * The hash is known only once the body is all in, and the page must carry it in its cursor, so the
 * body streams first into a temporary file (hashed and counted on the way, memory bounded whatever
 * the list's length), and the page reads that file. The file is removed once the run asks for the
 * next page or leaves the pull: a page's content is readable until then. docs/feeds.md, "MISP
 * feeds, CSV and text lists".
 */
import { createHash } from 'node:crypto'
import { once } from 'node:events'
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { finished } from 'node:stream/promises'
import type { FeedCursor, FeedDefinition } from '../../domain/feeds/feed.js'
import type { PullContext, PullPage, Puller } from '../../domain/feeds/pull.js'
import { csvFile } from '../../formats/csv/csv.js'
import type { TextChunks } from '../../formats/format.js'
import { plainList } from '../../formats/text/text.js'
import { cursorOnlyPage } from './pages.js'

/** The cursor of a list: what the server called the copy read, and its SHA-256 (hex). */
export interface ListCursor {
  etag?: string
  lastModified?: string
  sha256?: string
}

/** A CSV list: each record read by the column map of the feed's settings (`columns`), else by its header's names. */
export const csvListPuller: Puller = {
  pull: (context) =>
    pullList(context, 'csv', {
      format: csvFile.name,
      ...optionsOf({ map: context.feed.settings.columns, type: context.feed.settings.indicatorType }),
    }),
}

/** A text list: one value a line, of the feed's `indicatorType`, else of the type each value shows. */
export const textListPuller: Puller = {
  pull: (context) =>
    pullList(context, 'text', {
      format: plainList.name,
      ...optionsOf({ type: context.feed.settings.indicatorType }),
    }),
}

function optionsOf(options: { map?: string; type?: string }): Pick<PullPage, 'options'> {
  const set = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined && v !== ''))
  return Object.keys(set).length ? { options: set } : {}
}

async function* pullList(
  context: PullContext,
  kind: 'csv' | 'text',
  reading: Pick<PullPage, 'format' | 'options'>,
): AsyncGenerator<PullPage> {
  const { feed, http, signal } = context
  // A list is one page, which the cap per run cannot cut; a run that may fetch nothing does not ask.
  if (context.remaining <= 0) return
  const before = readListCursor(context.cursor)
  const headers: Record<string, string> = {}
  if (before.etag) headers['If-None-Match'] = before.etag
  if (before.lastModified) headers['If-Modified-Since'] = before.lastModified
  signal.throwIfAborted()
  const answer = await http.request(feed.url, { headers })
  if (answer.status === 304) return
  const name = listName(feed)
  const dir = await mkdtemp(join(tmpdir(), 'bulwark-feed-list-'))
  try {
    const file = join(dir, 'list')
    const copy = await copyHashed(answer.chunks(), file, signal)
    const cursor: FeedCursor = {
      ...(answer.header('etag') ? { etag: answer.header('etag') } : {}),
      ...(answer.header('last-modified') ? { lastModified: answer.header('last-modified') } : {}),
      sha256: copy.sha256,
    }
    if (copy.sha256 === before.sha256) {
      if (cursor.etag !== before.etag || cursor.lastModified !== before.lastModified) yield cursorOnlyPage(name, cursor)
      return
    }
    // A CSV's header is no item.
    const fetched = Math.max(0, copy.lines - (kind === 'csv' ? 1 : 0))
    yield {
      ...reading,
      content: readText(file),
      name,
      fetched,
      cursor,
      // A list served empty is more likely a server's bad moment than a source withdrawing everything: it
      // is read, but retires nothing in mirror mode.
      ...(fetched > 0 ? { complete: true as const } : {}),
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** The cursor as stored, or an empty one for a first pull (or a cursor not of this kind). */
export function readListCursor(cursor: FeedCursor | null): ListCursor {
  const out: ListCursor = {}
  if (typeof cursor?.etag === 'string') out.etag = cursor.etag
  if (typeof cursor?.lastModified === 'string') out.lastModified = cursor.lastModified
  if (typeof cursor?.sha256 === 'string') out.sha256 = cursor.sha256
  return out
}

/** What refusals call the list: its file's name, never its query (which may carry a key). */
function listName(feed: FeedDefinition): string {
  const path = new URL(feed.url).pathname
  const last = path.slice(path.lastIndexOf('/') + 1)
  try {
    return decodeURIComponent(last) || 'list'
  } catch {
    return last
  }
}

/**
 * The body written to `file` as it streams, with its SHA-256 and its lines holding something other
 * than blanks or a comment (`#`, `//`, `;` first, as the plain list skips them): what the page's
 * `fetched` says, counted without holding a line.
 */
async function copyHashed(chunks: AsyncIterable<Buffer>, file: string, signal: AbortSignal) {
  const hash = createHash('sha256')
  const out = createWriteStream(file)
  // Settled now, awaited at the end: a write that fails meanwhile is no unhandled rejection.
  const done = finished(out).then(
    () => undefined,
    (error: unknown) => error,
  )
  let lines = 0
  /** Where the current line is: before its first non-blank byte, counted, or a comment. */
  let state: 'start' | 'counted' | 'comment' = 'start'
  try {
    for await (const chunk of chunks) {
      signal.throwIfAborted()
      hash.update(chunk)
      for (const byte of chunk) {
        if (byte === 0x0a) state = 'start'
        else if (state === 'start' && byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) {
          // '#', '/' or ';' first: a comment (a single '/' first is no value of any type either).
          if (byte === 0x23 || byte === 0x2f || byte === 0x3b) state = 'comment'
          else {
            state = 'counted'
            lines++
          }
        }
      }
      // once() rejects when the file fails to take the write, rather than waiting for a drain that never comes.
      if (!out.write(chunk)) await once(out, 'drain')
    }
  } finally {
    out.end()
  }
  const failed = await done
  if (failed) throw failed
  return { sha256: hash.digest('hex'), lines }
}

/** The copied list as UTF-8 text (a character split between two reads decoded whole). */
async function* readText(file: string): TextChunks {
  for await (const chunk of createReadStream(file, { encoding: 'utf8', highWaterMark: 256 * 1024 }))
    yield chunk as string
}

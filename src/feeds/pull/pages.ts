/**
 * What the MISP and list pullers share: bytes as a reader of formats/ takes them (UTF-8 text as
 * it streams, a character split across two chunks decoded once both are in), and the page that
 * holds no items and only moves the cursor.
 */
import type { FeedCursor } from '../../domain/feeds/feed.js'
import type { PullPage } from '../../domain/feeds/pull.js'
import type { TextChunks } from '../../formats/format.js'
import { plainList } from '../../formats/text/text.js'

/** The chunks decoded as UTF-8 as they come. */
export async function* utf8Text(chunks: AsyncIterable<Buffer>): TextChunks {
  const decoder = new TextDecoder('utf-8')
  for await (const chunk of chunks) {
    const text = decoder.decode(chunk, { stream: true })
    if (text) yield text
  }
  const rest = decoder.decode()
  if (rest) yield rest
}

async function* noText(): TextChunks {}

/**
 * A page with no items whose cursor the run stores all the same: the server answered anew (a new
 * ETag) with nothing Bulwark does not hold, and the next pull is to ask with what it said. Its
 * format is the plain list, which reads nothing from nothing, so a run that reads it anyway finds
 * no items and no error; `fetched` 0 says it holds none. Never `complete`: nothing was read, so
 * nothing may be retired after it (mirror mode).
 */
export function cursorOnlyPage(name: string, cursor: FeedCursor): PullPage {
  return { format: plainList.name, content: noText(), name, fetched: 0, cursor }
}

/**
 * How many items a chunk of a batch job (one transaction) takes. PostgreSQL's calls wait off the event loop, so
 * a chunk there is as large as pays: CHUNK_SIZE. SQLite runs a chunk synchronously, on the one event loop every
 * request of the node waits for: a chunk of 2,000 realistic Indicators held it for 100 to 250 ms, and a TQL read
 * arriving during a load waited that out (issue 28, point 5). There each chunk is sized from the time the last
 * one took per item, to take about SQLITE_CHUNK_MS.
 */
export const CHUNK_SIZE = 2000
export const SQLITE_CHUNK_MS = 20
const SQLITE_FIRST_CHUNK = 256
const SMALLEST_CHUNK = 64

export interface ChunkSizer {
  /** Items the next chunk takes. */
  readonly size: number
  /** What the last chunk took: its items and milliseconds. */
  took(items: number, ms: number): void
}

let fixed: number | undefined

/** Tests whose assertions fall on commit points (statistics refreshed after a job) fix the size on both databases. */
export function setFixedChunkSize(size: number | undefined): void {
  fixed = size
}

export function chunkSizer(dialect: 'sqlite' | 'postgres'): ChunkSizer {
  if (fixed !== undefined) return { size: fixed, took: () => undefined }
  if (dialect === 'postgres') return { size: CHUNK_SIZE, took: () => undefined }
  let size = SQLITE_FIRST_CHUNK
  return {
    get size() {
      return size
    },
    took(items, ms) {
      if (items < size / 2 || ms <= 0) return
      // One step at a time (a slow commit, a checkpoint or a statistics refresh, moves it by one), and only through
      // powers of two: each size writes statements of its own length, and few lengths keep them compiled
      // (store/connect.ts); sizes of every length made each chunk's statements new, and the native memory of
      // the ones dropped waited for V8 to collect them.
      const wanted = (items * SQLITE_CHUNK_MS) / ms
      if (wanted >= size * 2) size = Math.min(CHUNK_SIZE, size * 2)
      else if (wanted < size) size = Math.max(SMALLEST_CHUNK, size / 2)
    },
  }
}

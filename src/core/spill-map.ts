/**
 * A string-to-string map that keeps its first entries in memory and the rest in an anonymous
 * temporary SQLite database on disk (SQLite deletes its file when it is closed, or when the process
 * ends), so a reader that must remember every object of an input (a STIX bundle's indicators, for
 * the relationships after them) holds a bounded amount of memory whatever the input's size.
 */
import Database from 'better-sqlite3'

/** Entries held in memory before the map moves to disk: a few megabytes. */
export const IN_MEMORY_ENTRIES = 20_000
/** The scratch database's page cache, in KiB (SQLite's negative cache_size). */
const SCRATCH_CACHE_KIB = 4096

interface Scratch {
  db: Database.Database
  put: Database.Statement<[string, string]>
  find: Database.Statement<[string], string | undefined>
}

export class SpillMap {
  private memory = new Map<string, string>()
  private scratch: Scratch | undefined

  constructor(private readonly inMemoryEntries = IN_MEMORY_ENTRIES) {}

  get onDisk(): boolean {
    return this.scratch !== undefined
  }

  set(key: string, value: string): void {
    if (this.scratch) return void this.scratch.put.run(key, value)
    this.memory.set(key, value)
    if (this.memory.size > this.inMemoryEntries) this.spill()
  }

  get(key: string): string | undefined {
    return this.scratch ? this.scratch.find.get(key) : this.memory.get(key)
  }

  /** Lets the scratch file go; the map is empty and in memory again. */
  close(): void {
    this.scratch?.db.close()
    this.scratch = undefined
    this.memory = new Map()
  }

  private spill() {
    // '' opens a private temporary database, written to a file only as its pages leave the cache.
    const db = new Database('')
    db.pragma('journal_mode = OFF')
    db.pragma('synchronous = OFF')
    db.pragma(`cache_size = -${SCRATCH_CACHE_KIB}`)
    db.exec('CREATE TABLE entry (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID')
    // One transaction for the map's life: nothing is ever committed, so nothing is synced.
    db.exec('BEGIN')
    const scratch: Scratch = {
      db,
      put: db.prepare<[string, string]>('INSERT OR REPLACE INTO entry (key, value) VALUES (?, ?)'),
      find: db.prepare<[string], string | undefined>('SELECT value FROM entry WHERE key = ?').pluck(),
    }
    for (const [key, value] of this.memory) scratch.put.run(key, value)
    this.memory = new Map()
    this.scratch = scratch
  }
}

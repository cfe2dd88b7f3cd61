/**
 * Opens the one query layer over either database. `sqlite:<path>` (or `sqlite::memory:`)
 * selects the embedded default; `postgres://…` selects PostgreSQL, where any number of
 * server processes may share the database.
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import SqliteDatabase from 'better-sqlite3'
import {
  type DialectAdapter,
  type Driver,
  Kysely,
  PostgresAdapter,
  PostgresDialect,
  SqliteDialect,
  type SqliteDialectConfig,
  sql,
} from 'kysely'
import pg from 'pg'
import { CredentialWritePlugin } from './engine/credential-cache.js'
import { translateDatabaseError } from './engine/unavailable.js'
import type { Database } from './database.js'
import { stopCheckpoints } from './engine/sqlite-checkpoints.js'
import { SqliteReadAsideDriver, type StatementSource, WriterLock } from './engine/sqlite-driver.js'

export type Dialect = 'sqlite' | 'postgres'

export interface Store {
  db: Kysely<Database>
  dialect: Dialect
  /** The better-sqlite3 handle, for the few hot paths that bypass query building. */
  sqlite?: SqliteDatabase.Database
  /**
   * A file database's second connection, which only reads: what a read takes while a transaction holds `sqlite`
   * (engine/sqlite-driver.ts; `readingHandle` chooses). None for `:memory:`, which a second connection cannot open.
   */
  sqliteReader?: SqliteDatabase.Database
  /**
   * SQLite: the lock on the writing connection, shared by the stores of this process over the same file: who waits
   * for it (a batch job commits its open group for them), and what raw-handle writes hold while they run.
   */
  sqliteWriterLock?: WriterLock
  /** The pg pool, for the same reason. */
  pool?: pg.Pool
  /**
   * PostgreSQL behind a transaction pooler (PgBouncer `pool_mode = transaction`): statements run
   * unnamed, and nothing outlives its transaction (docs/scale-out.md).
   */
  transactionPooling?: boolean
  /** Where a session of its own can LISTEN (a direct connection); undefined: poll instead. */
  listenUrl?: string
  /** PostgreSQL read replicas (store/replicas.ts), when configured: what a request's store is chosen by. */
  replicas?: ReplicaRouting
  /**
   * On a request's store when replicas are configured: tells them that the transaction just committed
   * wrote for this caller (domain/transaction.ts), so the caller's next read waits for it on a replica.
   */
  committed?: () => void
  /**
   * On a request's store when replicas are configured: once the request is done, the primary's WAL
   * position if it wrote (undefined if not), for the caller to bring to another node.
   */
  writtenPosition?: () => Promise<string | undefined>
  close(): Promise<void>
}

/** What the domain asks of read replicas (store/replicas.ts implements it). */
export interface ReplicaRouting {
  /**
   * The store one request of a caller works on: writes always reach the primary and are remembered
   * for the caller; with `reads`, plain reads go to a replica that is up, within the lag bound and has
   * replayed the caller's last write (waited for briefly), else to the primary. `seen`: a WAL position
   * the caller brings (`16/B374D848`, from another node's answer to its write), read at least that far.
   */
  storeFor(callerKey: string, reads: boolean, seen?: string): Promise<Store>
  /** For the metrics: each replica (its host and port) with its state, and where read requests went since the start. */
  status(): {
    replicas: { name: string; up: boolean; lagMs: number }[]
    reads: Record<
      'replica' | 'replicaAfterWait' | 'primaryForOwnWrite' | 'primaryNoReplica' | 'retriedOnPrimary',
      number
    >
  }
  close(): Promise<void>
}

// PostgreSQL returns 64-bit integers and numerics as strings; every count and id here fits a double.
pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10))
pg.types.setTypeParser(1700, (v) => Number.parseFloat(v))

export interface StoreOptions {
  /** PostgreSQL connections the pool may open (Config.databasePoolSize). */
  poolSize?: number
  /** `transaction` behind a transaction pooler (Config.databasePooling). */
  pooling?: 'session' | 'transaction'
  /** How long a query waits for a pooled connection before it answers 503 (default CONNECT_TIMEOUT_MS). */
  connectTimeoutMs?: number
  /** A direct URL to LISTEN on (Config.databaseListenUrl); without it, the store's own URL unless pooled by transaction. */
  listenUrl?: string
  /** SQLite: how long a statement waits for another process's write lock before it answers 503 (default 5 s). */
  busyTimeoutMs?: number
}

export function openStore(url: string, options: StoreOptions = {}): Store {
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    const pool = openPool(url, {
      max: options.poolSize ?? 10,
      connectTimeoutMs: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
    })
    const db = new Kysely<Database>({
      dialect: new TransactionLockingPostgresDialect({ pool }),
      plugins: [new CredentialWritePlugin()],
    })
    const transactionPooling = options.pooling === 'transaction'
    const listenUrl = options.listenUrl ?? (transactionPooling ? undefined : url)
    return { db, dialect: 'postgres', pool, transactionPooling, listenUrl, close: () => db.destroy() }
  }
  if (!url.startsWith('sqlite:')) throw new Error(`Unsupported database URL scheme: ${url.split(':')[0]}`)
  const path = url.slice('sqlite:'.length)
  if (path !== ':memory:') createPrivately(path)
  const sqlite = new SqliteDatabase(path)
  sqlite.pragma('journal_mode = WAL')
  sqlite.pragma('synchronous = NORMAL')
  sqlite.pragma('foreign_keys = ON')
  // A checkpoint every 10,000 WAL pages (40 MB) instead of every 1,000: a batch job commits every
  // chunk, and each checkpoint copied the same hot index pages back again; measured on a file
  // database, commit time fell from 12 to 7 µs an imported Indicator (a fifth of the job's time).
  sqlite.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`)
  // After a checkpoint the WAL file is cut back to this size rather than left at its largest.
  sqlite.pragma(`journal_size_limit = ${WAL_KEPT_BYTES}`)
  // A page cache of 16 MB instead of SQLite's 2 MB. A batch chunk's rows land on random leaves of the summary and
  // hash indexes, which 2 MB holds few of: a realistic 1,000,000 load took 12 % less time and CPU with 16 MB, at the
  // same peak RSS (docs/benchmarks.md, "SQLite's page cache"). The cache is per connection.
  sqlite.pragma(`cache_size = -${PAGE_CACHE_KIB}`)
  const reader = path === ':memory:' ? undefined : openReader(path)
  for (const connection of [sqlite, reader]) {
    connection?.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? SQLITE_BUSY_TIMEOUT_MS))}`)
  }
  const lock = writerLockOf(path)
  const db = new Kysely<Database>({
    dialect: new ReadAsideSqliteDialect(
      lock.lock,
      reusingStatements(sqlite),
      reader && reusingStatements(reader, READER_STATEMENT_CHARS),
    ),
    plugins: [new CredentialWritePlugin()],
  })
  return {
    db,
    dialect: 'sqlite',
    sqlite,
    sqliteReader: reader,
    sqliteWriterLock: lock.lock,
    close: async () => {
      await stopCheckpoints(sqlite)
      await db.destroy()
      lock.release()
    },
  }
}

/**
 * A pg pool whose failures to reach the server answer 503 (TranslatingPool) and whose lost
 * connections never end the process.
 */
export function openPool(url: string, options: { max: number; connectTimeoutMs: number }): pg.Pool {
  const pool = new TranslatingPool({
    connectionString: url,
    max: options.max,
    // No connection free (or none to be had) within this: the request answers 503 instead of waiting on.
    connectionTimeoutMillis: options.connectTimeoutMs,
  })
  // A client that loses its server must not crash the process: an idle one is dropped by the
  // pool, and one lent out (between the statements of a transaction, say) fails its next query,
  // which the request answers as unavailable (503). pg emits 'error' on a lent client with no
  // listener of its own, which would end the process.
  pool.on('error', () => {})
  pool.on('connect', (client) => {
    client.on('error', () => {})
    translateQueryErrors(client)
  })
  return pool
}

/** How long a request waits for a PostgreSQL connection (pool exhausted, server unreachable) before a 503. */
export const CONNECT_TIMEOUT_MS = 5000

/** How long a SQLite statement waits for another connection's write lock before it answers 503. */
export const SQLITE_BUSY_TIMEOUT_MS = 5000

/**
 * Kysely's SQLite dialect over engine/sqlite-driver.ts: a writer under a lock, and a reader beside it. Of the base
 * dialect only its adapter and query compiler serve; the driver it would make from `database` is never made.
 */
class ReadAsideSqliteDialect extends SqliteDialect {
  constructor(
    private readonly lock: WriterLock,
    private readonly writer: StatementSource,
    private readonly reader?: StatementSource,
  ) {
    super({ database: writer as unknown as SqliteDialectConfig['database'] })
  }

  override createDriver(): Driver {
    return new SqliteReadAsideDriver(this.lock, this.writer, this.reader)
  }
}

/** The writer locks of the files this process has open, with how many stores use each. */
const writerLocks = new Map<string, { lock: WriterLock; users: number }>()

function writerLockOf(path: string): { lock: WriterLock; release(): void } {
  if (path === ':memory:') return { lock: new WriterLock(), release: () => undefined }
  const key = resolve(path)
  const entry = writerLocks.get(key) ?? { lock: new WriterLock(), users: 0 }
  entry.users++
  writerLocks.set(key, entry)
  return {
    lock: entry.lock,
    release: () => {
      if (--entry.users === 0) writerLocks.delete(key)
    },
  }
}

/**
 * The reading connection of a file database: it cannot write (`query_only`), and it keeps a smaller page cache, as
 * SQLite empties it whenever the writer commits.
 */
function openReader(path: string): SqliteDatabase.Database {
  const reader = new SqliteDatabase(path, { fileMustExist: true })
  reader.pragma('query_only = ON')
  reader.pragma(`cache_size = -${READER_CACHE_KIB}`)
  return reader
}

/**
 * The handle a read that bypasses Kysely (engine/prepared-read.ts, the credential look-ups) runs on: the writer when
 * no transaction is open on it (its cache is warm), else the reader, which sees what was last committed; undefined
 * when neither may serve it (an in-memory database inside another caller's transaction: the read waits through
 * Kysely). A read inside its own transaction goes through that transaction's handle, never here.
 */
export function readingHandle(store: Store): SqliteDatabase.Database | undefined {
  if (!store.sqlite) return undefined
  return store.sqlite.inTransaction ? store.sqliteReader : store.sqlite
}

/**
 * A pool whose failures to reach the server reject as DomainError('try_later')
 * (engine/unavailable.ts): what Kysely asks of it (connect) and what the raw reads ask (query).
 */
class TranslatingPool extends pg.Pool {
  override connect(): Promise<pg.PoolClient>
  override connect(
    callback: (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void,
  ): void
  override connect(
    callback?: (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void,
  ): Promise<pg.PoolClient> | void {
    if (callback)
      return super.connect((err, client, done) => callback(err && (translateDatabaseError(err) as Error), client, done))
    return super.connect().catch((error: unknown) => {
      throw translateDatabaseError(error)
    })
  }

  override query(...args: unknown[]): any {
    const result = (super.query as (...a: unknown[]) => unknown)(...args)
    if (result instanceof Promise)
      return result.catch((error: unknown) => {
        throw translateDatabaseError(error)
      })
    return result
  }
}

/** The same for the statements Kysely runs on a client it holds (a transaction's, say). */
function translateQueryErrors(client: pg.PoolClient): void {
  // The class's own query, looked up at each call: what instruments the driver (a test's spy) sees these statements too.
  const proto = Object.getPrototypeOf(client) as { query: (...args: unknown[]) => unknown }
  ;(client as { query: unknown }).query = (...args: unknown[]) => {
    const result = proto.query.apply(client, args)
    if (result instanceof Promise)
      return result.catch((error: unknown) => {
        throw translateDatabaseError(error)
      })
    return result
  }
}

/**
 * Kysely's migrator holds a session advisory lock on one connection around a transaction it
 * opens after. Behind a transaction pooler the lock, the transaction and the unlock may each go
 * to another server connection, so the lock stays held on one of them and every other node waits
 * for it forever. Here the lock opens the transaction itself and takes a transaction-scoped lock,
 * released by the commit (a COMMIT after a failed migration rolls back); the adapter says DDL is
 * not transactional so that the migrator opens no second transaction. One path for any pooling.
 */
class TransactionLockingPostgresAdapter extends PostgresAdapter {
  override get supportsTransactionalDdl(): boolean {
    return false
  }

  override async acquireMigrationLock(db: Kysely<any>): Promise<void> {
    await sql`begin`.execute(db)
    await sql`select pg_advisory_xact_lock(${sql.lit(MIGRATION_LOCK)})`.execute(db)
  }

  override async releaseMigrationLock(db: Kysely<any>): Promise<void> {
    await sql`commit`.execute(db)
  }
}

class TransactionLockingPostgresDialect extends PostgresDialect {
  override createAdapter(): DialectAdapter {
    return new TransactionLockingPostgresAdapter()
  }
}

/** The key of the migration lock (Kysely's own, so a node of an older version waits for this one too). */
const MIGRATION_LOCK = BigInt('3853314791062309107')

const WAL_CHECKPOINT_PAGES = 10_000
const WAL_KEPT_BYTES = 64 * 1024 * 1024
const PAGE_CACHE_KIB = 16 * 1024
const READER_CACHE_KIB = 4 * 1024
/**
 * The reading connection's compiled statements, a quarter of the writer's budget: it serves only reads beside a
 * transaction, and its statements repeat the writer's (native memory V8 does not see, counted once per connection).
 */
const READER_STATEMENT_CHARS = 64 * 1024

/**
 * Characters of SQL text kept compiled. A compiled statement costs SQLite 40 to 100 bytes of native memory a
 * character of its text, memory V8 does not see: counted by statements, the batch writer's IN lists and VALUES
 * tuples of every length filled 500 entries, and a realistic 1,000,000-Indicator load peaked at 394 MB. Counted by
 * text, the cache holds 10 to 25 MB whatever the lengths. A statement over an eighth of the budget (a chunk's
 * multi-row INSERT: 64,000 characters, 2.5 MB compiled) is compiled for each use: measured over a whole 1M load,
 * keeping those saved no server CPU (116 s either way) and cost 35 MB of peak RSS (290 against 255 MB).
 */
const STATEMENT_CACHE_CHARS = 256 * 1024

/**
 * Kysely prepares every query it runs, and compiling a statement costs SQLite more than running
 * it does for a look-up by id; the same text is compiled once and reused instead (SQLite
 * recompiles a statement itself after a schema change). A statement that a streamed query is
 * still iterating is busy and never handed out twice; the least recently used ones are dropped.
 */
export function reusingStatements(
  sqlite: SqliteDatabase.Database,
  budgetChars = STATEMENT_CACHE_CHARS,
): { close(): void; prepare(text: string): SqliteDatabase.Statement; cachedChars(): number } {
  // Least recently used first: a Map keeps insertion order and a hit is re-inserted.
  const statements = new Map<string, SqliteDatabase.Statement>()
  let chars = 0
  return {
    close: () => sqlite.close(),
    cachedChars: () => chars,
    prepare(text: string) {
      const cached = statements.get(text)
      if (cached && !cached.busy) {
        statements.delete(text)
        statements.set(text, cached)
        return cached
      }
      const statement = sqlite.prepare(text)
      if (cached || text.length > budgetChars / 8) return statement
      statements.set(text, statement)
      chars += text.length
      for (const [oldest] of statements) {
        if (chars <= budgetChars) break
        statements.delete(oldest)
        chars -= oldest.length
      }
      return statement
    },
  }
}

/**
 * SQLite gives its -wal, -shm and -journal files the mode of the database file, so a database
 * file made 0600 before SQLite opens it keeps all of them private; older ones are tightened.
 */
function createPrivately(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  if (!existsSync(path)) closeSync(openSync(path, 'a', 0o600))
  for (const file of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`]) {
    if (existsSync(file) && (statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600)
  }
}

/** One round trip to the database; rejects when it does not answer. */
export async function pingDatabase(store: Store): Promise<void> {
  await sql`select 1`.execute(store.db)
}

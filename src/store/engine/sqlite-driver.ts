/**
 * Kysely's driver for SQLite: one writing connection lent under a lock, as Kysely's own driver does, and for a file
 * database a second connection that reads take while a transaction holds the first.
 *
 * A transaction on the writing connection is open across turns of the event loop (a batch job commits several of
 * its chunks at once: store/connect.ts and domain/batch/run-job.ts say why). A read arriving meanwhile would wait for
 * the lock until that commit; on the reading connection it answers at once from the last committed state, which is
 * what it would have seen on the writer before the transaction began (WAL: readers never wait for the writer). A
 * read with the lock free goes to the writer as before, whose page cache is warm: the reader's is dropped by SQLite
 * each time the other connection commits. Everything else (writes, transactions, streamed reads) takes the lock.
 */
import type SqliteDatabase from 'better-sqlite3'
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryId,
  type QueryResult,
  type RootOperationNode,
  CompiledQuery as Compiled,
  SelectQueryNode,
} from 'kysely'
import { translateDatabaseError } from './unavailable.js'

/** What the driver asks of a connection: a compiled statement by its text (store/connect.ts reuses them). */
export interface StatementSource {
  prepare(text: string): SqliteDatabase.Statement
  close(): void
}

type Compile = (node: RootOperationNode, id: QueryId) => CompiledQuery

/** A plain SELECT (or WITH … SELECT) by its text; SQLite's own flag then says whether it writes nothing. */
const READ_TEXT = /^\s*(select|with)\b/i

/**
 * The lock on a database file's writing connection. The stores of one process over one file share it
 * (store/connect.ts): a second store there (the tests' nodes over one file) waits for it without blocking the event
 * loop, where SQLite's own `busy_timeout` would sleep in the thread the first store needs to reach its commit.
 */
export class WriterLock {
  #locked = false
  readonly #waiting: (() => void)[] = []

  tryLock(): boolean {
    if (this.#locked) return false
    this.#locked = true
    return true
  }

  /** Waits for the lock; the holder hands it to the longest waiting caller, so none is passed over. */
  lock(): Promise<void> {
    if (this.tryLock()) return Promise.resolve()
    return new Promise((resolve) => this.#waiting.push(resolve))
  }

  unlock(): void {
    const next = this.#waiting.shift()
    if (next) next()
    else this.#locked = false
  }

  /** Callers waiting for the writing connection: writes, and transactions about to begin. */
  get waiting(): number {
    return this.#waiting.length
  }

  /** Runs work that writes through the raw handle (statistics) under the lock, as Kysely's writes run. */
  async whileHeld<T>(work: () => T): Promise<T> {
    await this.lock()
    try {
      return work()
    } finally {
      this.unlock()
    }
  }
}

export class SqliteReadAsideDriver implements Driver {
  constructor(
    private readonly lock: WriterLock,
    private readonly writer: StatementSource,
    private readonly reader?: StatementSource,
  ) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new Lease(this)
  }

  /**
   * IMMEDIATE: the file's write lock is taken at BEGIN, waiting for another process's writer (`busy_timeout`). A
   * transaction that read first and wrote later could not take it once another process had committed since its read
   * (SQLITE_BUSY_SNAPSHOT, which no waiting cures), and a batch job's group of chunks is long enough for that to happen.
   */
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await this.onWriter(connection, 'begin immediate')
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await this.onWriter(connection, 'commit')
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await this.onWriter(connection, 'rollback')
  }

  async savepoint(connection: DatabaseConnection, name: string, _compile: Compile): Promise<void> {
    await this.onWriter(connection, `savepoint "${name}"`)
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, _compile: Compile): Promise<void> {
    await this.onWriter(connection, `rollback to "${name}"`)
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, _compile: Compile): Promise<void> {
    await this.onWriter(connection, `release "${name}"`)
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease
    if (!lease.holding) return
    lease.holding = false
    this.lock.unlock()
  }

  async destroy(): Promise<void> {
    this.writer.close()
    this.reader?.close()
  }

  /** The statement source a lease's query runs on, taking the lock unless the query is a read that may go aside. */
  async sourceFor(lease: Lease, query: CompiledQuery): Promise<StatementSource> {
    if (lease.holding || this.lock.tryLock()) {
      lease.holding = true
      return this.writer
    }
    if (this.readsAside(query.sql)) return this.reader!
    await lease.hold(this.lock)
    return this.writer
  }

  async streamSource(lease: Lease): Promise<StatementSource> {
    await lease.hold(this.lock)
    return this.writer
  }

  /** Whether a statement may run on the reading connection: a SELECT that writes nothing and compiles there. */
  private readsAside(text: string): boolean {
    if (!this.reader || !READ_TEXT.test(text)) return false
    try {
      return this.reader.prepare(text).readonly
    } catch {
      // Answered by the writer, in its turn: its error (a missing column, say) is the one to report.
      return false
    }
  }

  /** A statement of the transaction's own (BEGIN, COMMIT, a savepoint's), on the writer under the lease's lock. */
  private async onWriter(connection: DatabaseConnection, text: string): Promise<void> {
    await (connection as Lease).hold(this.lock)
    await run(this.writer, Compiled.raw(text))
  }
}

/** What Kysely holds between acquiring and releasing a connection: the writer's lock, once a query has taken it. */
class Lease implements DatabaseConnection {
  holding = false

  constructor(private readonly driver: SqliteReadAsideDriver) {}

  /** Takes the writer's lock for this lease, unless it holds it already. */
  async hold(lock: WriterLock): Promise<void> {
    if (this.holding) return
    await lock.lock()
    this.holding = true
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return run<R>(await this.driver.sourceFor(this, query), query)
  }

  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    const source = await this.driver.streamSource(this)
    if (!SelectQueryNode.is(query.query)) throw new Error('SQLite streams only SELECT queries')
    try {
      for (const row of source.prepare(query.sql).iterate(query.parameters as unknown[])) yield { rows: [row as R] }
    } catch (error) {
      throw translateDatabaseError(error)
    }
  }
}

/**
 * One statement, answered as Kysely's SQLite connection answers it. SQLite's errors of a lock held too long by another
 * process (SQLITE_BUSY, SQLITE_LOCKED) reject as DomainError('try_later'), as PostgreSQL's connection errors do.
 */
async function run<R>(source: StatementSource, query: CompiledQuery): Promise<QueryResult<R>> {
  try {
    const statement = source.prepare(query.sql)
    const parameters = query.parameters as unknown[]
    if (statement.reader) return { rows: statement.all(parameters) as R[] }
    const { changes, lastInsertRowid } = statement.run(parameters)
    return {
      numAffectedRows: changes === undefined || changes === null ? undefined : BigInt(changes),
      insertId: lastInsertRowid === undefined || lastInsertRowid === null ? undefined : BigInt(lastInsertRowid),
      rows: [],
    }
  } catch (error) {
    throw translateDatabaseError(error)
  }
}

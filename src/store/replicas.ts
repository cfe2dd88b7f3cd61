/**
 * PostgreSQL streaming replicas for reads (docs/scale-out.md, "Read replicas"). A request's store is
 * chosen once, by its caller (domain/read-routing.ts):
 *
 * - Writes always reach the primary. Each write statement of a caller (and each commit of a
 *   transaction that wrote) marks the caller as having written; the caller's next read asks the
 *   primary for its WAL insert position (`pg_current_wal_insert_lsn()`, taken after the write's
 *   answer, so at or past its commit) and remembers it: one small query on the primary per read that
 *   follows a write, none on the write itself.
 * - A read request of a caller goes to a replica that answered the last health check, lags the primary
 *   by at most `maxLagMs`, and has replayed that position (`pg_last_wal_replay_lsn()`), polled for up to
 *   `waitMs`; otherwise to the primary. Only plain statements and read-only transactions go to the
 *   replica: a write in a read request still goes to the primary.
 * - A replica statement that fails because the replica does not answer marks it down and runs again on
 *   the primary, so a stopped replica costs a retry, never an error answer; the health check (every
 *   `checkEveryMs`) brings it back.
 *
 * Lag is measured in time by WAL position: each check samples the primary's position; a replica's lag
 * is the age of the oldest sample it has not replayed (0 when it has replayed the latest), so an idle
 * primary shows no lag and a paused replay shows its true age.
 */
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  PostgresAdapter,
  PostgresDialect,
  PostgresDriver,
  type QueryId,
  type QueryResult,
  type RootOperationNode,
  type TransactionSettings,
  type UnknownRow,
} from 'kysely'
import type pg from 'pg'
import { DomainError } from '../core/errors.js'
import { CONNECT_TIMEOUT_MS, openPool, type ReplicaRouting, type Store } from './connect.js'
import { CredentialWritePlugin } from './engine/credential-cache.js'
import type { Database } from './database.js'

export interface ReplicaOptions {
  /** postgres:// URLs of the replicas (Config.databaseReplicaUrls). */
  urls: readonly string[]
  /** A replica further behind the primary than this is bypassed (Config.databaseReplicaMaxLagMs). */
  maxLagMs?: number
  /** How long a caller's read waits for a replica to replay the caller's last write (Config.databaseReplicaWaitMs). */
  waitMs?: number
  /** Connections per replica pool. */
  poolSize?: number
  /** How often the replicas' health and lag are checked. */
  checkEveryMs?: number
  /** How long a replica connection may take before the replica counts as down. */
  connectTimeoutMs?: number
}

export const REPLICA_MAX_LAG_MS = 1000
export const REPLICA_WAIT_MS = 10
const CHECK_EVERY_MS = 100
const CHECK_TIMEOUT_MS = 1000
/** How much longer than the wait itself one poll of a replica's replay position may take. */
const WAIT_SLACK_MS = 50
/** Callers' positions not written to for this long are forgotten (a replica has long replayed them, or is bypassed). */
const POSITION_KEPT_MS = 60_000

/** What the routing did, since the start: the figures docs/scale-out.md reports. */
export interface ReplicaCounters {
  /** Read requests sent to a replica without waiting. */
  replica: number
  /** Read requests sent to a replica after waiting for it to replay the caller's write. */
  replicaAfterWait: number
  /** Read requests of callers whose write no replica had replayed within the wait: the primary. */
  primaryForOwnWrite: number
  /** Read requests sent to the primary because no replica was up and within the lag bound. */
  primaryNoReplica: number
  /** Replica statements that failed because it did not answer, run again on the primary. */
  retriedOnPrimary: number
}

interface Replica {
  url: string
  pool: pg.Pool
  /** The store a read request works on: reads here, writes on the primary. */
  store: Store
  up: boolean
  /** The replica's replay position at the last look, and the lag it meant. */
  replayed: bigint
  lagMs: number
}

interface CallerPosition {
  /** Writes noted; `resolved` is how many of them `lsn` is known to cover. */
  writes: number
  resolved: number
  lsn: bigint
  touched: number
}

/** Attaches read replicas to a PostgreSQL store. */
export function withReadReplicas(primary: Store, options: ReplicaOptions): Store {
  if (options.urls.length === 0) return primary
  if (primary.dialect !== 'postgres' || !primary.pool) throw new Error('Read replicas need a PostgreSQL primary')
  const routing = new ReadReplicas(primary, options)
  const close = primary.close
  return {
    ...primary,
    replicas: routing,
    close: async () => {
      await routing.close()
      await close()
    },
  }
}

export class ReadReplicas implements ReplicaRouting {
  readonly counters: ReplicaCounters = {
    replica: 0,
    replicaAfterWait: 0,
    primaryForOwnWrite: 0,
    primaryNoReplica: 0,
    retriedOnPrimary: 0,
  }
  readonly replicas: Replica[]
  readonly #primary: Store
  readonly #maxLagMs: number
  readonly #waitMs: number
  readonly #positions = new Map<string, CallerPosition>()
  /** The primary's WAL position at each check, oldest first. */
  #samples: { at: number; lsn: bigint }[] = []
  #next = 0
  #timer: NodeJS.Timeout | undefined
  #checking: Promise<void> | undefined
  /** The first check: until it is done no replica is known to be well, and the first reads would all go to the primary. */
  readonly #checked: Promise<void>
  #closed = false

  constructor(primary: Store, options: ReplicaOptions) {
    this.#primary = primary
    this.#maxLagMs = options.maxLagMs ?? REPLICA_MAX_LAG_MS
    this.#waitMs = options.waitMs ?? REPLICA_WAIT_MS
    const connectTimeoutMs = options.connectTimeoutMs ?? Math.min(1000, CONNECT_TIMEOUT_MS)
    this.replicas = options.urls.map((url) => {
      const pool = openPool(url, { max: options.poolSize ?? 10, connectTimeoutMs })
      const replica: Replica = { url, pool, store: undefined as never, up: false, replayed: 0n, lagMs: Infinity }
      replica.store = this.#replicaStore(replica)
      return replica
    })
    const every = options.checkEveryMs ?? CHECK_EVERY_MS
    const tick = () => {
      this.#checking = this.check().finally(() => {
        this.#checking = undefined
        if (!this.#closed) this.#timer = setTimeout(tick, every).unref()
      })
    }
    tick()
    this.#checked = within(CHECK_TIMEOUT_MS, this.#checking!).catch(() => {})
  }

  status() {
    return {
      // Host and port only: the URL may carry a password.
      replicas: this.replicas.map((r) => {
        const url = new URL(r.url)
        return { name: `${url.hostname}:${url.port || 5432}`, up: r.up, lagMs: r.lagMs }
      }),
      reads: { ...this.counters },
    }
  }

  async close(): Promise<void> {
    this.#closed = true
    clearTimeout(this.#timer)
    await this.#checking
    await Promise.all(this.replicas.map((r) => r.pool.end().catch(() => {})))
  }

  /** One health check: the primary's position sampled, each replica's replay position and lag read. */
  async check(): Promise<void> {
    const now = Date.now()
    try {
      const { rows } = await within(
        CHECK_TIMEOUT_MS,
        this.#primary.pool!.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn'),
      )
      this.#samples.push({ at: now, lsn: parseLsn(rows[0]!.lsn) })
    } catch {
      // The primary does not answer: the replicas keep their state; requests answer 503 on their own.
    }
    const keepFrom = now - 2 * this.#maxLagMs - 1000
    while (this.#samples.length > 2 && this.#samples[0]!.at < keepFrom) this.#samples.shift()
    await Promise.all(
      this.replicas.map(async (replica) => {
        try {
          // A replica that hangs rather than refuses is down too once the check waits this long for it.
          const { rows } = await within(
            CHECK_TIMEOUT_MS,
            replica.pool.query<{ standby: boolean; lsn: string | null }>(
              'select pg_is_in_recovery() as standby, pg_last_wal_replay_lsn()::text as lsn',
            ),
          )
          // A server that is not (or no longer) a standby of this primary — promoted, or pointed wrong — is not read.
          if (!rows[0]!.standby || rows[0]!.lsn === null) return this.#down(replica)
          this.#replayedTo(replica, parseLsn(rows[0]!.lsn))
          replica.up = true
        } catch {
          this.#down(replica)
        }
      }),
    )
    // A replica within the lag bound has replayed whatever the primary had this long ago.
    const kept = Math.max(POSITION_KEPT_MS, 2 * this.#maxLagMs + 1000)
    for (const [key, position] of this.#positions) if (now - position.touched > kept) this.#positions.delete(key)
  }

  noteWrite(callerKey: string): void {
    const position = this.#positions.get(callerKey)
    if (position) {
      position.writes++
      position.touched = Date.now()
    } else this.#positions.set(callerKey, { writes: 1, resolved: 0, lsn: 0n, touched: Date.now() })
  }

  async storeFor(callerKey: string, reads: boolean, seen?: string): Promise<Store> {
    const noting = new WriteNotingPlugin(this, callerKey)
    const on = (store: Store): Store => ({
      ...store,
      db: store.db.withPlugin(noting),
      committed: () => noting.committed(),
      writtenPosition: async () => {
        if (!noting.wrote) return undefined
        const lsn = await this.#positionOf(callerKey)
        return lsn === undefined ? undefined : formatLsn(lsn)
      },
    })
    if (seen !== undefined && LSN_TEXT.test(seen)) this.#bringsPosition(callerKey, parseLsn(seen))
    if (!reads) return on(this.#primary)
    await this.#checked
    const candidates = this.replicas.filter((r) => r.up && r.lagMs <= this.#maxLagMs)
    if (candidates.length === 0) {
      this.counters.primaryNoReplica++
      return on(this.#primary)
    }
    const needed = await this.#positionOf(callerKey)
    if (needed === undefined) return on(this.#primary)
    const start = this.#next++ % candidates.length
    const ordered = [...candidates.slice(start), ...candidates.slice(0, start)]
    const ready = ordered.find((r) => r.replayed >= needed)
    if (ready) {
      this.counters.replica++
      return on(ready.store)
    }
    const caughtUp = await this.#waitFor(ordered[0]!, needed)
    if (caughtUp) {
      this.counters.replicaAfterWait++
      return on(ordered[0]!.store)
    }
    this.counters.primaryForOwnWrite++
    return on(this.#primary)
  }

  /** A position the caller brings from another node: its reads here see at least that far. */
  #bringsPosition(callerKey: string, lsn: bigint): void {
    const position = this.#positions.get(callerKey)
    if (!position) this.#positions.set(callerKey, { writes: 0, resolved: 0, lsn, touched: Date.now() })
    else if (lsn > position.lsn) {
      position.lsn = lsn
      position.touched = Date.now()
    }
  }

  /** The WAL position the caller's reads must see; undefined when the primary cannot tell (read it there). */
  async #positionOf(callerKey: string): Promise<bigint | undefined> {
    const position = this.#positions.get(callerKey)
    if (!position) return 0n
    if (position.resolved < position.writes) {
      const covers = position.writes
      try {
        // The insert position: at or past the caller's commit record even when commits do not wait for the
        // WAL flush (synchronous_commit = off), where the write position may still be short of it.
        const { rows } = await this.#primary.pool!.query<{ lsn: string }>(
          'select pg_current_wal_insert_lsn()::text as lsn',
        )
        const lsn = parseLsn(rows[0]!.lsn)
        if (lsn > position.lsn) position.lsn = lsn
        if (covers > position.resolved) position.resolved = covers
      } catch {
        return undefined
      }
    }
    return position.lsn
  }

  /** Polls the replica's replay position every millisecond for up to waitMs. */
  async #waitFor(replica: Replica, needed: bigint): Promise<boolean> {
    const deadline = Date.now() + this.#waitMs
    for (;;) {
      let answer: { rows: { lsn: string | null }[] }
      try {
        answer = await within(
          this.#waitMs + WAIT_SLACK_MS,
          replica.pool.query<{ lsn: string | null }>('select pg_last_wal_replay_lsn()::text as lsn'),
        )
      } catch (error) {
        // Refused or lost: down. Merely slow: the primary serves this read, the next check decides.
        if (!(error instanceof Error && error.message.startsWith('no answer within'))) this.#down(replica)
        return false
      }
      if (answer.rows[0]!.lsn === null) return false
      this.#replayedTo(replica, parseLsn(answer.rows[0]!.lsn))
      if (replica.replayed >= needed) return true
      if (Date.now() >= deadline) return false
      await new Promise((resolve) => setTimeout(resolve, 1))
    }
  }

  #replayedTo(replica: Replica, lsn: bigint): void {
    if (lsn > replica.replayed || !replica.up) replica.replayed = lsn
    const latest = this.#samples.at(-1)
    if (!latest || replica.replayed >= latest.lsn) {
      replica.lagMs = 0
      return
    }
    // The oldest primary position this replica has not replayed: it has lacked that for at least this long.
    const missing = this.#samples.find((s) => s.lsn > replica.replayed)!
    replica.lagMs = Date.now() - missing.at
  }

  #down(replica: Replica): void {
    replica.up = false
    replica.lagMs = Infinity
  }

  /** A replica's store: plain reads and read-only transactions on the replica, the rest on the primary. */
  #replicaStore(replica: Replica): Store {
    const primary = this.#primary
    const usable = () => replica.up && replica.lagMs <= this.#maxLagMs
    const retried = (error: unknown): boolean => {
      if (error instanceof DomainError && error.code === 'try_later') {
        this.#down(replica)
        this.counters.retriedOnPrimary++
        return true
      }
      // A statement taken for a read that writes after all (a standby refuses it): the primary runs it.
      return (error as { code?: unknown }).code === READ_ONLY_TRANSACTION
    }
    const pool = {
      query: async (...args: unknown[]) => {
        if (usable()) {
          try {
            return await (replica.pool.query as (...a: unknown[]) => Promise<unknown>)(...args)
          } catch (error) {
            if (!retried(error)) throw error
          }
        }
        return (primary.pool!.query as (...a: unknown[]) => Promise<unknown>)(...args)
      },
    } as unknown as pg.Pool
    const driver = new ReadRoutingDriver(
      new PostgresDriver({ pool: primary.pool! }),
      new PostgresDriver({ pool: replica.pool }),
      usable,
      retried,
    )
    const db = new Kysely<Database>({
      dialect: {
        createAdapter: () => new PostgresAdapter(),
        createDriver: () => driver,
        createIntrospector: (k) => new PostgresDialect({ pool: replica.pool }).createIntrospector(k),
        createQueryCompiler: () => new PostgresDialect({ pool: replica.pool }).createQueryCompiler(),
      },
      plugins: [new CredentialWritePlugin()],
    })
    return { ...primary, db, pool, listenUrl: undefined, replicas: this, close: async () => {} }
  }
}

const READ_ONLY_TRANSACTION = '25006'

/** `work`, or a rejection once `ms` have passed. */
function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)
  })
  return Promise.race([work, late]).finally(() => clearTimeout(timer))
}

const LSN_TEXT = /^[0-9A-Fa-f]{1,8}\/[0-9A-Fa-f]{1,8}$/

export function formatLsn(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`
}

/** `16/B374D848` as a number. */
export function parseLsn(text: string): bigint {
  const [high, low] = text.split('/')
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`)
}

/** A statement a standby may run and that changes nothing. */
function isRead(query: CompiledQuery): boolean {
  const kind = query.query.kind
  if (kind !== 'SelectQueryNode' && !(kind === 'RawNode' && /^\s*select\b/i.test(query.sql))) return false
  return !SIDE_EFFECTS.test(query.sql)
}
const SIDE_EFFECTS =
  /\bfor\s+(update|share|no\s+key\s+update|key\s+share)\b|\b(nextval|setval|pg_notify|pg_advisory|pg_try_advisory)/i

/**
 * Kysely's driver for a replica's store: a connection is picked per statement (a read: the replica
 * while usable; anything else: the primary) or per transaction (read only: the replica; else the
 * primary), and a replica that fails to answer hands the statement to the primary.
 */
class ReadRoutingDriver implements Driver {
  constructor(
    readonly primary: Driver,
    readonly replica: Driver,
    readonly usable: () => boolean,
    readonly retried: (error: unknown) => boolean,
  ) {}
  async init(): Promise<void> {
    await this.primary.init()
    await this.replica.init()
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    return new RoutedConnection(this)
  }
  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await (connection as RoutedConnection).begin(settings)
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as RoutedConnection
    await c.driver!.commitTransaction(c.inner!)
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as RoutedConnection
    await c.driver!.rollbackTransaction(c.inner!)
  }
  async savepoint(
    connection: DatabaseConnection,
    name: string,
    compile: (node: RootOperationNode, id: QueryId) => CompiledQuery,
  ): Promise<void> {
    const c = connection as RoutedConnection
    await c.driver!.savepoint!(c.inner!, name, compile)
  }
  async rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: (node: RootOperationNode, id: QueryId) => CompiledQuery,
  ): Promise<void> {
    const c = connection as RoutedConnection
    await c.driver!.rollbackToSavepoint!(c.inner!, name, compile)
  }
  async releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: (node: RootOperationNode, id: QueryId) => CompiledQuery,
  ): Promise<void> {
    const c = connection as RoutedConnection
    await c.driver!.releaseSavepoint!(c.inner!, name, compile)
  }
  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    await (connection as RoutedConnection).release()
  }
  async destroy(): Promise<void> {
    // The pools belong to the primary store and the replica set, which close them.
  }
}

class RoutedConnection implements DatabaseConnection {
  /** The connection a transaction holds, and its driver. */
  inner: DatabaseConnection | undefined
  driver: Driver | undefined

  constructor(readonly routing: ReadRoutingDriver) {}

  async begin(settings: TransactionSettings): Promise<void> {
    if (settings.accessMode === 'read only' && this.routing.usable()) {
      try {
        await this.#hold(this.routing.replica)
        await this.routing.replica.beginTransaction(this.inner!, settings)
        return
      } catch (error) {
        await this.release()
        if (!this.routing.retried(error)) throw error
      }
    }
    await this.#hold(this.routing.primary)
    await this.routing.primary.beginTransaction(this.inner!, settings)
  }

  async #hold(driver: Driver): Promise<void> {
    this.inner = await driver.acquireConnection()
    this.driver = driver
  }

  async release(): Promise<void> {
    const { inner, driver } = this
    this.inner = this.driver = undefined
    if (inner) await driver!.releaseConnection(inner)
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.inner) return this.inner.executeQuery<R>(query)
    if (isRead(query) && this.routing.usable()) {
      try {
        return await once(this.routing.replica, (c) => c.executeQuery<R>(query))
      } catch (error) {
        if (!this.routing.retried(error)) throw error
      }
    }
    return once(this.routing.primary, (c) => c.executeQuery<R>(query))
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    if (this.inner) return yield* this.inner.streamQuery<R>(query, chunkSize)
    const driver = isRead(query) && this.routing.usable() ? this.routing.replica : this.routing.primary
    const connection = await driver.acquireConnection()
    try {
      yield* connection.streamQuery<R>(query, chunkSize)
    } finally {
      await driver.releaseConnection(connection)
    }
  }
}

async function once<T>(driver: Driver, work: (connection: DatabaseConnection) => Promise<T>): Promise<T> {
  const connection = await driver.acquireConnection()
  try {
    return await work(connection)
  } finally {
    await driver.releaseConnection(connection)
  }
}

/**
 * On every store a request of a caller works on: a statement that may write marks the caller as
 * having written, before it runs and again once it has (when it committed on its own), and so does
 * the commit of a transaction that wrote (Store.committed). A statement run precompiled is seen only
 * by its result, which counts the rows an INSERT, UPDATE, DELETE or MERGE touched.
 */
class WriteNotingPlugin implements KyselyPlugin {
  readonly #writes = new WeakSet<QueryId>()
  #uncommitted = false
  /** Whether the request wrote anything. */
  wrote = false
  constructor(
    readonly replicas: ReadReplicas,
    readonly callerKey: string,
  ) {}

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (mayWrite(args.node)) {
      this.#writes.add(args.queryId)
      this.#uncommitted = this.wrote = true
      this.replicas.noteWrite(this.callerKey)
    }
    return args.node
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    // Statements run precompiled (the batch writer's) pass no query here first: their result says they wrote.
    if (this.#writes.has(args.queryId) || args.result.numAffectedRows !== undefined) {
      this.#uncommitted = this.wrote = true
      this.replicas.noteWrite(this.callerKey)
    }
    return args.result
  }

  committed(): void {
    if (!this.#uncommitted) return
    this.#uncommitted = false
    this.replicas.noteWrite(this.callerKey)
  }
}

function mayWrite(node: RootOperationNode): boolean {
  if (node.kind === 'SelectQueryNode') return false
  if (node.kind !== 'RawNode') return true
  const first = (node as { sqlFragments: readonly string[] }).sqlFragments[0] ?? ''
  // Settings (a listing's `set local`) change no data.
  return !/^\s*(select|set|reset|show)\b/i.test(first) || SIDE_EFFECTS.test(first)
}

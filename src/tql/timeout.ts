/**
 * Time limits for TQL queries (the per-user and system "TQL timeout" settings).
 *
 * PostgreSQL: the work runs in a transaction with `SET LOCAL statement_timeout`; a
 * cancelled statement (SQLSTATE 57014) becomes DomainError('timeout').
 *
 * SQLite: better-sqlite3 exposes neither sqlite3_interrupt nor a progress handler, and its
 * calls block the event loop, so no timer can stop a statement. Instead the filter is
 * guarded by a tiny SQL function that the database calls for every row of the outer scan
 * and that throws once the deadline has passed. This bounds scans over many rows; a single
 * row whose nested sub-queries are themselves slow is not interrupted until it finishes.
 */
import { type Expression, type Kysely, type SqlBool, sql } from 'kysely'
import { DomainError } from '../core/errors.js'
import type { Database } from '../store/database.js'
import type { Store } from '../store/connect.js'

export interface TqlScope {
  /** Run the TQL queries on this handle (a transaction on PostgreSQL), not on store.db. */
  db: Kysely<Database>
  /** Wraps a compiled filter so SQLite can stop at the deadline; `table` is the filtered table (CompiledTql.table). */
  guard(where: Expression<SqlBool>, table: string): Expression<SqlBool>
  /** PostgreSQL settings already in force for the rest of `db`'s transaction (asked for with withTqlTimeout's `settings`). */
  settings?: ReadonlySet<string>
}

const DEADLINE_FUNCTION = 'bulwark_tql_deadline'
const QUERY_CANCELED = '57014'

class DeadlinePassed extends Error {}

const registered = new WeakSet<object>()

/**
 * Runs `run` under a time limit of `ms` milliseconds (no limit when ms is null, undefined or
 * not positive). Throws DomainError('timeout', 'TQL query exceeded the time limit of N ms').
 * On PostgreSQL `settings` are set for the transaction with the limit (the scope's `settings` says which).
 *
 * @example
 * const rows = await withTqlTimeout(store, 5000, ({ db, guard }) =>
 *   db.selectFrom('indicator').selectAll('indicator').where(guard(compiled.where, compiled.table)).execute())
 */
export async function withTqlTimeout<T>(
  store: Store,
  ms: number | null | undefined,
  run: (scope: TqlScope) => Promise<T>,
  options: { settings?: Record<string, string> } = {},
): Promise<T> {
  if (!ms || !Number.isFinite(ms) || ms <= 0) return run({ db: store.db, guard: (where) => where })
  const limit = Math.max(1, Math.floor(ms))
  const timedOut = () => new DomainError('timeout', `TQL query exceeded the time limit of ${limit} ms`)
  if (store.dialect === 'postgres') {
    try {
      // Read only: a read replica may run it (store/replicas.ts).
      return await store.db
        .transaction()
        .setAccessMode('read only')
        .execute(async (trx) => {
          // Each statement is a round trip, which costs a page read as much as the read itself: one statement sets everything.
          const settings = { ...options.settings, statement_timeout: String(limit) }
          const calls = Object.entries(settings).map(([name, value]) => sql`set_config(${name}, ${value}, true)`)
          await sql`select ${sql.join(calls)}`.execute(trx)
          return run({ db: trx, guard: (where) => where, settings: new Set(Object.keys(settings)) })
        })
    } catch (error) {
      if ((error as { code?: unknown }).code === QUERY_CANCELED) throw timedOut()
      throw error
    }
  }
  registerDeadlineFunction(store)
  const deadline = Date.now() + limit
  try {
    return await run({
      db: store.db,
      guard: (where, table) =>
        sql<SqlBool>`(${sql.raw(DEADLINE_FUNCTION)}(${deadline}, ${sql.ref(`${table}.id`)}) = 1 and ${where})`,
    })
  } catch (error) {
    if (error instanceof DeadlinePassed) throw timedOut()
    throw error
  }
}

function registerDeadlineFunction(store: Store): void {
  // Both connections of a file database: a search beside a batch job's open transaction runs on the reader.
  for (const handle of [store.sqlite, store.sqliteReader]) {
    if (!handle || registered.has(handle)) continue
    // Not deterministic: SQLite must call it for every row instead of once per statement.
    handle.function(DEADLINE_FUNCTION, { deterministic: false }, (deadline: unknown, _row: unknown) => {
      if (Date.now() > Number(deadline)) throw new DeadlinePassed('TQL deadline passed')
      return 1
    })
    registered.add(handle)
  }
}

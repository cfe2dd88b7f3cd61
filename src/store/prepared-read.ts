/**
 * Reads by a list of ids whose SQL never changes, for the queries a GET of one object runs on
 * every request. Building and compiling a Kysely query costs more than SQLite takes to answer a
 * look-up by id, so such a read is built and compiled by Kysely once per dialect, with the ids as
 * one parameter (a JSON array read by json_each on SQLite, an array on PostgreSQL: the text is
 * the same for any number of ids), and each call only binds the ids.
 *
 * Outside a transaction the text runs on the raw driver (rawReadPath says when); inside one it
 * runs through Kysely on the transaction's handle, so it sees the transaction's own writes.
 *
 * @example
 *   const findUserRefs = preparedByIds('user_refs_by_id', (db, idIn) =>
 *     db.selectFrom('user_account').select(['id', 'user_name']).where(idIn('user_account.id')))
 *   const rows = await findUserRefs(store, [1, 2])
 */
import { CompiledQuery, type Kysely, type RawBuilder, type SqlBool, sql } from 'kysely'
import type pg from 'pg'
import type { Dialect, Store } from './connect.js'
import type { Database } from './database.js'

/** PostgreSQL's feature_not_supported, raised as 'cached plan must not change result type'. */
const CACHED_PLAN_CHANGED = '0A000'

/**
 * Where a read may skip Kysely now: not inside a transaction, and on SQLite only while the
 * connection has no transaction open (a request's open transaction holds Kysely's connection, and
 * a read beside it would see writes not yet committed; it then waits its turn through Kysely).
 */
export function rawReadPath(store: Store): 'sqlite' | 'postgres' | undefined {
  if (store.db.isTransaction) return undefined
  if (store.sqlite) return store.sqlite.inTransaction ? undefined : 'sqlite'
  return store.pool ? 'postgres' : undefined
}

/**
 * Runs a text as a named statement, parsed and planned once per connection. Undefined when a node
 * upgraded beside this one added a column: a statement prepared before cannot change its result
 * type, so the caller reads through Kysely (an unnamed statement) instead.
 */
export async function queryNamed(pool: pg.Pool, name: string, text: string, values: unknown[]): Promise<unknown[] | undefined> {
  try {
    return (await pool.query({ name, text, values })).rows
  } catch (error) {
    if ((error as { code?: string }).code !== CACHED_PLAN_CHANGED) throw error
    return undefined
  }
}

/** `column IN <the ids>`: what a prepared read filters by. */
export type IdIn = (column: string) => RawBuilder<SqlBool>

interface Built<O> {
  compile(): CompiledQuery<O>
  execute(): Promise<O[]>
}

/** Stands for the ids while the query is compiled; replaced by them on each call. */
const IDS = Symbol('ids')

function idIn(dialect: Dialect, ids: unknown): IdIn {
  return dialect === 'sqlite'
    ? (column) => sql<SqlBool>`${sql.ref(column)} IN (SELECT value FROM json_each(${ids}))`
    : (column) => sql<SqlBool>`${sql.ref(column)} = ANY(${ids})`
}

function bound(dialect: Dialect, ids: readonly number[]): unknown {
  return dialect === 'sqlite' ? JSON.stringify(ids) : ids
}

type SqliteStatement = ReturnType<NonNullable<Store['sqlite']>['prepare']>

/**
 * A read by ids, built once per dialect by `build`; `name` names its PostgreSQL statement and
 * must be unique. An empty id list reads nothing.
 */
export function preparedByIds<O>(name: string, build: (db: Kysely<Database>, idIn: IdIn) => Built<O>): (store: Store, ids: readonly number[]) => Promise<O[]> {
  const compiled = new Map<Dialect, { text: string; parameters: readonly unknown[] }>()
  const statements = new WeakMap<object, SqliteStatement>()

  const compiledFor = (store: Store) => {
    let c = compiled.get(store.dialect)
    if (!c) {
      const query = build(store.db, idIn(store.dialect, IDS)).compile()
      c = { text: query.sql, parameters: query.parameters }
      compiled.set(store.dialect, c)
    }
    return c
  }

  return async (store, ids) => {
    if (ids.length === 0) return []
    const path = rawReadPath(store)
    if (path) {
      const { text, parameters } = compiledFor(store)
      const value = bound(store.dialect, ids)
      const values = parameters.map((p) => (p === IDS ? value : p))
      if (path === 'sqlite') {
        const sqlite = store.sqlite!
        let statement = statements.get(sqlite)
        if (!statement) statements.set(sqlite, statement = sqlite.prepare(text))
        return statement.all(values) as O[]
      }
      const rows = await queryNamed(store.pool!, name, text, values)
      if (rows) return rows as O[]
    }
    return build(store.db, idIn(store.dialect, bound(store.dialect, ids))).execute()
  }
}

/**
 * Reads by a list of ids whose SQL never changes, for the queries a GET of one object runs on
 * every request. Building and compiling a Kysely query costs more than SQLite takes to answer a
 * look-up by id, so such a read is built and compiled by Kysely once per dialect, with the ids as
 * one parameter (a JSON array read by json_each on SQLite, an array on PostgreSQL: the text is
 * the same for any number of ids), and each call only binds the ids.
 *
 * Outside a transaction the text runs on the raw driver (rawReadPath says when); inside one it
 * runs through Kysely on the transaction's handle, so it sees the transaction's own writes.
 * On PostgreSQL the reads of one statement asked for in one event-loop turn go out together
 * (readInTurn).
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
async function queryNamed(pool: pg.Pool, name: string, text: string, values: unknown[]): Promise<unknown[] | undefined> {
  try {
    return (await pool.query({ name, text, values })).rows
  } catch (error) {
    if ((error as { code?: string }).code !== CACHED_PLAN_CHANGED) throw error
    return undefined
  }
}

type Keyed = Record<string, unknown>

/** One statement's reads asked for in the current event-loop turn, not yet sent. */
interface TurnBatch {
  ids: Set<number>
  callers: number
  rows: Promise<Keyed[] | undefined>
  /** Positions of each key's rows, ascending; made by the first caller to need it. */
  positions?: Map<unknown, number[]>
}
const pendingByPool = new WeakMap<pg.Pool, Map<string, TurnBatch>>()
/** Rows a batch has handed to a caller already: a second caller of the same row gets its own copy. */
const handedOut = new WeakSet<Keyed>()

/**
 * Runs a named statement whose one array parameter (at `idsAt` in `values`) holds ids, together
 * with every other call of the same statement made in this event-loop turn: one round trip for
 * all of them, sent on setImmediate, after every request parsed in this turn has reached its read
 * (so none waits longer than the turn). Each caller gets the rows whose `key` column holds one of
 * its ids, in the statement's order. Nothing is kept between turns: each statement reads what is
 * committed when it runs. Undefined when the named statement cannot run (queryNamed).
 *
 * A PostgreSQL read is a round trip to another process that costs the server more than the
 * look-up costs the database; under concurrent GETs of one object this is most of their cost.
 */
export async function readInTurn(pool: pg.Pool, name: string, text: string, values: readonly unknown[], idsAt: number, ids: readonly number[], key: string): Promise<Keyed[] | undefined> {
  let pending = pendingByPool.get(pool)
  if (!pending) pendingByPool.set(pool, pending = new Map())
  let batch = pending.get(name)
  if (!batch) {
    const opened: TurnBatch = { ids: new Set(), callers: 0, rows: undefined as never }
    opened.rows = new Promise((resolve, reject) => setImmediate(() => {
      pending.delete(name)
      const bound = values.slice()
      bound[idsAt] = [...opened.ids]
      queryNamed(pool, name, text, bound).then((rows) => resolve(rows as Keyed[] | undefined), reject)
    }))
    pending.set(name, batch = opened)
  }
  for (const id of ids) batch.ids.add(id)
  batch.callers++
  const rows = await batch.rows
  if (!rows) return undefined
  if (rows.length > 0 && !(key in rows[0]!)) throw new Error(`The rows of ${name} carry no ${key} column to tell whose read they answer`)
  if (batch.callers === 1) return rows
  return rowsOf(batch, rows, key, ids)
}

/**
 * A caller's rows among a batch's, in the statement's order: looked up by key, not found by
 * scanning every row for every caller (fifty list pages of a hundred ids in one turn would be
 * 250,000 comparisons).
 */
function rowsOf(batch: TurnBatch, rows: Keyed[], key: string, ids: readonly number[]): Keyed[] {
  let positions = batch.positions
  if (!positions) {
    positions = batch.positions = new Map()
    rows.forEach((row, at) => {
      const list = positions!.get(row[key])
      if (list) list.push(at)
      else positions!.set(row[key], [at])
    })
  }
  const found: number[] = []
  for (const id of ids.length === 1 ? ids : new Set(ids)) found.push(...(positions.get(id) ?? []))
  if (ids.length > 1) found.sort((a, b) => a - b)
  return found.map((at) => {
    const row = rows[at]!
    if (handedOut.has(row)) return { ...row }
    handedOut.add(row)
    return row
  })
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
 * must be unique. The rows must carry the column the ids filter, under its own name (for
 * `idIn('membership.user_id')`, `user_id`): it tells whose read a row answers when reads of one
 * turn are sent together. An empty id list reads nothing.
 */
export function preparedByIds<O>(name: string, build: (db: Kysely<Database>, idIn: IdIn) => Built<O>): (store: Store, ids: readonly number[]) => Promise<O[]> {
  const compiled = new Map<Dialect, { text: string; parameters: readonly unknown[]; key: string }>()
  const statements = new WeakMap<object, SqliteStatement>()

  const compiledFor = (store: Store) => {
    let c = compiled.get(store.dialect)
    if (!c) {
      let key = ''
      const filter = idIn(store.dialect, IDS)
      const query = build(store.db, (column) => { key = column.slice(column.lastIndexOf('.') + 1); return filter(column) }).compile()
      c = { text: query.sql, parameters: query.parameters, key }
      compiled.set(store.dialect, c)
    }
    return c
  }

  return async (store, ids) => {
    if (ids.length === 0) return []
    const path = rawReadPath(store)
    if (path) {
      const { text, parameters, key } = compiledFor(store)
      if (path === 'sqlite') {
        const value = bound(store.dialect, ids)
        const sqlite = store.sqlite!
        let statement = statements.get(sqlite)
        if (!statement) statements.set(sqlite, statement = sqlite.prepare(text))
        return statement.all(parameters.map((p) => (p === IDS ? value : p))) as O[]
      }
      const rows = await readInTurn(store.pool!, name, text, parameters, parameters.indexOf(IDS), ids, key)
      if (rows) return rows as O[]
    }
    return build(store.db, idIn(store.dialect, bound(store.dialect, ids))).execute()
  }
}

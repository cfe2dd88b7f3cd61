/**
 * Reads by a list of ids whose SQL never changes, for the queries a GET of one object runs on
 * every request. Building and compiling a Kysely query costs more than SQLite takes to answer a
 * look-up by id, so such a read is built and compiled by Kysely once per dialect, with the ids as
 * one parameter (a JSON array read by json_each on SQLite, an array on PostgreSQL: the text is
 * the same for any number of ids), and each call only binds the ids.
 *
 * Outside a transaction the text runs on the raw driver (rawReadPath says when); inside one it
 * runs through Kysely on the transaction's handle, so it sees the transaction's own writes.
 * On both databases the reads of one statement asked for in one event-loop turn go out together
 * (readInTurn).
 *
 * @example
 *   const findUserRefs = preparedByIds('user_refs_by_id', (db, idIn) =>
 *     db.selectFrom('user_account').select(['id', 'user_name']).where(idIn('user_account.id')))
 *   const rows = await findUserRefs(store, [1, 2])
 */
import { CompiledQuery, type Kysely, type RawBuilder, type SqlBool, sql } from 'kysely'
import { type Dialect, type Store, readingHandle } from '../connect.js'
import type { Database } from '../database.js'
import type SqliteDatabase from 'better-sqlite3'
import { rowBuilder } from './row-builder.js'

/** PostgreSQL's feature_not_supported, raised as 'cached plan must not change result type'. */
const CACHED_PLAN_CHANGED = '0A000'

/**
 * Where a read may skip Kysely now: not inside a transaction, and on SQLite on the handle
 * `readingHandle` names (the writer while no transaction is open on it, else a file database's
 * reader: a read beside an open transaction must not see writes not yet committed). Without one, it
 * waits its turn through Kysely.
 */
export function rawReadPath(store: Store): 'sqlite' | 'postgres' | undefined {
  if (store.db.isTransaction) return undefined
  if (store.sqlite) return readingHandle(store) ? 'sqlite' : undefined
  return store.pool ? 'postgres' : undefined
}

/** A statement's answer as arrays of values (pg's `rowMode: 'array'`, better-sqlite3's `raw`), with its column names. */
export interface Answer {
  names: readonly string[]
  rows: unknown[][]
}

/** Reads every id asked for in one turn at once; undefined when it cannot run now (the callers then read through Kysely). */
export type TurnRead = (ids: number[]) => Promise<Answer | undefined> | Answer | undefined

/**
 * Runs a text as a named statement, parsed and planned once per connection. Undefined when a node
 * upgraded beside this one added a column: a statement prepared before cannot change its result
 * type, so the caller reads through Kysely (an unnamed statement) instead. Behind a transaction
 * pooler the statement goes unnamed: a named one is prepared on whichever server connection the
 * pooler lends, and the next use may find it missing or another client's copy already there.
 */
export async function queryNamed(
  store: Store,
  name: string,
  text: string,
  values: unknown[],
): Promise<Answer | undefined> {
  try {
    const result = await store.pool!.query({
      name: store.transactionPooling ? undefined : name,
      text,
      values,
      rowMode: 'array',
    })
    return { names: columnsOf(name, result.fields), rows: result.rows }
  } catch (error) {
    if ((error as { code?: string }).code !== CACHED_PLAN_CHANGED) throw error
    return undefined
  }
}

/**
 * A statement's column names, the same array for as long as its columns stay the same: pg describes
 * them afresh with every result, and row-builder.ts finds a known array without joining its names.
 */
function columnsOf(name: string, fields: readonly { name: string }[]): readonly string[] {
  const known = columnsByStatement.get(name)
  if (known && known.length === fields.length && fields.every((field, i) => field.name === known[i])) return known
  const names = fields.map((field) => field.name)
  columnsByStatement.set(name, names)
  return names
}
const columnsByStatement = new Map<string, readonly string[]>()

type Keyed = Record<string, unknown>

/** One statement's reads asked for in the current event-loop turn, not yet sent. */
interface TurnBatch {
  ids: Set<number>
  callers: number
  answer: Promise<Answer | undefined>
  /** Positions of each key's rows, ascending; made by the first caller to need it. */
  positions?: Map<unknown, number[]>
}
const pendingByHandle = new WeakMap<object, Map<string, TurnBatch>>()

/**
 * Reads by ids together with every other read of the same name on the same database handle asked
 * for in this event-loop turn: `read` runs once, on setImmediate, after every request parsed in
 * this turn has reached its read (so none waits longer than the turn), with all their ids. Each
 * caller gets the rows whose `key` column holds one of its ids, in the statement's order, as
 * objects of its own (row-builder.ts): what one caller changes in a row, another does not see.
 * Nothing is kept between turns: each read sees what is committed when it runs. Undefined when
 * `read` could not run.
 *
 * Why: a PostgreSQL read is a round trip to another process that costs the server more than the
 * look-up costs the database, and a SQLite read on a WAL file takes and drops a read lock (two
 * system calls and a look at the WAL index) before it reads a row. Under concurrent GETs this was
 * most of their cost; one statement a turn pays it once.
 */
export async function readInTurn(
  handle: object,
  name: string,
  ids: readonly number[],
  key: string,
  read: TurnRead,
): Promise<Keyed[] | undefined> {
  let pending = pendingByHandle.get(handle)
  if (!pending) pendingByHandle.set(handle, (pending = new Map()))
  let batch = pending.get(name)
  if (!batch) {
    const opened: TurnBatch = { ids: new Set(), callers: 0, answer: undefined as never }
    opened.answer = new Promise((resolve, reject) =>
      setImmediate(() => {
        pending.delete(name)
        Promise.resolve([...opened.ids])
          .then(read)
          .then(resolve, reject)
      }),
    )
    pending.set(name, (batch = opened))
  }
  for (const id of ids) batch.ids.add(id)
  batch.callers++
  const answer = await batch.answer
  if (!answer) return undefined
  const build = rowBuilder(answer.names)
  if (batch.callers === 1) return answer.rows.map(build)
  const keyAt = answer.names.indexOf(key)
  if (keyAt < 0) throw new Error(`The rows of ${name} carry no ${key} column to tell whose read they answer`)
  return positionsOf(batch, answer.rows, keyAt, ids).map((at) => build(answer.rows[at]!))
}

/**
 * Where a caller's rows are among a batch's, in the statement's order: looked up by key, not found
 * by scanning every row for every caller (fifty list pages of a hundred ids in one turn would be
 * 250,000 comparisons).
 */
function positionsOf(batch: TurnBatch, rows: unknown[][], keyAt: number, ids: readonly number[]): number[] {
  let positions = batch.positions
  if (!positions) {
    positions = batch.positions = new Map()
    rows.forEach((row, at) => {
      const list = positions!.get(row[keyAt])
      if (list) list.push(at)
      else positions!.set(row[keyAt], [at])
    })
  }
  const found: number[] = []
  for (const id of ids.length === 1 ? ids : new Set(ids)) found.push(...(positions.get(id) ?? []))
  if (ids.length > 1) found.sort((a, b) => a - b)
  return found
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

type Sqlite = NonNullable<Store['sqlite']>
type SqliteStatement = ReturnType<Sqlite['prepare']>

/** A statement that answers arrays of values, and its column names. */
export interface RawStatement {
  statement: SqliteStatement
  names: readonly string[]
}

export function rawStatement(sqlite: Sqlite, text: string): RawStatement {
  const statement = sqlite.prepare(text).raw(true)
  return { statement, names: columnNames(statement) }
}

/**
 * A turn's read on SQLite, unless a transaction has opened on the connection since its ids were
 * asked for: that transaction's writes are not yet theirs to see, so the callers read through
 * Kysely, after it, as any read beside an open transaction does.
 */
export function readOnSqlite(
  sqlite: Sqlite,
  raw: RawStatement,
  run: (statement: SqliteStatement) => unknown,
): Answer | undefined {
  if (sqlite.inTransaction) return undefined
  const rows = run(raw.statement) as unknown[][]
  // A node upgraded beside this one added a column: SQLite re-prepares the statement with it.
  if (rows.length > 0 && rows[0]!.length !== raw.names.length) raw.names = columnNames(raw.statement)
  return { names: raw.names, rows }
}

function columnNames(statement: SqliteStatement): string[] {
  return statement.columns().map((c) => c.name)
}

/**
 * A read by ids, built once per dialect by `build`; `name` names its PostgreSQL statement and
 * must be unique. The rows must carry the column the ids filter, under its own name (for
 * `idIn('membership.user_id')`, `user_id`): it tells whose read a row answers when reads of one
 * turn are sent together. An empty id list reads nothing.
 */
export function preparedByIds<O>(
  name: string,
  build: (db: Kysely<Database>, idIn: IdIn) => Built<O>,
): (store: Store, ids: readonly number[]) => Promise<O[]> {
  const compiled = new Map<Dialect, { text: string; parameters: readonly unknown[]; key: string }>()
  const statements = new WeakMap<object, RawStatement>()

  const compiledFor = (store: Store) => {
    let c = compiled.get(store.dialect)
    if (!c) {
      let key = ''
      const filter = idIn(store.dialect, IDS)
      const query = build(store.db, (column) => {
        key = column.slice(column.lastIndexOf('.') + 1)
        return filter(column)
      }).compile()
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
      const withIds = (all: number[]) => parameters.map((p) => (p === IDS ? bound(store.dialect, all) : p))
      let rows: Keyed[] | undefined
      if (path === 'sqlite') {
        const sqlite = readingHandle(store)!
        let statement = statements.get(sqlite)
        if (!statement) statements.set(sqlite, (statement = rawStatement(sqlite, text)))
        rows = await readInTurn(sqlite, name, ids, key, (all) =>
          readOnSqlite(sqlite, statement, (s) => s.all(withIds(all))),
        )
      } else {
        rows = await readInTurn(store.pool!, name, ids, key, (all) => queryNamed(store, name, text, withIds(all)))
      }
      if (rows) return rows as O[]
    }
    return build(store.db, idIn(store.dialect, bound(store.dialect, ids))).execute()
  }
}

const statements = new WeakMap<SqliteDatabase.Database, Map<string, SqliteDatabase.Statement>>()

/**
 * Rows as arrays, straight from the driver (Kysely hands out keyed objects only), where rawReadPath's
 * rule lets a read of the store's own handle skip Kysely; otherwise (a transaction's or another handle,
 * or a SQLite connection with another request's transaction open) through Kysely, keyed, turned into
 * arrays. The feeds' pages and the outbound lists read this way.
 */
export async function runAsArrays<Row extends unknown[]>(
  store: Store,
  db: Kysely<Database>,
  query: CompiledQuery,
): Promise<Row[]> {
  const path = db === store.db && !db.isTransaction ? rawReadPath(store) : undefined
  if (path === 'sqlite') {
    const sqlite = readingHandle(store)!
    let cache = statements.get(sqlite)
    if (!cache) statements.set(sqlite, (cache = new Map()))
    let statement = cache.get(query.sql)
    if (!statement || statement.busy) {
      statement = sqlite.prepare(query.sql).raw(true)
      // Texts differ by the filters present (a list's TQL) and the lengths of id lists: few, but not bounded.
      if (cache.size >= 64) cache.clear()
      cache.set(query.sql, statement)
    }
    return statement.all(...query.parameters) as Row[]
  }
  if (path === 'postgres')
    return (await store.pool!.query<Row>({ text: query.sql, values: [...query.parameters], rowMode: 'array' })).rows
  return (await db.executeQuery(query)).rows.map((row) => Object.values(row as object) as Row)
}

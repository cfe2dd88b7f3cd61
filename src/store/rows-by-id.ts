/**
 * Rows of one table by id: the read behind every GET of one object and behind the records of a
 * list page. Its SQL is the same on every call, so outside a transaction it runs as one prepared
 * statement per table on the raw driver (better-sqlite3's compiled statement; a named statement
 * on PostgreSQL, parsed and planned once per connection), skipping Kysely's building, compiling
 * and execution steps, which cost more than the look-up itself. Inside a transaction the read goes
 * through Kysely on the transaction's handle, so it sees the transaction's own writes.
 *
 * On SQLite the statements return each row as an array of values, made into the row object by a
 * function compiled once per column list (rowBuilder): better-sqlite3's own row objects cost it a
 * property set by name per column, which for the 42 columns of an Indicator took longer than the
 * look-up itself.
 *
 * On PostgreSQL the reads of one table asked for in one event-loop turn go out as one statement
 * (prepared-read.ts's readInTurn). When the raw driver may be used is prepared-read.ts's rule
 * (rawReadPath).
 */
import type { Store } from './connect.js'
import type { Row } from './database.js'
import { rawReadPath, readInTurn } from './prepared-read.js'

/** Tables loaded by id in their objects' v3 and v2 views. */
export type ByIdTable = 'indicator' | 'intel_group' | 'victim' | 'task'

/**
 * One statement text per table for any number of ids: the ids travel as one JSON or array value.
 * SQLite also keeps one for a single id, read with `get` (a GET of one object), which costs it less.
 */
const SQL = {
  sqlite: (table: ByIdTable) => `SELECT * FROM "${table}" WHERE "id" IN (SELECT value FROM json_each(?))`,
  sqliteOne: (table: ByIdTable) => `SELECT * FROM "${table}" WHERE "id" = ?`,
  postgres: (table: ByIdTable) => `SELECT * FROM "${table}" WHERE "id" = ANY($1)`,
} as const

type Prepared = { many: SqliteStatement; one: SqliteStatement; columns: number; build: RowBuilder }
type RowBuilder = (values: unknown[]) => Record<string, unknown>
type SqliteStatement = ReturnType<NonNullable<Store['sqlite']>['prepare']>
const preparedByHandle = new WeakMap<object, Map<ByIdTable, Prepared>>()

export async function findRowsByIds<T extends ByIdTable>(store: Store, table: T, ids: readonly number[]): Promise<Row<T>[]> {
  if (ids.length === 0) return []
  const path = rawReadPath(store)
  if (path === 'sqlite') {
    const statements = preparedFor(store.sqlite!, table)
    if (ids.length > 1) {
      return (statements.many.all(JSON.stringify(ids)) as unknown[][]).map((values) => rowOf(statements, statements.many, values) as Row<T>)
    }
    const values = statements.one.get(ids[0]) as unknown[] | undefined
    return values ? [rowOf(statements, statements.one, values) as Row<T>] : []
  }
  if (path === 'postgres') {
    const rows = await readInTurn(store.pool!, `rows_by_id_${table}`, SQL.postgres(table), [ids], 0, ids, 'id')
    if (rows) return rows as Row<T>[]
  }
  return store.db.selectFrom(table as ByIdTable).selectAll().where('id', 'in', ids).execute() as Promise<Row<T>[]>
}

function preparedFor(sqlite: NonNullable<Store['sqlite']>, table: ByIdTable): Prepared {
  let byTable = preparedByHandle.get(sqlite)
  if (!byTable) preparedByHandle.set(sqlite, byTable = new Map())
  let prepared = byTable.get(table)
  if (!prepared) {
    const one = sqlite.prepare(SQL.sqliteOne(table)).raw(true)
    const names = columnNames(one)
    byTable.set(table, prepared = { many: sqlite.prepare(SQL.sqlite(table)).raw(true), one, columns: names.length, build: rowBuilder(names) })
  }
  return prepared
}

function rowOf(prepared: Prepared, statement: SqliteStatement, values: unknown[]): Record<string, unknown> {
  // A node upgraded beside this one added a column: SQLite re-prepares `SELECT *` with it, so the
  // builder is made again for the new column list.
  if (values.length !== prepared.columns) {
    const names = columnNames(statement)
    prepared.columns = names.length
    prepared.build = rowBuilder(names)
  }
  return prepared.build(values)
}

function columnNames(statement: SqliteStatement): string[] {
  return statement.columns().map((c) => c.name)
}

/**
 * `(values) => ({ id: values[0], owner_id: values[1], … })` for these columns: one object literal,
 * so every row of a table gets the same shape at once. The names come from the database's own
 * schema; should one not be a plain identifier, the row is built by name instead.
 */
function rowBuilder(names: readonly string[]): RowBuilder {
  const plain = names.every((name) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && name !== '__proto__')
  if (!plain) return (values) => Object.fromEntries(names.map((name, i) => [name, values[i]]))
  return new Function('values', `return { ${names.map((name, i) => `${name}: values[${i}]`).join(', ')} }`) as RowBuilder
}

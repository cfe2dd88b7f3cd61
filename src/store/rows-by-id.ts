/**
 * Rows of one table by id: the read behind every GET of one object and behind the records of a
 * list page. Its SQL is the same on every call, so outside a transaction it runs as one prepared
 * statement per table on the raw driver (better-sqlite3's compiled statement; a named statement
 * on PostgreSQL, parsed and planned once per connection), skipping Kysely's building, compiling
 * and execution steps, which cost more than the look-up itself. Inside a transaction the read goes
 * through Kysely on the transaction's handle, so it sees the transaction's own writes.
 *
 * On SQLite the raw statement is only used while the connection has no transaction open: a
 * request's open transaction holds Kysely's connection, and a read beside it would see writes
 * not yet committed. Then the read waits its turn through Kysely like any other.
 */
import type { Store } from './connect.js'
import type { Row } from './database.js'

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

/** PostgreSQL's feature_not_supported, raised as 'cached plan must not change result type'. */
const CACHED_PLAN_CHANGED = '0A000'

type Prepared = { many: SqliteStatement; one: SqliteStatement }
type SqliteStatement = ReturnType<NonNullable<Store['sqlite']>['prepare']>
const preparedByHandle = new WeakMap<object, Map<ByIdTable, Prepared>>()

export async function findRowsByIds<T extends ByIdTable>(store: Store, table: T, ids: readonly number[]): Promise<Row<T>[]> {
  if (ids.length === 0) return []
  if (!store.db.isTransaction) {
    if (store.sqlite && !store.sqlite.inTransaction) {
      const statements = preparedFor(store.sqlite, table)
      if (ids.length > 1) return statements.many.all(JSON.stringify(ids)) as Row<T>[]
      const row = statements.one.get(ids[0]) as Row<T> | undefined
      return row ? [row] : []
    }
    if (store.pool) {
      try {
        return (await store.pool.query({ name: `rows_by_id_${table}`, text: SQL.postgres(table), values: [ids] })).rows as Row<T>[]
      } catch (error) {
        // A node upgraded beside this one added a column: a statement prepared before cannot change its result
        // type, so this connection reads through an unnamed statement from then on.
        if ((error as { code?: string }).code !== CACHED_PLAN_CHANGED) throw error
      }
    }
  }
  return store.db.selectFrom(table as ByIdTable).selectAll().where('id', 'in', ids).execute() as Promise<Row<T>[]>
}

function preparedFor(sqlite: NonNullable<Store['sqlite']>, table: ByIdTable): Prepared {
  let byTable = preparedByHandle.get(sqlite)
  if (!byTable) preparedByHandle.set(sqlite, byTable = new Map())
  let prepared = byTable.get(table)
  if (!prepared) byTable.set(table, prepared = { many: sqlite.prepare(SQL.sqlite(table)), one: sqlite.prepare(SQL.sqliteOne(table)) })
  return prepared
}

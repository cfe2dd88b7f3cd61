/**
 * Rows of one table by id: the read behind every GET of one object and behind the records of a
 * list page. Its SQL is the same on every call, so outside a transaction it runs as one prepared
 * statement per table on the raw driver (better-sqlite3's compiled statement; a named statement
 * on PostgreSQL, parsed and planned once per connection), skipping Kysely's building, compiling
 * and execution steps, which cost more than the look-up itself. Inside a transaction the read goes
 * through Kysely on the transaction's handle, so it sees the transaction's own writes.
 *
 * On both databases the driver returns each row as an array of values, made into the row object
 * by row-builder.ts (which says why).
 *
 * On both databases the reads of one table asked for in one event-loop turn go out as one statement
 * (prepared-read.ts's readInTurn, which says why). When the raw driver may be used is
 * prepared-read.ts's rule (rawReadPath).
 */
import { type Store, readingHandle } from '../connect.js'
import type { Row } from '../database.js'
import { type RawStatement, queryNamed, rawReadPath, rawStatement, readInTurn, readOnSqlite } from './prepared-read.js'

/** Tables loaded by id in their objects' v3 and v2 views. */
export type ByIdTable = 'indicator' | 'intel_group' | 'victim' | 'task'

/**
 * One statement text per table for any number of ids: the ids travel as one JSON or array value.
 * SQLite also keeps one for a single id, read with `get` (a GET of one object), which costs it less.
 */
const SQL = {
  // The ids lead the join (SQLite keeps a CROSS JOIN's order) and each is a rowid look-up. As
  // `"id" IN (SELECT value FROM json_each(?))` a table its statistics called small (a few dozen Groups, or
  // statistics older than the table's growth) was scanned whole and matched against the list.
  sqlite: (table: ByIdTable) =>
    `SELECT t.* FROM (SELECT DISTINCT value FROM json_each(?)) AS ids CROSS JOIN "${table}" AS t ON t."id" = ids.value`,
  sqliteOne: (table: ByIdTable) => `SELECT * FROM "${table}" WHERE "id" = ?`,
  postgres: (table: ByIdTable) => `SELECT * FROM "${table}" WHERE "id" = ANY($1)`,
} as const

type Prepared = { many: RawStatement; one: RawStatement }
const preparedByHandle = new WeakMap<object, Map<ByIdTable, Prepared>>()

export async function findRowsByIds<T extends ByIdTable>(
  store: Store,
  table: T,
  ids: readonly number[],
): Promise<Row<T>[]> {
  if (ids.length === 0) return []
  const path = rawReadPath(store)
  const name = `rows_by_id_${table}`
  if (path === 'sqlite') {
    const sqlite = readingHandle(store)!
    const rows = await readInTurn(sqlite, name, ids, 'id', (all) => {
      const prepared = preparedFor(sqlite, table)
      return all.length === 1
        ? readOnSqlite(sqlite, prepared.one, (one) => [one.get(all[0])].filter((row) => row !== undefined))
        : readOnSqlite(sqlite, prepared.many, (many) => many.all(JSON.stringify(all)))
    })
    if (rows) return rows as Row<T>[]
  }
  if (path === 'postgres') {
    const rows = await readInTurn(store.pool!, name, ids, 'id', (all) =>
      queryNamed(store, name, SQL.postgres(table), [all]),
    )
    if (rows) return rows as Row<T>[]
  }
  return store.db
    .selectFrom(table as ByIdTable)
    .selectAll()
    .where('id', 'in', ids)
    .execute() as Promise<Row<T>[]>
}

function preparedFor(sqlite: NonNullable<Store['sqlite']>, table: ByIdTable): Prepared {
  let byTable = preparedByHandle.get(sqlite)
  if (!byTable) preparedByHandle.set(sqlite, (byTable = new Map()))
  let prepared = byTable.get(table)
  if (!prepared)
    byTable.set(
      table,
      (prepared = { many: rawStatement(sqlite, SQL.sqlite(table)), one: rawStatement(sqlite, SQL.sqliteOne(table)) }),
    )
  return prepared
}

/**
 * The one lease mechanism behind batch jobs, import jobs and scheduled tasks. A worker takes a row by
 * one compare-and-set UPDATE (so exactly one of any number of racing workers, on any node, wins it),
 * renews the lease while it works, and every later write names the holder (fencing): a worker whose
 * lease ran out and went to another node writes nothing more. Each statement is one parameterised
 * statement with no session state, so it runs as well behind a transaction pooler, and reads its row
 * by the table's key (or, for the claimable list, the (status, id) index).
 */
import type { Expression, ExpressionBuilder, Kysely, SqlBool, Updateable } from 'kysely'
import type { Database } from '../database.js'

/** The tables that carry a lease: `lease_owner` (the worker holding the row) and `lease_expires`. */
export type LeasedTableName = {
  [T in keyof Database]: Database[T] extends { lease_owner: string | null; lease_expires: string | null } ? T : never
}[keyof Database]

/** How a table's rows are leased. */
export interface LeasedTable<T extends LeasedTableName> {
  table: T
  /** The column naming one row. */
  key: keyof Database[T] & string
  /**
   * A job's `status` column: it waits as `waiting` until a worker claims it and is `running` under its
   * lease until done. Without it (a scheduled task, never done), a row is free whenever nobody's lease
   * holds it.
   */
  status?: { waiting: string; running: string }
}

type Key = number | string

/** Values for a leased row's own columns: plain values, or expressions of the row (`coalesce(started_at, …)`). */
export type LeasedValues<T extends LeasedTableName> = {
  [C in keyof Updateable<Database[T]>]?: Updateable<Database[T]>[C] | Expression<unknown>
}

/** The statements below are the same for every leased table; the table's own columns come in `set`. */
type AnyTable = Record<string, unknown>
const untyped = (db: Kysely<Database>) => db as unknown as Kysely<Record<string, AnyTable>>

export interface Lease<T extends LeasedTableName> {
  /** Rows a worker could claim now, oldest first (only for a table with a status). */
  claimable(db: Kysely<Database>, now: string, limit: number): Promise<number[]>
  /**
   * Compare-and-set claim of one free row (waiting, or running under a lease that ran out because its
   * node died) until `leaseUntil`, also writing `set`; `also` narrows which free rows may be claimed.
   * True for exactly one of any number of racing workers.
   */
  claim(
    db: Kysely<Database>,
    key: Key,
    claim: { workerId: string; now: string; leaseUntil: string },
    set?: LeasedValues<T>,
    also?: Expression<SqlBool>,
  ): Promise<boolean>
  /** Writes `set` (usually a later lease_expires) while `workerId` holds the row; false when it lost it. */
  renew(db: Kysely<Database>, key: Key, workerId: string, set: LeasedValues<T>): Promise<boolean>
  /** Lets go of the row with `set` (its outcome); false when `workerId` no longer held it. */
  finish(db: Kysely<Database>, key: Key, workerId: string, set: LeasedValues<T>): Promise<boolean>
  /** Gives the row back with its lease ending at `expires`, so another worker may claim it from then on. */
  release(db: Kysely<Database>, key: Key, workerId: string, expires: string): Promise<void>
}

export function leaseOf<T extends LeasedTableName>(spec: LeasedTable<T>): Lease<T> {
  const { status } = spec
  const keyColumn: string = spec.key
  const table: string = spec.table
  /** Free to claim at `now`: waiting, or running (for a job) under a lease that ran out. */
  const free = (now: string) => (eb: ExpressionBuilder<Record<string, AnyTable>, string>) =>
    status
      ? eb.or([
          eb('status', '=', status.waiting),
          eb.and([eb('status', '=', status.running), eb('lease_expires', '<', now)]),
        ])
      : eb.or([eb('lease_expires', 'is', null), eb('lease_expires', '<', now)])
  /** Held by `workerId`: the fence every write after the claim goes through. */
  const held = (db: Kysely<Database>, set: AnyTable, key: Key, workerId: string) => {
    let query = untyped(db).updateTable(table).set(set).where(keyColumn, '=', key).where('lease_owner', '=', workerId)
    if (status) query = query.where('status', '=', status.running)
    return query
  }
  const one = (result: { numUpdatedRows: bigint }) => Number(result.numUpdatedRows) === 1
  return {
    async claimable(db, now, limit) {
      if (!status) throw new Error(`${table} has no status to list claimable rows by`)
      const rows = await untyped(db)
        .selectFrom(table)
        .select(keyColumn)
        .where(free(now))
        .orderBy(keyColumn)
        .limit(limit)
        .execute()
      return rows.map((r) => r[keyColumn] as number)
    },
    async claim(db, key, { workerId, now, leaseUntil }, set, also) {
      let query = untyped(db)
        .updateTable(table)
        .set({
          ...(status ? { status: status.running } : {}),
          lease_owner: workerId,
          lease_expires: leaseUntil,
          ...(set as AnyTable),
        })
        .where(keyColumn, '=', key)
        .where(free(now))
      if (also) query = query.where(also)
      return one(await query.executeTakeFirst())
    },
    async renew(db, key, workerId, set) {
      return one(await held(db, set as AnyTable, key, workerId).executeTakeFirst())
    },
    async finish(db, key, workerId, set) {
      const ending = { ...(set as AnyTable), lease_owner: null, lease_expires: null }
      return one(await held(db, ending, key, workerId).executeTakeFirst())
    },
    async release(db, key, workerId, expires) {
      await held(db, { lease_owner: null, lease_expires: expires }, key, workerId).execute()
    },
  }
}

/**
 * What a starting node asks of the database: reference data seeded once, and the first-start
 * work serialized when several nodes start at once on PostgreSQL (transaction-scoped advisory
 * locks, which hold behind a transaction pooler; SQLite has one writer, so nothing to serialize).
 */
import { type Kysely, sql } from 'kysely'
import type { Store } from '../connect.js'
import type { Database } from '../database.js'
import { seedReferenceData } from './reference-data.repository.js'

const SEED_LOCK = 7345201
const FIRST_START_LOCK = 7345202

export async function seedReferenceDataOnce(store: Store, now: string): Promise<void> {
  if (store.dialect !== 'postgres') return seedReferenceData(store.db, now)
  await store.db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${sql.lit(SEED_LOCK)})`.execute(trx)
    await seedReferenceData(trx, now)
  })
}

/**
 * Runs `work` in one transaction that holds the first-start lock until it commits: nothing of the
 * lock outlives the transaction, so it holds behind a transaction pooler too, and a node that
 * dies half-way leaves neither a lock nor half an administrator behind.
 */
export async function withFirstStartLock<T>(store: Store, work: (db: Kysely<Database>) => Promise<T>): Promise<T> {
  return store.db.transaction().execute(async (trx) => {
    if (store.dialect === 'postgres') await sql`SELECT pg_advisory_xact_lock(${sql.lit(FIRST_START_LOCK)})`.execute(trx)
    return work(trx)
  })
}

export async function hasAnyOwner(db: Kysely<Database>): Promise<boolean> {
  return !!(await db.selectFrom('owner').select('id').limit(1).executeTakeFirst())
}

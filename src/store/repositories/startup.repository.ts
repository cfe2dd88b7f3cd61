/**
 * What a starting node asks of the database: reference data seeded once, and the first-start
 * work serialized when several nodes start at once on PostgreSQL (advisory locks; SQLite has
 * one writer, so nothing to serialize).
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

/** Runs `work` while holding the first-start lock; a session lock needs one pinned connection, the work may use any other. */
export async function withFirstStartLock<T>(store: Store, work: () => Promise<T>): Promise<T> {
  if (store.dialect !== 'postgres') return work()
  return store.db.connection().execute(async (connection) => {
    await sql`SELECT pg_advisory_lock(${sql.lit(FIRST_START_LOCK)})`.execute(connection)
    try {
      return await work()
    } finally {
      await sql`SELECT pg_advisory_unlock(${sql.lit(FIRST_START_LOCK)})`.execute(connection)
    }
  })
}

export async function hasAnyOwner(db: Kysely<Database>): Promise<boolean> {
  return !!(await db.selectFrom('owner').select('id').limit(1).executeTakeFirst())
}

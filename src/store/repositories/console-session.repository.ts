/**
 * Console sessions (migration 0140). The lookup each request makes is the auth repository's
 * (`findBySessionHash`, prepared and cached with the other credentials); these are the writes.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../database.js'

export async function insertSession(
  db: Kysely<Database>,
  values: { user_id: number; token_hash: string; csrf_token: string; created_at: string; expires_at: string },
): Promise<void> {
  await db.insertInto('console_session').values(values).execute()
}

export async function deleteSessionByHash(db: Kysely<Database>, tokenHash: string): Promise<number> {
  const result = await db.deleteFrom('console_session').where('token_hash', '=', tokenHash).executeTakeFirst()
  return Number(result.numDeletedRows)
}

export async function deleteSessionsOfUser(db: Kysely<Database>, userId: number): Promise<number> {
  const result = await db.deleteFrom('console_session').where('user_id', '=', userId).executeTakeFirst()
  return Number(result.numDeletedRows)
}

/** Sessions past their expiry; timestamps are ISO strings in UTC, so they compare as text. */
export async function deleteExpiredSessions(db: Kysely<Database>, now: string): Promise<number> {
  const result = await db.deleteFrom('console_session').where('expires_at', '<=', now).executeTakeFirst()
  return Number(result.numDeletedRows)
}

export async function countSessionsOfUser(db: Kysely<Database>, userId: number): Promise<number> {
  const row = await db
    .selectFrom('console_session')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/**
 * Sessions of people signed in to the console (docs/console.md). The browser holds a random token in
 * an HttpOnly cookie; the database holds only its SHA-256 (`token_hash`), so a copy of the table
 * signs no one in. `csrf_token` is the per-session value the console sends back in a header on every
 * write. A session ends when it is deleted (sign-out, the account's removal) or at `expires_at`.
 */
import type { Kysely } from 'kysely'
import { withId } from './schema-helpers.js'

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('console_session'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('user_account.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('console_session_user').on('console_session').column('user_id').execute()
  await db.schema.createIndex('console_session_expiry').on('console_session').column('expires_at').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('console_session').ifExists().execute()
}

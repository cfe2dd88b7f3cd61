/**
 * Change notices: on PostgreSQL every statement that writes a table a node caches (accounts,
 * memberships, tokens, access keys, owners, settings) sends NOTIFY on CHANGES_CHANNEL, delivered to
 * every listening node when the transaction commits, whoever wrote (a node, the admin CLI, a
 * restore). Nodes empty their caches on it (store/change-notices.ts), so a change applies everywhere
 * within milliseconds rather than at the end of the caches' second. Statement triggers: one notice a
 * statement, and PostgreSQL folds equal notices of one transaction into one.
 *
 * SQLite needs nothing here: every connection sees its file's `PRAGMA data_version` move when
 * another connection commits.
 */
import { type Kysely, sql } from 'kysely'
import { isPostgres } from './schema-helpers.js'

/** Kept in step with store/change-notices.ts CHANGES_CHANNEL (a migration never imports live code). */
const CHANNEL = 'bulwark_changes'
const TABLES = ['user_account', 'membership', 'api_token', 'access_key', 'owner', 'setting'] as const

export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return
  await sql`create function bulwark_notify_change() returns trigger language plpgsql as $$
    begin
      perform pg_notify(${sql.lit(CHANNEL)}, tg_table_name);
      return null;
    end $$`.execute(db)
  for (const table of TABLES) {
    await sql`create trigger ${sql.raw(`${table}_changed`)} after insert or update or delete or truncate on ${sql.table(table)}
      for each statement execute function bulwark_notify_change()`.execute(db)
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return
  for (const table of TABLES)
    await sql`drop trigger if exists ${sql.raw(`${table}_changed`)} on ${sql.table(table)}`.execute(db)
  await sql`drop function if exists bulwark_notify_change()`.execute(db)
}

/**
 * PostgreSQL: a batch job's upload is kept compressed with LZ4 rather than pglz. An upload is up to 2 MB of JSON,
 * stored once and read once before the job deletes it; pglz took 1.2 s of the database's 34 s over a realistic
 * 200,000-Indicator load (41 uploads, pg_stat_statements, session 24), LZ4 compresses several times faster. Only
 * where the server was built with LZ4 (PostgreSQL 14 and later, `default_toast_compression` offers it); elsewhere,
 * and on SQLite, uploads stay as they were.
 */
import { type Kysely, sql } from 'kysely'
import { isPostgres } from './schema-helpers.js'

async function lz4Available(db: Kysely<any>): Promise<boolean> {
  const { rows } = await sql<{ lz4: boolean }>`select coalesce(bool_or('lz4' = any(enumvals)), false) as lz4
    from pg_settings where name = 'default_toast_compression'`.execute(db)
  return rows[0]?.lz4 === true
}

export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db) || !(await lz4Available(db))) return
  await sql`alter table batch_input alter column content set compression lz4`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db) || !(await lz4Available(db))) return
  await sql`alter table batch_input alter column content set compression default`.execute(db)
}

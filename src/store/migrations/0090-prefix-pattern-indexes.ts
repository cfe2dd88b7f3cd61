/**
 * PostgreSQL only: TQL's STARTSWITH compiles to `lower(column) LIKE 'prefix%'`, which a
 * plain index serves only under the C collation. text_pattern_ops indexes serve it under any
 * collation. SQLite reads prefixes through the 0050 indexes with a range the compiler adds.
 */
import { type Kysely, sql } from 'kysely'
import { isPostgres } from './schema-helpers.js'

const INDEXES = [
  ['indicator_summary_lower_prefix', 'indicator', 'summary'],
  ['intel_group_name_lower_prefix', 'intel_group', 'name'],
  ['tag_name_lower_prefix', 'tag', 'name'],
] as const

export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return
  for (const [name, table, column] of INDEXES) {
    await sql`CREATE INDEX ${sql.id(name)} ON ${sql.table(table)} (lower(${sql.ref(column)}) text_pattern_ops)`.execute(
      db,
    )
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return
  for (const [name] of INDEXES) await db.schema.dropIndex(name).execute()
}

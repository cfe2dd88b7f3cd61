/**
 * Indexes for TQL's case-insensitive keywords (indicator summary, group and tag names):
 * they compare lower(column) = lower(value), which a plain column index cannot serve.
 */
import { type Kysely, sql } from 'kysely'

const INDEXES = [
  ['indicator_summary_lower', 'indicator', 'summary'],
  ['intel_group_name_lower', 'intel_group', 'name'],
  ['tag_name_lower', 'tag', 'name'],
] as const

export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, table, column] of INDEXES) {
    await db.schema
      .createIndex(name)
      .on(table)
      .expression(sql`lower(${sql.ref(column)})`)
      .execute()
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [name] of INDEXES) await db.schema.dropIndex(name).execute()
}

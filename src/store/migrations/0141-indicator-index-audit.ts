/**
 * Issue 28: indexes of the Indicator table that no query needs, dropped. Every Indicator written pays for each
 * index of the table (the batch writer's INSERT is most of a chunk's time, and each write moves its entries in
 * every index holding last_modified), so an index stays only when some statement reads through it;
 * docs/benchmarks.md ("The Indicator table's indexes") lists each index with the statements that need it, and
 * store/indicator-indexes.test.ts holds the schema to that list.
 *
 * - `indicator_summary (summary)`: the look-ups by summary name the owner and the type and read
 *   `indicator_owner_type_summary`; the v2 list filter `summary=` (any owners, any type) now also compares
 *   `lower(summary)`, which the lower(summary) index of 0050 (PostgreSQL: 0090's) serves.
 * - `indicator_modified (last_modified)` and `indicator_date_added (date_added, id)`: TQL compares dates as
 *   expressions no index matches (tql/compile.ts: a page reads in id order and stops), so no statement seeks
 *   them; SQLite read them only whole, as the narrowest index holding the column for a TQL count, which
 *   `indicator_owner_modified` and `indicator_owner_added` (that column and two more) serve alike. Every read of
 *   a window of one owner's rows (feeds, lifecycle, the v2 modifiedSince and dateAdded filters) seeks those two.
 * - PostgreSQL: `indicator_summary_lower (lower(summary))` duplicates 0090's `indicator_summary_lower_prefix`:
 *   a text_pattern_ops index serves equality and IN lists as well as prefixes. It alone could serve an ORDER BY
 *   lower(summary), and no statement sorts by it (TQL sorting orders by the column).
 */
import { type Kysely, sql } from 'kysely'
import { isPostgres } from './schema-helpers.js'

const DROPPED = [
  ['indicator_summary', ['summary']],
  ['indicator_modified', ['last_modified']],
  ['indicator_date_added', ['date_added', 'id']],
] as const

export async function up(db: Kysely<any>): Promise<void> {
  for (const [name] of DROPPED) await db.schema.dropIndex(name).execute()
  if (isPostgres(db)) await db.schema.dropIndex('indicator_summary_lower').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db))
    await db.schema
      .createIndex('indicator_summary_lower')
      .on('indicator')
      .expression(sql`lower(${sql.ref('summary')})`)
      .execute()
  for (const [name, columns] of DROPPED)
    await db.schema
      .createIndex(name)
      .on('indicator')
      .columns([...columns])
      .execute()
}

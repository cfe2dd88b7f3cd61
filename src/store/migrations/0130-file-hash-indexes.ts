/**
 * The File hash indexes hold only the Files that have that hash. The indexes of 0001 held every File, and a
 * File has one, two or three of its hashes: on a store whose Files are half MD5-only and half SHA-256-only,
 * half of each index's entries were NULL. NULLs sort first, so statistics read from the start of an index
 * (SQLite's analysis_limit) saw only NULLs and called the column unselective, and the batch writer's
 * `owner_id = ? AND type = 'File' AND value1 IN (…)` was planned as a scan of every File of the owner
 * (300 ms a look-up at a million Indicators, against 0.08 ms through the index). Without the NULLs the
 * statistics of each index describe real hashes only, and the look-ups name `value1 IS NOT NULL` so both
 * databases can use the partial index. Uniqueness is unchanged: NULLs never conflicted.
 *
 * On PostgreSQL the hash leads the key. With statistics older than the first hash of a kind (the column all
 * NULL when last analyzed), PostgreSQL estimated no rows and searched the index by owner alone, filtering the
 * hash list; with the hash first, a search of this index is a search by hash. SQLite keeps the owner first:
 * without statistics it weighs an index by how many of its leading columns have equalities, and with the
 * hash (an IN list) first it preferred the owner's every File through (owner_id, type, summary).
 */
import { type Kysely, sql } from 'kysely'
import { isPostgres } from './schema-helpers.js'

const HASHES = [
  ['indicator_file_md5', 'indicator_file_hash1', 'value1'],
  ['indicator_file_sha1', 'indicator_file_hash2', 'value2'],
  ['indicator_file_sha256', 'indicator_file_hash3', 'value3'],
] as const

export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, old, column] of HASHES) {
    await db.schema
      .createIndex(name)
      .unique()
      .on('indicator')
      .columns(isPostgres(db) ? [column, 'owner_id'] : ['owner_id', column])
      .where(sql<boolean>`${sql.ref('type')} = 'File' and ${sql.ref(column)} is not null`)
      .execute()
    await db.schema.dropIndex(old).execute()
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [name, old, column] of HASHES) {
    await db.schema
      .createIndex(old)
      .unique()
      .on('indicator')
      .columns(['owner_id', column])
      .where(sql<boolean>`${sql.ref('type')} = 'File'`)
      .execute()
    await db.schema.dropIndex(name).execute()
  }
}

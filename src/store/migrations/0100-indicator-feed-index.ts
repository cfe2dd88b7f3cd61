/**
 * The feed order (domain/listing/feed.ts): one owner's Indicators by last change, then id.
 * With this index a page is a seek and a short range scan, whatever the owner's size.
 */
import type { Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('indicator_owner_modified')
    .on('indicator')
    .columns(['owner_id', 'last_modified', 'id'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('indicator_owner_modified').execute()
}

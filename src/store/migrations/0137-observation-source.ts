/**
 * An observation may come from a source's sighting (a STIX `sighting` object, imported): it keeps
 * that sighting's id and version, so importing the same sighting again records nothing new and a
 * newer version replaces the count it recorded instead of adding to it. Observations reported
 * through the API have neither (NULL, which never conflicts in the unique index).
 */
import type { Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('indicator_observation').addColumn('source_ref', 'text').execute()
  await db.schema.alterTable('indicator_observation').addColumn('source_modified', 'text').execute()
  await db.schema
    .createIndex('indicator_observation_source')
    .unique()
    .on('indicator_observation')
    .columns(['indicator_id', 'source_ref'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('indicator_observation_source').execute()
  await db.schema.alterTable('indicator_observation').dropColumn('source_modified').execute()
  await db.schema.alterTable('indicator_observation').dropColumn('source_ref').execute()
}

/**
 * The STIX id an imported Indicator is served under (TAXII 2.1, the STIX export): its source
 * indicator's id when that object made this Indicator alone, so a consumer reading both the source
 * and Bulwark holds one object. NULL for every other Indicator, served under its derived id. One
 * Indicator per id in an owner; the index (of the Indicators that have one) also finds an Indicator
 * by that id (`objects/{id}`); its queries say `stix_id IS NOT NULL`, so SQLite may use it.
 * Every id an Indicator was imported with stays as its `External ID` attribute.
 */
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('indicator').addColumn('stix_id', 'text').execute()
  // Partial: most Indicators have none, and an index entry for each of them would cost every insert.
  await db.schema
    .createIndex('indicator_stix_id')
    .unique()
    .on('indicator')
    .columns(['owner_id', 'stix_id'])
    .where(sql.ref('stix_id'), 'is not', null)
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('indicator_stix_id').execute()
  await db.schema.alterTable('indicator').dropColumn('stix_id').execute()
}

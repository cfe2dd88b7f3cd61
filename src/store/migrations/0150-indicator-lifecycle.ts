/**
 * The Indicator lifecycle (domain/lifecycle): when an Indicator was last seen again in an import or a
 * feed, each owner's days-until-stale per type, and the lease under which one node at a time runs a
 * scheduled task.
 *
 * `last_sighted` is written only when an import meets an Indicator it holds already and changes nothing
 * in it (any other write stamps last_modified, which the lifecycle counts as well), and at most once a
 * day per Indicator, so re-importing a feed is not a write of every row. `stale_since` marks an
 * Indicator the lifecycle turned inactive, so that seeing it again makes it active again while one an
 * analyst or its source turned inactive stays so.
 */
import type { Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('indicator').addColumn('last_sighted', 'text').execute()
  await db.schema.alterTable('indicator').addColumn('stale_since', 'text').execute()
  await db.schema
    .createTable('indicator_lifecycle_policy')
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('owner.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('days', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('indicator_lifecycle_policy_pk', ['owner_id', 'type'])
    .execute()
  await db.schema
    .createTable('scheduled_task')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires', 'text')
    .addColumn('last_started', 'text')
    .addColumn('last_finished', 'text')
    .addColumn('last_outcome', 'text')
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('scheduled_task').execute()
  await db.schema.dropTable('indicator_lifecycle_policy').execute()
  await db.schema.alterTable('indicator').dropColumn('stale_since').execute()
  await db.schema.alterTable('indicator').dropColumn('last_sighted').execute()
}

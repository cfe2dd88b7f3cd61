/**
 * Two small additions for Security Labels and Playbooks:
 * - owner.standard_labels_seeded: the TLP labels are created in an owner the first time its
 *   labels are used; the flag makes that happen once, so a deleted TLP label stays deleted;
 * - playbook.xid: the platform addresses Playbooks by id or by their exported xid.
 */
import type { Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('owner')
    .addColumn('standard_labels_seeded', 'integer', (c) => c.notNull().defaultTo(0))
    .execute()
  await db.schema.alterTable('playbook').addColumn('xid', 'text').execute()
  await db.schema.createIndex('playbook_owner_xid').unique().on('playbook').columns(['owner_id', 'xid']).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('playbook_owner_xid').execute()
  await db.schema.alterTable('playbook').dropColumn('xid').execute()
  await db.schema.alterTable('owner').dropColumn('standard_labels_seeded').execute()
}

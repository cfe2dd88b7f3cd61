/**
 * Indexes that let three writes seek their rows instead of reading a whole table (issue 28, found by
 * store/statement-plans.test.ts, which explains every statement the writers and feed readers run):
 *
 * - `item_security_label_label` becomes `(label_id, item_kind, item_id)`. Whether a label is on any of an
 *   owner's Indicators (the TAXII 1.1 feed's marking look-up) searched the primary key `(item_kind, …)` by
 *   `item_kind` alone on SQLite — every label link of every Indicator — and PostgreSQL scanned the table; with
 *   the kind in the label's index both seek `label_id = ? AND item_kind = ?`, as `item_tag_tag` does for tags.
 * - `dns_resolution_address (address_id)` and `file_action_target (target_indicator_id)`: deleting an
 *   Indicator cascades to the rows that name it there, and without an index on those columns SQLite scanned
 *   both tables once per deleted Indicator.
 *
 * Associations need no index of their own: they are stored in both directions, so the rows pointing at a
 * deleted item are found from its own rows (association.repository.ts `deleteAssociationsOfItems`).
 */
import type { Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('item_security_label_label_item')
    .on('item_security_label')
    .columns(['label_id', 'item_kind', 'item_id'])
    .execute()
  await db.schema.dropIndex('item_security_label_label').execute()
  await db.schema.createIndex('dns_resolution_address').on('dns_resolution').columns(['address_id']).execute()
  await db.schema.createIndex('file_action_target').on('file_action').columns(['target_indicator_id']).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('file_action_target').execute()
  await db.schema.dropIndex('dns_resolution_address').execute()
  await db.schema.createIndex('item_security_label_label').on('item_security_label').columns(['label_id']).execute()
  await db.schema.dropIndex('item_security_label_label_item').execute()
}

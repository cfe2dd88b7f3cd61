/**
 * Security Labels as objects: one row per (owner, name). Applying a label to an item is
 * metadata.repository's job; this module reads the item links only for label-centred views.
 */
import type { Kysely } from 'kysely'
import type { Database, Row } from './database.js'

export type SecurityLabelRow = Row<'security_label'>

export function findLabelByName(db: Kysely<Database>, ownerId: number, name: string): Promise<SecurityLabelRow | undefined> {
  return db.selectFrom('security_label').selectAll().where('owner_id', '=', ownerId).where('name', '=', name).executeTakeFirst()
}

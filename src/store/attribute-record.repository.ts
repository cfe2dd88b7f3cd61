/**
 * Attributes as objects of their own (/v3/groupAttributes and the like): read by id with the
 * item they sit on, and removed with the labels applied to them.
 */
import type { Kysely } from 'kysely'
import type { Database } from './database.js'
import { attributeColumns, inChunks } from './metadata.repository.js'

export function findAttributesByIds(db: Kysely<Database>, ids: readonly number[]) {
  return inChunks(ids, (chunk) => attributeColumns(db).innerJoin('owner', 'owner.id', 'attribute.owner_id')
    .select('owner.name as owner_name').where('attribute.id', 'in', chunk).execute())
}

export type AttributeRecordRow = Awaited<ReturnType<typeof findAttributesByIds>>[number]

export function listAttributeIdsOf(db: Kysely<Database>, kind: string, itemId: number) {
  return db.selectFrom('attribute').select('id').where('item_kind', '=', kind).where('item_id', '=', itemId).orderBy('id').execute()
}

export async function deleteAttributes(db: Kysely<Database>, ids: readonly number[]): Promise<void> {
  await inChunks(ids, async (chunk) => {
    await db.deleteFrom('item_security_label').where('item_kind', '=', 'attribute').where('item_id', 'in', chunk).execute()
    await db.deleteFrom('attribute').where('id', 'in', chunk).execute()
    return []
  })
}

export async function updateAttributeRow(db: Kysely<Database>, id: number, changes: { value?: string; source?: string | null; displayed?: number; pinned?: number; last_modified: string }) {
  await db.updateTable('attribute').set(changes).where('id', '=', id).execute()
}

/** Tags and Security Labels read by id (v3 addresses them by id, across the caller's owners). */
import type { Kysely } from 'kysely'
import type { Database } from './database.js'
import { inChunks } from './metadata.repository.js'

export function findTagsByIds(db: Kysely<Database>, ids: readonly number[]) {
  return inChunks(ids, (chunk) => db.selectFrom('tag').innerJoin('owner', 'owner.id', 'tag.owner_id')
    .selectAll('tag').select('owner.name as owner_name').where('tag.id', 'in', chunk).execute())
}

export type TagRecordRow = Awaited<ReturnType<typeof findTagsByIds>>[number]

/** Tag ids carried by each item (for fields=tags). */
export function listItemTagIds(db: Kysely<Database>, kind: string, itemIds: readonly number[]) {
  return inChunks(itemIds, (chunk) => db.selectFrom('item_tag').innerJoin('tag', 'tag.id', 'item_tag.tag_id')
    .select(['item_tag.item_id', 'item_tag.tag_id']).where('item_tag.item_kind', '=', kind).where('item_tag.item_id', 'in', chunk)
    .orderBy('tag.name').execute())
}

export function findLabelsByIds(db: Kysely<Database>, ids: readonly number[]) {
  return inChunks(ids, (chunk) => db.selectFrom('security_label').innerJoin('owner', 'owner.id', 'security_label.owner_id')
    .selectAll('security_label').select('owner.name as owner_name').where('security_label.id', 'in', chunk).execute())
}

export function findAttributeTypesByIds(db: Kysely<Database>, ids: readonly number[]) {
  return inChunks(ids, (chunk) => db.selectFrom('attribute_type').selectAll().where('id', 'in', chunk).execute())
}

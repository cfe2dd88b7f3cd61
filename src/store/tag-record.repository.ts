/** Tags and Security Labels read by id (v3 addresses them by id, across the caller's owners). */
import type { Kysely } from 'kysely'
import type { Database } from './database.js'
import { inChunks } from './metadata.repository.js'

export function findTagsByIds(db: Kysely<Database>, ids: readonly number[]) {
  return inChunks(ids, (chunk) => db.selectFrom('tag').innerJoin('owner', 'owner.id', 'tag.owner_id')
    .selectAll('tag').select('owner.name as owner_name').where('tag.id', 'in', chunk).execute())
}

export function findLabelsByIds(db: Kysely<Database>, ids: readonly number[]) {
  return inChunks(ids, (chunk) => db.selectFrom('security_label').innerJoin('owner', 'owner.id', 'security_label.owner_id')
    .selectAll('security_label').select('owner.name as owner_name').where('security_label.id', 'in', chunk).execute())
}

export function findAttributeTypesByIds(db: Kysely<Database>, ids: readonly number[]) {
  return inChunks(ids, (chunk) => db.selectFrom('attribute_type').selectAll().where('id', 'in', chunk).execute())
}

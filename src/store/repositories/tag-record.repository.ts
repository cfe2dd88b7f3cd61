/** Tags and Security Labels read by id (v3 addresses them by id, across the caller's owners). */
import type { Kysely } from 'kysely'
import type { Store } from '../connect.js'
import type { Database } from '../database.js'
import { preparedByIds } from '../engine/prepared-read.js'

export const findTagsByIds = preparedByIds('tags_by_id', (db, idIn) =>
  db
    .selectFrom('tag')
    .innerJoin('owner', 'owner.id', 'tag.owner_id')
    .selectAll('tag')
    .select('owner.name as owner_name')
    .where(idIn('tag.id')),
)

export const findLabelsByIds = preparedByIds('security_labels_by_id', (db, idIn) =>
  db
    .selectFrom('security_label')
    .innerJoin('owner', 'owner.id', 'security_label.owner_id')
    .selectAll('security_label')
    .select('owner.name as owner_name')
    .where(idIn('security_label.id')),
)

export const findAttributeTypesByIds = preparedByIds('attribute_types_by_id', (db, idIn) =>
  db.selectFrom('attribute_type').selectAll().where(idIn('id')),
)

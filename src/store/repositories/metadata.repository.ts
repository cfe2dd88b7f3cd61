/**
 * Attributes, and the links that put Tags and Security Labels on items (and labels on
 * attributes). Look-ups by many item ids are chunked to stay under the databases'
 * bound-parameter limits.
 */
import type { Insertable, Kysely, Updateable } from 'kysely'
import type { ItemKind } from '../../model/kinds.js'
import type { Store } from '../connect.js'
import type { Database } from '../database.js'
import { type ColumnCondition, columnCondition, combine } from '../engine/list-conditions.js'
import { preparedByIds } from '../engine/prepared-read.js'

const CHUNK = 5000

export async function inChunks<T>(ids: readonly number[], run: (chunk: number[]) => Promise<T[]>): Promise<T[]> {
  const out: T[] = []
  for (let i = 0; i < ids.length; i += CHUNK) out.push(...(await run(ids.slice(i, i + CHUNK))))
  return out
}

export function attributeColumns(db: Kysely<Database>) {
  return db
    .selectFrom('attribute')
    .innerJoin('attribute_type', 'attribute_type.id', 'attribute.type_id')
    .select([
      'attribute.id',
      'attribute.item_kind',
      'attribute.item_id',
      'attribute.owner_id',
      'attribute.value',
      'attribute.displayed',
      'attribute.pinned',
      'attribute.source',
      'attribute.date_added',
      'attribute.last_modified',
      'attribute.created_by',
      'attribute_type.name as type_name',
    ])
}

export type AttributeRow = Awaited<ReturnType<ReturnType<typeof attributeColumns>['execute']>>[number]

export function listAttributesOf(
  db: Kysely<Database>,
  kind: ItemKind,
  ids: readonly number[],
): Promise<AttributeRow[]> {
  return inChunks(ids, (chunk) =>
    attributeColumns(db)
      .where('attribute.item_kind', '=', kind)
      .where('attribute.item_id', 'in', chunk)
      .orderBy('attribute.id')
      .execute(),
  )
}

export function findAttribute(db: Kysely<Database>, kind: ItemKind, itemId: number, attributeId: number) {
  return attributeColumns(db)
    .where('attribute.id', '=', attributeId)
    .where('attribute.item_kind', '=', kind)
    .where('attribute.item_id', '=', itemId)
    .executeTakeFirst()
}

/** Attribute types of the system and of the given owners, with the owner's name. */
export type AttributeTypeColumn = 'system' | 'allow_markdown' | 'max_length' | 'owner_id'

export function selectAttributeTypes(
  db: Kysely<Database>,
  ownerIds: number[],
  conditions: readonly ColumnCondition<AttributeTypeColumn>[] = [],
) {
  return db
    .selectFrom('attribute_type')
    .leftJoin('owner', 'owner.id', 'attribute_type.owner_id')
    .select([
      'attribute_type.id',
      'attribute_type.name',
      'attribute_type.description',
      'attribute_type.owner_id',
      'attribute_type.max_length',
      'attribute_type.allow_markdown',
      'attribute_type.error_message',
      'attribute_type.validation_rule',
      'attribute_type.applies_to',
      'attribute_type.system',
      'owner.name as owner_name',
    ])
    .where((eb) =>
      eb.or([
        eb('attribute_type.owner_id', 'is', null),
        ...(ownerIds.length ? [eb('attribute_type.owner_id', 'in', ownerIds)] : []),
      ]),
    )
    .where((eb) =>
      combine(
        eb,
        conditions.map((c) => columnCondition(eb, `attribute_type.${c.column}`, c)),
        'and',
      ),
    )
    .orderBy('attribute_type.name')
    .execute()
}

/** Every attribute type usable in an owner (system types first, then the owner's own). */
export function listUsableAttributeTypes(db: Kysely<Database>, ownerId: number) {
  return db
    .selectFrom('attribute_type')
    .selectAll()
    .where((eb) => eb.or([eb('owner_id', 'is', null), eb('owner_id', '=', ownerId)]))
    .orderBy('owner_id', 'asc')
    .execute()
}

/** Attribute types usable in an owner: the system ones and the owner's own. */
export function findAttributeType(db: Kysely<Database>, name: string, ownerId: number) {
  return db
    .selectFrom('attribute_type')
    .selectAll()
    .where('name', '=', name)
    .where((eb) => eb.or([eb('owner_id', 'is', null), eb('owner_id', '=', ownerId)]))
    .orderBy('owner_id', 'desc')
    .executeTakeFirst()
}

/** Attributes by id with the name of the owner holding them (/v3/groupAttributes and the like). */
export const findAttributesByIds = preparedByIds('attributes_by_id', (db, idIn) =>
  attributeColumns(db)
    .innerJoin('owner', 'owner.id', 'attribute.owner_id')
    .select('owner.name as owner_name')
    .where(idIn('attribute.id')),
)

export type AttributeRecordRow = Awaited<ReturnType<typeof findAttributesByIds>>[number]

export function listAttributeIdsOf(db: Kysely<Database>, kind: string, itemId: number) {
  return db
    .selectFrom('attribute')
    .select('id')
    .where('item_kind', '=', kind)
    .where('item_id', '=', itemId)
    .orderBy('id')
    .execute()
}

export async function insertAttribute(
  db: Kysely<Database>,
  values: Insertable<Database['attribute']>,
): Promise<number> {
  return (await db.insertInto('attribute').values(values).returning('id').executeTakeFirstOrThrow()).id
}

export async function updateAttributeRow(db: Kysely<Database>, id: number, changes: Updateable<Database['attribute']>) {
  if (Object.keys(changes).length === 0) return
  await db.updateTable('attribute').set(changes).where('id', '=', id).execute()
}

/** Removes attributes with the labels applied to them. */
export async function deleteAttributes(db: Kysely<Database>, ids: readonly number[]): Promise<void> {
  await inChunks(ids, async (chunk) => {
    await db
      .deleteFrom('item_security_label')
      .where('item_kind', '=', 'attribute')
      .where('item_id', 'in', chunk)
      .execute()
    await db.deleteFrom('attribute').where('id', 'in', chunk).execute()
    return []
  })
}

export function listTagsOf(db: Kysely<Database>, kind: ItemKind, ids: readonly number[]) {
  return inChunks(ids, (chunk) =>
    db
      .selectFrom('item_tag')
      .innerJoin('tag', 'tag.id', 'item_tag.tag_id')
      .innerJoin('owner', 'owner.id', 'tag.owner_id')
      .selectAll('tag')
      .select(['item_tag.item_id', 'owner.name as owner_name'])
      .where('item_tag.item_kind', '=', kind)
      .where('item_tag.item_id', 'in', chunk)
      .orderBy('tag.name')
      .execute(),
  )
}

export function listLabelsOf(db: Kysely<Database>, kind: ItemKind, ids: readonly number[]) {
  return inChunks(ids, (chunk) =>
    db
      .selectFrom('item_security_label')
      .innerJoin('security_label as l', 'l.id', 'item_security_label.label_id')
      .innerJoin('owner', 'owner.id', 'l.owner_id')
      .selectAll('l')
      .select(['item_security_label.item_id', 'owner.name as owner_name'])
      .where('item_security_label.item_kind', '=', kind)
      .where('item_security_label.item_id', 'in', chunk)
      .orderBy('l.name')
      .execute(),
  )
}

/** Links the tag to the item (and marks it used); false when the item had it already. */
export async function linkTag(
  db: Kysely<Database>,
  tagId: number,
  kind: ItemKind,
  itemId: number,
  now: string,
): Promise<boolean> {
  const r = await db
    .insertInto('item_tag')
    .values({ tag_id: tagId, item_kind: kind, item_id: itemId, date_added: now })
    .onConflict((oc) => oc.columns(['item_kind', 'item_id', 'tag_id']).doNothing())
    .executeTakeFirst()
  await db.updateTable('tag').set({ last_used: now }).where('id', '=', tagId).execute()
  return Number(r.numInsertedOrUpdatedRows ?? 0) > 0
}

export async function unlinkTag(db: Kysely<Database>, tagId: number, kind: ItemKind, itemId: number) {
  const r = await db
    .deleteFrom('item_tag')
    .where('tag_id', '=', tagId)
    .where('item_kind', '=', kind)
    .where('item_id', '=', itemId)
    .executeTakeFirst()
  return Number(r.numDeletedRows) > 0
}

/** Links the label to the item; false when the item had it already. */
export async function linkLabel(
  db: Kysely<Database>,
  labelId: number,
  kind: ItemKind,
  itemId: number,
  now: string,
): Promise<boolean> {
  const r = await db
    .insertInto('item_security_label')
    .values({ label_id: labelId, item_kind: kind, item_id: itemId, date_added: now })
    .onConflict((oc) => oc.columns(['item_kind', 'item_id', 'label_id']).doNothing())
    .executeTakeFirst()
  return Number(r.numInsertedOrUpdatedRows ?? 0) > 0
}

export async function unlinkLabel(db: Kysely<Database>, labelId: number, kind: ItemKind, itemId: number) {
  const r = await db
    .deleteFrom('item_security_label')
    .where('label_id', '=', labelId)
    .where('item_kind', '=', kind)
    .where('item_id', '=', itemId)
    .executeTakeFirst()
  return Number(r.numDeletedRows) > 0
}

/** Sets last_modified on the Indicators, leaving those already at `now` unwritten (one created by the same call). */
export async function stampIndicators(db: Kysely<Database>, ids: readonly number[], now: string): Promise<void> {
  await inChunks(ids, async (chunk) => {
    await db
      .updateTable('indicator')
      .set({ last_modified: now })
      .where('id', 'in', chunk)
      .where('last_modified', '<>', now)
      .execute()
    return []
  })
}

/** Removes everything attached to the given items: attributes (and their labels), tag and label links, associations. */
export async function deleteMetadataOf(db: Kysely<Database>, kind: ItemKind, ids: readonly number[]) {
  await inChunks(ids, async (chunk) => {
    const attributeIds = db
      .selectFrom('attribute')
      .select('id')
      .where('item_kind', '=', kind)
      .where('item_id', 'in', chunk)
    await db
      .deleteFrom('item_security_label')
      .where('item_kind', '=', 'attribute')
      .where('item_id', 'in', attributeIds)
      .execute()
    await db.deleteFrom('attribute').where('item_kind', '=', kind).where('item_id', 'in', chunk).execute()
    await db.deleteFrom('item_tag').where('item_kind', '=', kind).where('item_id', 'in', chunk).execute()
    await db.deleteFrom('item_security_label').where('item_kind', '=', kind).where('item_id', 'in', chunk).execute()
    await deleteAssociationsOfItems(db, kind, chunk)
    return []
  })
}

/**
 * Deletes every association of the items, in both directions. Associations are stored both ways, so the rows
 * that point at an item are the mirror images of its own: their partners are read from the item's rows
 * (the primary key's `(from_kind, from_id)`) and the mirrors deleted by `(from_kind, from_id)` too. A
 * `to_kind = ? AND to_id IN (…)` has no index to seek and read the whole association table, once per deleted
 * chunk, on both databases.
 */
export async function deleteAssociationsOfItems(db: Kysely<Database>, kind: ItemKind, ids: readonly number[]) {
  await inChunks(ids, async (chunk) => {
    const partners = await db
      .selectFrom('association')
      .select(['to_kind', 'to_id'])
      .where('from_kind', '=', kind)
      .where('from_id', 'in', chunk)
      .execute()
    const byKind = new Map<string, Set<number>>()
    for (const p of partners) byKind.set(p.to_kind, (byKind.get(p.to_kind) ?? new Set()).add(p.to_id))
    for (const [partnerKind, partnerIds] of byKind)
      await inChunks([...partnerIds], async (part) => {
        await db
          .deleteFrom('association')
          .where('from_kind', '=', partnerKind as ItemKind)
          .where('from_id', 'in', part)
          .where('to_kind', '=', kind)
          .where('to_id', 'in', chunk)
          .execute()
        return []
      })
    await db.deleteFrom('association').where('from_kind', '=', kind).where('from_id', 'in', chunk).execute()
    return []
  })
}

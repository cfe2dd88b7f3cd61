/**
 * Groups (intel_group), their document content and their Adversary Assets. Only this file
 * writes SQL for them; rules (required fields, enums, permissions) live in domain/groups/groups.ts.
 */
import type { Insertable, Kysely, Updateable } from 'kysely'
import type { Database, GroupTable, Row } from '../database.js'
import {
  type AssociationScope,
  type ColumnCondition,
  associatedIds,
  columnCondition,
  combine,
  ownerFilter,
} from '../engine/list-conditions.js'
import type { Store } from '../connect.js'
import { findRowsByIds } from '../engine/rows-by-id.js'

/** Columns a list may filter on (the domain maps API names to these). */
export type GroupFilterColumn = 'name' | 'date_added' | 'first_seen' | 'file_type' | 'event_date'

export interface GroupListQuery {
  ownerIds: readonly number[]
  /** Group type names (`Intrusion Set`); empty or absent means every type. */
  types?: readonly string[]
  conditions: ColumnCondition<GroupFilterColumn>[]
  combine: 'and' | 'or'
  associatedWith?: AssociationScope
  /** Restrict to these ids (e.g. one associated Group). */
  ids?: readonly number[]
  offset: number
  limit: number
}

function groupColumns(db: Kysely<Database>) {
  return db
    .selectFrom('intel_group')
    .innerJoin('owner', 'owner.id', 'intel_group.owner_id')
    .selectAll('intel_group')
    .select(['owner.name as owner_name', 'owner.type as owner_type'])
}

export type GroupRow = Awaited<ReturnType<ReturnType<typeof groupColumns>['execute']>>[number]

export function findGroupRow(db: Kysely<Database>, id: number): Promise<GroupRow | undefined> {
  return groupColumns(db).where('intel_group.id', '=', id).executeTakeFirst()
}

/** Groups by id in any owner, without their owners' names (see keepReadableRows). */
export function findGroupRowsByIds(store: Store, ids: readonly number[]): Promise<Row<'intel_group'>[]> {
  return findRowsByIds(store, 'intel_group', ids)
}

export async function findGroupIdByXid(
  db: Kysely<Database>,
  ownerId: number,
  xid: string,
): Promise<number | undefined> {
  const row = await db
    .selectFrom('intel_group')
    .select('id')
    .where('owner_id', '=', ownerId)
    .where('xid', '=', xid)
    .executeTakeFirst()
  return row?.id
}

export async function insertGroup(db: Kysely<Database>, values: Insertable<GroupTable>): Promise<number> {
  const row = await db.insertInto('intel_group').values(values).returning('id').executeTakeFirstOrThrow()
  return row.id
}

export async function updateGroupRow(db: Kysely<Database>, id: number, values: Updateable<GroupTable>): Promise<void> {
  if (Object.keys(values).length === 0) return
  await db.updateTable('intel_group').set(values).where('id', '=', id).execute()
}

/** Deletes the Groups and what hangs off them by foreign key (content, Adversary Assets). */
export async function deleteGroupRows(db: Kysely<Database>, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return
  await db.deleteFrom('document_content').where('group_id', 'in', ids).execute()
  await db.deleteFrom('adversary_asset').where('group_id', 'in', ids).execute()
  await db.deleteFrom('intel_group').where('id', 'in', ids).execute()
}

function filteredGroups(db: Kysely<Database>, q: GroupListQuery) {
  let query = groupColumns(db).where((eb) =>
    ownerFilter(db, eb, 'intel_group.owner_id', q.ownerIds, q.ids !== undefined),
  )
  if (q.types?.length) query = query.where('intel_group.type', 'in', q.types)
  if (q.ids) query = query.where('intel_group.id', 'in', q.ids.length ? q.ids : [-1])
  if (q.associatedWith) query = query.where('intel_group.id', 'in', associatedIds(db, q.associatedWith, 'group'))
  if (q.conditions.length) {
    query = query.where((eb) =>
      combine(
        eb,
        q.conditions.map((c) => columnCondition(eb, `intel_group.${c.column}`, c)),
        q.combine,
      ),
    )
  }
  return query
}

export async function listGroupRows(
  db: Kysely<Database>,
  q: GroupListQuery,
): Promise<{ rows: GroupRow[]; total: number }> {
  if (q.ownerIds.length === 0) return { rows: [], total: 0 }
  const base = filteredGroups(db, q)
  const [rows, count] = await Promise.all([
    base.orderBy('intel_group.id').limit(q.limit).offset(q.offset).execute(),
    base
      .clearSelect()
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst(),
  ])
  return { rows, total: Number(count?.n ?? 0) }
}

export function findDocumentContent(db: Kysely<Database>, groupId: number) {
  return db.selectFrom('document_content').selectAll().where('group_id', '=', groupId).executeTakeFirst()
}

export async function hasDocumentContent(db: Kysely<Database>, groupId: number): Promise<boolean> {
  const row = await db
    .selectFrom('document_content')
    .select('group_id')
    .where('group_id', '=', groupId)
    .executeTakeFirst()
  return !!row
}

export async function saveDocumentContent(
  db: Kysely<Database>,
  groupId: number,
  content: Buffer,
  contentType: string,
  now: string,
) {
  await db.deleteFrom('document_content').where('group_id', '=', groupId).execute()
  await db
    .insertInto('document_content')
    .values({ group_id: groupId, content, content_type: contentType, size: content.length, uploaded_at: now })
    .execute()
}

export function listAdversaryAssetRows(db: Kysely<Database>, groupId: number, type?: string) {
  let q = db.selectFrom('adversary_asset').selectAll().where('group_id', '=', groupId)
  if (type) q = q.where('type', '=', type)
  return q.orderBy('id').execute()
}

export function findAdversaryAssetRow(db: Kysely<Database>, groupId: number, id: number) {
  return db
    .selectFrom('adversary_asset')
    .selectAll()
    .where('group_id', '=', groupId)
    .where('id', '=', id)
    .executeTakeFirst()
}

export async function insertAdversaryAsset(
  db: Kysely<Database>,
  values: { group_id: number; type: string; value: string; date_added: string },
) {
  const row = await db.insertInto('adversary_asset').values(values).returning('id').executeTakeFirstOrThrow()
  return row.id
}

export async function updateAdversaryAssetValue(db: Kysely<Database>, id: number, value: string) {
  await db.updateTable('adversary_asset').set({ value }).where('id', '=', id).execute()
}

export async function deleteAdversaryAssetRow(db: Kysely<Database>, id: number) {
  await db.deleteFrom('adversary_asset').where('id', '=', id).execute()
}

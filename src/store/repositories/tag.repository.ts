/**
 * Tags as objects: one row per (owner, name), names case-sensitive. Also the tag- and
 * label-centred reads of items ("Groups carrying tag X"); adding a tag to an item is
 * metadata.repository's job.
 */
import { type Kysely, type SelectQueryBuilder, sql } from 'kysely'
import type { Database, Row } from '../database.js'

export type TagRow = Row<'tag'>
export type TagWithWeight = TagRow & { weight: number }

export function findTagByName(db: Kysely<Database>, ownerId: number, name: string): Promise<TagRow | undefined> {
  return db.selectFrom('tag').selectAll().where('owner_id', '=', ownerId).where('name', '=', name).executeTakeFirst()
}

/**
 * Each name → the ids of the tags so named, case aside as TQL compares them (lower(name), its index), in these
 * owners; a name no tag has maps to none.
 */
export async function findTagIdsByLowerName(
  db: Kysely<Database>,
  names: readonly string[],
  ownerIds: readonly number[],
): Promise<Map<string, number[]>> {
  if (ownerIds.length === 0) return new Map(names.map((name) => [name, []]))
  const found = await Promise.all(
    names.map(async (name) => {
      const rows = await db
        .selectFrom('tag')
        .select('id')
        .where(sql`lower(name)`, '=', sql`lower(${name})`)
        .where('owner_id', 'in', ownerIds)
        .orderBy('id')
        .execute()
      return [name, rows.map((r) => r.id)] as const
    }),
  )
  return new Map(found)
}

/** The owner's tag of that name, created on first use. Safe when two requests race. */
export async function findOrCreateTag(
  db: Kysely<Database>,
  ownerId: number,
  name: string,
  now: string,
): Promise<TagRow> {
  const existing = await findTagByName(db, ownerId, name)
  if (existing) return existing
  await db
    .insertInto('tag')
    .values({ owner_id: ownerId, name, description: null, technique_id: null, date_added: now, last_used: null })
    .onConflict((oc) => oc.columns(['owner_id', 'name']).doNothing())
    .execute()
  return (await findTagByName(db, ownerId, name))!
}

export interface TagFilter {
  name?: { op: '=' | '^'; value: string }[]
  weight?: { op: '=' | '<' | '>'; value: number }[]
  /** orParams=true: any expression may match instead of all. */
  any?: boolean
}

/** The owner's tags with their weight (items carrying each), filtered and paged. */
export async function listTags(
  db: Kysely<Database>,
  ownerId: number,
  filter: TagFilter,
  page: { offset: number; limit: number },
) {
  const weight = sql<number>`(select count(*) from item_tag where item_tag.tag_id = tag.id)`
  const base = db
    .selectFrom('tag')
    .where('owner_id', '=', ownerId)
    .where((eb) => {
      const conditions = [
        ...(filter.name ?? []).map((f) =>
          f.op === '='
            ? eb('name', '=', f.value)
            : // substr rather than LIKE: no wildcard escaping, and case-sensitive on both databases.
              eb(sql<string>`substr(name, 1, ${[...f.value].length})`, '=', f.value),
        ),
        ...(filter.weight ?? []).map((f) => eb(weight, f.op, f.value)),
      ]
      if (conditions.length === 0) return eb.and([])
      return filter.any ? eb.or(conditions) : eb.and(conditions)
    })
  const [rows, total] = await Promise.all([
    base.selectAll().select(weight.as('weight')).orderBy('name').offset(page.offset).limit(page.limit).execute(),
    base.select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow(),
  ])
  return { rows: rows.map((r) => ({ ...r, weight: Number(r.weight) })) as TagWithWeight[], total: Number(total.n) }
}

export async function countTagUses(db: Kysely<Database>, tagId: number): Promise<number> {
  const row = await db
    .selectFrom('item_tag')
    .select(sql<number>`count(*)`.as('n'))
    .where('tag_id', '=', tagId)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

export async function insertTag(
  db: Kysely<Database>,
  ownerId: number,
  name: string,
  description: string | null,
  now: string,
) {
  await db
    .insertInto('tag')
    .values({ owner_id: ownerId, name, description, technique_id: null, date_added: now, last_used: null })
    .execute()
  return (await findTagByName(db, ownerId, name))!
}

export async function updateTag(
  db: Kysely<Database>,
  tagId: number,
  changes: { name?: string; description?: string | null },
) {
  if (Object.keys(changes).length === 0) return
  await db.updateTable('tag').set(changes).where('id', '=', tagId).execute()
}

/** Removes the tag from every item, then the tag itself. */
export async function deleteTag(db: Kysely<Database>, tagId: number): Promise<void> {
  await db.deleteFrom('item_tag').where('tag_id', '=', tagId).execute()
  await db.deleteFrom('tag').where('id', '=', tagId).execute()
}

/** A tag or a security label, whose item links are listed. */
export type Marker = { kind: 'tag' | 'label'; id: number }
export type MarkedKind = 'indicator' | 'group' | 'task' | 'victim'
export interface MarkedFilter {
  type?: string
  id?: number
  /** Indicator value fields parsed from a summary; null entries are not compared. */
  values?: (string | null)[]
}
export interface Page {
  offset: number
  limit: number
}

function markedIds(db: Kysely<Database>, marker: Marker, kind: MarkedKind) {
  return marker.kind === 'tag'
    ? db.selectFrom('item_tag').select('item_id').where('tag_id', '=', marker.id).where('item_kind', '=', kind)
    : db
        .selectFrom('item_security_label')
        .select('item_id')
        .where('label_id', '=', marker.id)
        .where('item_kind', '=', kind)
}

/** Sets last_modified on every Indicator the marker is on, in one statement (before its links go, or its name changes). */
export async function stampIndicatorsMarkedBy(db: Kysely<Database>, marker: Marker, now: string): Promise<void> {
  await db
    .updateTable('indicator')
    .set({ last_modified: now })
    .where('id', 'in', markedIds(db, marker, 'indicator'))
    .where('last_modified', '<>', now)
    .execute()
}

async function pageAndCount<O>(query: SelectQueryBuilder<any, any, O>, idColumn: string, page: Page) {
  const [rows, total] = await Promise.all([
    query.orderBy(idColumn).offset(page.offset).limit(page.limit).execute(),
    query
      .clearSelect()
      .select(sql<number>`count(*)`.as('n'))
      .executeTakeFirstOrThrow() as Promise<{ n: number }>,
  ])
  return { rows, total: Number(total.n) }
}

export function listMarkedIndicators(db: Kysely<Database>, marker: Marker, filter: MarkedFilter, page: Page) {
  let query = db
    .selectFrom('indicator')
    .innerJoin('owner', 'owner.id', 'indicator.owner_id')
    .select([
      'indicator.id',
      'indicator.type',
      'indicator.summary',
      'owner.name as owner_name',
      'indicator.date_added',
      'indicator.last_modified',
      'indicator.rating',
      'indicator.confidence',
      'indicator.threat_assess_rating',
      'indicator.threat_assess_confidence',
      'indicator.threat_assess_score',
      'indicator.cal_score',
      'indicator.value1',
      'indicator.value2',
      'indicator.value3',
      'indicator.dns_active',
      'indicator.whois_active',
    ])
    .where('indicator.id', 'in', markedIds(db, marker, 'indicator'))
  if (filter.type) query = query.where('indicator.type', '=', filter.type)
  const columns = ['indicator.value1', 'indicator.value2', 'indicator.value3'] as const
  filter.values?.forEach((value, i) => {
    if (value !== null && columns[i]) query = query.where(columns[i], '=', value)
  })
  return pageAndCount(query, 'indicator.id', page)
}

export function listMarkedGroups(db: Kysely<Database>, marker: Marker, filter: MarkedFilter, page: Page) {
  let query = db
    .selectFrom('intel_group')
    .innerJoin('owner', 'owner.id', 'intel_group.owner_id')
    .select([
      'intel_group.id',
      'intel_group.name',
      'intel_group.type',
      'owner.name as owner_name',
      'intel_group.date_added',
      'intel_group.last_modified',
    ])
    .where('intel_group.id', 'in', markedIds(db, marker, 'group'))
  if (filter.type) query = query.where('intel_group.type', '=', filter.type)
  if (filter.id !== undefined) query = query.where('intel_group.id', '=', filter.id)
  return pageAndCount(query, 'intel_group.id', page)
}

export function listMarkedTasks(db: Kysely<Database>, marker: Marker, filter: MarkedFilter, page: Page) {
  let query = db
    .selectFrom('task')
    .innerJoin('owner', 'owner.id', 'task.owner_id')
    .select([
      'task.id',
      'task.name',
      'owner.name as owner_name',
      'task.date_added',
      'task.last_modified',
      'task.status',
      'task.escalated',
      'task.reminded',
      'task.due_date',
      'task.reminder_date',
      'task.escalation_date',
      'task.completed_date',
    ])
    .where('task.id', 'in', markedIds(db, marker, 'task'))
  if (filter.id !== undefined) query = query.where('task.id', '=', filter.id)
  return pageAndCount(query, 'task.id', page)
}

export function listMarkedVictims(db: Kysely<Database>, marker: Marker, filter: MarkedFilter, page: Page) {
  let query = db
    .selectFrom('victim')
    .innerJoin('owner', 'owner.id', 'victim.owner_id')
    .select([
      'victim.id',
      'victim.name',
      'owner.name as owner_name',
      'victim.description',
      'victim.org',
      'victim.suborg',
      'victim.work_location',
      'victim.nationality',
      'victim.date_added',
      'victim.last_modified',
    ])
    .where('victim.id', 'in', markedIds(db, marker, 'victim'))
  if (filter.id !== undefined) query = query.where('victim.id', '=', filter.id)
  return pageAndCount(query, 'victim.id', page)
}

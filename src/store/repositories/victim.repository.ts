/** Victims and their Victim Assets. Rules live in domain/victims/victims.ts and domain/victims/victim-assets.ts. */
import type { Insertable, Kysely, Updateable } from 'kysely'
import type { Database, Row, VictimTable } from '../database.js'
import {
  type AssociationScope,
  type ColumnCondition,
  associatedIds,
  columnCondition,
  combine,
  ownerFilter,
} from '../engine/list-conditions.js'
import type { Store } from '../connect.js'
import { preparedByIds } from '../engine/prepared-read.js'
import { findRowsByIds } from '../engine/rows-by-id.js'

export type VictimFilterColumn = 'name'

export interface VictimListQuery {
  ownerIds: readonly number[]
  conditions: ColumnCondition<VictimFilterColumn>[]
  combine: 'and' | 'or'
  associatedWith?: AssociationScope
  ids?: readonly number[]
  offset: number
  limit: number
}

function victimColumns(db: Kysely<Database>) {
  return db
    .selectFrom('victim')
    .innerJoin('owner', 'owner.id', 'victim.owner_id')
    .selectAll('victim')
    .select(['owner.name as owner_name', 'owner.type as owner_type'])
}

export type VictimRow = Awaited<ReturnType<ReturnType<typeof victimColumns>['execute']>>[number]

/** Victims by id in any owner, without their owners' names (see keepReadableRows). */
export function findVictimRowsByIds(store: Store, ids: readonly number[]): Promise<Row<'victim'>[]> {
  return findRowsByIds(store, 'victim', ids)
}

export function findVictimRow(db: Kysely<Database>, id: number): Promise<VictimRow | undefined> {
  return victimColumns(db).where('victim.id', '=', id).executeTakeFirst()
}

export async function insertVictim(db: Kysely<Database>, values: Insertable<VictimTable>): Promise<number> {
  return (await db.insertInto('victim').values(values).returning('id').executeTakeFirstOrThrow()).id
}

export async function updateVictimRow(
  db: Kysely<Database>,
  id: number,
  values: Updateable<VictimTable>,
): Promise<void> {
  if (Object.keys(values).length === 0) return
  await db.updateTable('victim').set(values).where('id', '=', id).execute()
}

/** Deletes the Victim and its assets; returns the asset ids so their metadata can go too. */
export async function deleteVictimRow(db: Kysely<Database>, id: number): Promise<number[]> {
  const assets = await db.selectFrom('victim_asset').select('id').where('victim_id', '=', id).execute()
  await db.deleteFrom('victim_asset').where('victim_id', '=', id).execute()
  await db.deleteFrom('victim').where('id', '=', id).execute()
  return assets.map((a) => a.id)
}

export async function listVictimRows(
  db: Kysely<Database>,
  q: VictimListQuery,
): Promise<{ rows: VictimRow[]; total: number }> {
  if (q.ownerIds.length === 0) return { rows: [], total: 0 }
  let base = victimColumns(db).where((eb) => ownerFilter(db, eb, 'victim.owner_id', q.ownerIds, q.ids !== undefined))
  if (q.ids) base = base.where('victim.id', 'in', q.ids.length ? q.ids : [-1])
  if (q.associatedWith) base = base.where('victim.id', 'in', associatedIds(db, q.associatedWith, 'victim'))
  if (q.conditions.length)
    base = base.where((eb) =>
      combine(
        eb,
        q.conditions.map((c) => columnCondition(eb, `victim.${c.column}`, c)),
        q.combine,
      ),
    )
  const [rows, count] = await Promise.all([
    base.orderBy('victim.id').limit(q.limit).offset(q.offset).execute(),
    base
      .clearSelect()
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst(),
  ])
  return { rows, total: Number(count?.n ?? 0) }
}

export interface VictimAssetListQuery {
  ownerIds: readonly number[]
  victimId?: number
  /** Asset type name (`EmailAddress`). */
  type?: string
  associatedWith?: AssociationScope
  ids?: readonly number[]
  /** false when the caller needs no total (a load by ids): saves the count query. */
  countTotal?: false
  offset: number
  limit: number
}

export type VictimAssetRow = Row<'victim_asset'>

export const findVictimAssetRowsByIds = preparedByIds('victim_assets_by_id', (db, idIn) =>
  db.selectFrom('victim_asset').selectAll().where(idIn('id')),
)

export function findVictimAssetRow(db: Kysely<Database>, id: number) {
  return db.selectFrom('victim_asset').selectAll().where('id', '=', id).executeTakeFirst()
}

export async function insertVictimAsset(
  db: Kysely<Database>,
  values: {
    victim_id: number
    owner_id: number
    type: string
    value: string
    detail: string | null
    date_added: string
  },
) {
  return (await db.insertInto('victim_asset').values(values).returning('id').executeTakeFirstOrThrow()).id
}

export async function updateVictimAssetRow(
  db: Kysely<Database>,
  id: number,
  values: { value?: string; detail?: string | null },
) {
  if (Object.keys(values).length === 0) return
  await db.updateTable('victim_asset').set(values).where('id', '=', id).execute()
}

export async function deleteVictimAssetRow(db: Kysely<Database>, id: number) {
  await db.deleteFrom('victim_asset').where('id', '=', id).execute()
}

export async function listVictimAssetRows(db: Kysely<Database>, q: VictimAssetListQuery) {
  if (q.ownerIds.length === 0) return { rows: [], total: 0 }
  let base = db
    .selectFrom('victim_asset')
    .where((eb) => ownerFilter(db, eb, 'victim_asset.owner_id', q.ownerIds, q.ids !== undefined))
  if (q.victimId !== undefined) base = base.where('victim_asset.victim_id', '=', q.victimId)
  if (q.type) base = base.where('victim_asset.type', '=', q.type)
  if (q.ids) base = base.where('victim_asset.id', 'in', q.ids.length ? q.ids : [-1])
  if (q.associatedWith) base = base.where('victim_asset.id', 'in', associatedIds(db, q.associatedWith, 'victimAsset'))
  const [rows, count] = await Promise.all([
    base.selectAll('victim_asset').orderBy('victim_asset.id').limit(q.limit).offset(q.offset).execute(),
    q.countTotal === false ? undefined : base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
  ])
  return { rows, total: count ? Number(count.n) : rows.length }
}

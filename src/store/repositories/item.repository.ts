/**
 * Generic look-ups over every item kind: which owner holds an item. Table names come from
 * ITEM_TABLES (a constant), never from request text.
 */
import type { Kysely } from 'kysely'
import { ITEM_TABLES, type ItemKind } from '../../model/kinds.js'
import type { Database } from '../database.js'

const TYPED: Partial<Record<ItemKind, true>> = { indicator: true, group: true, victimAsset: true }

export async function findItemOwner(
  db: Kysely<Database>,
  kind: ItemKind,
  id: number,
): Promise<{ ownerId: number; ownerName: string; type?: string } | undefined> {
  const table = ITEM_TABLES[kind]
  const row = (await (db as Kysely<any>)
    .selectFrom(`${table} as item`)
    .innerJoin('owner', 'owner.id', 'item.owner_id')
    .select(['item.owner_id', 'owner.name as owner_name', ...(TYPED[kind] ? ['item.type'] : [])])
    .where('item.id', '=', id)
    .executeTakeFirst()) as { owner_id: number; owner_name: string; type?: string } | undefined
  return row && { ownerId: row.owner_id, ownerName: row.owner_name, type: row.type }
}

export async function countVictimAssets(db: Kysely<Database>, victimId: number): Promise<number> {
  const row = await db
    .selectFrom('victim_asset')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('victim_id', '=', victimId)
    .executeTakeFirst()
  return Number(row?.n ?? 0)
}

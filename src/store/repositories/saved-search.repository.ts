/**
 * Saved searches and their pins (migration 0145, domain/saved-searches/): the rows a person may see (their
 * own, and those shared with an owner they read), one by id, their writes, and which outbound lists follow one.
 */
import type { Kysely, Selectable } from 'kysely'
import type { Database, SavedSearchTable } from '../database.js'

export type SavedSearchRow = Selectable<SavedSearchTable> & {
  creator_name: string
  creator_organization_id: number
  owner_name: string | null
  pinned: number
}

export interface SavedSearchWrite {
  name: string
  tql: string
  kind: 'indicators' | 'groups'
  owner_id: number | null
}

function selectSearches(db: Kysely<Database>, viewerId: number) {
  return db
    .selectFrom('saved_search as s')
    .innerJoin('user_account as u', 'u.id', 's.created_by')
    .leftJoin('owner as o', 'o.id', 's.owner_id')
    .selectAll('s')
    .select((eb) => [
      'u.user_name as creator_name',
      'u.organization_id as creator_organization_id',
      'o.name as owner_name',
      eb
        .case()
        .when(
          eb.exists(
            eb
              .selectFrom('saved_search_pin as p')
              .select('p.user_id')
              .whereRef('p.saved_search_id', '=', 's.id')
              .where('p.user_id', '=', viewerId),
          ),
        )
        .then(1)
        .else(0)
        .end()
        .as('pinned'),
    ])
}

/** The viewer's own searches and those shared with the owners given, by name. */
export function listVisibleSavedSearches(
  db: Kysely<Database>,
  viewerId: number,
  ownerIds: readonly number[],
): Promise<SavedSearchRow[]> {
  return selectSearches(db, viewerId)
    .where((eb) =>
      eb.or([eb('s.created_by', '=', viewerId), ...(ownerIds.length ? [eb('s.owner_id', 'in', ownerIds)] : [])]),
    )
    .orderBy('s.name')
    .orderBy('s.id')
    .execute() as Promise<SavedSearchRow[]>
}

export function findSavedSearch(
  db: Kysely<Database>,
  viewerId: number,
  id: number,
): Promise<SavedSearchRow | undefined> {
  return selectSearches(db, viewerId).where('s.id', '=', id).executeTakeFirst() as Promise<SavedSearchRow | undefined>
}

export async function insertSavedSearch(
  db: Kysely<Database>,
  search: SavedSearchWrite & { created_by: number },
  now: string,
): Promise<number> {
  const row = await db
    .insertInto('saved_search')
    .values({ ...search, date_added: now, last_modified: now })
    .returning('id')
    .executeTakeFirstOrThrow()
  return Number(row.id)
}

/** Changes a search, and in the same transaction the TQL of every outbound list that follows it. */
export async function updateSavedSearch(
  db: Kysely<Database>,
  id: number,
  search: SavedSearchWrite,
  now: string,
): Promise<void> {
  const run = async (trx: Kysely<Database>) => {
    await trx
      .updateTable('saved_search')
      .set({ ...search, last_modified: now })
      .where('id', '=', id)
      .execute()
    await trx
      .updateTable('outbound_list')
      .set({ tql: search.tql, last_modified: now })
      .where('saved_search_id', '=', id)
      .where('tql', '<>', search.tql)
      .execute()
  }
  await (db.isTransaction ? run(db) : db.transaction().execute(run))
}

export async function deleteSavedSearch(db: Kysely<Database>, id: number): Promise<void> {
  await db.deleteFrom('saved_search').where('id', '=', id).execute()
}

export async function setSavedSearchPin(
  db: Kysely<Database>,
  id: number,
  userId: number,
  pinned: boolean,
): Promise<void> {
  if (!pinned) {
    await db.deleteFrom('saved_search_pin').where('saved_search_id', '=', id).where('user_id', '=', userId).execute()
    return
  }
  await db
    .insertInto('saved_search_pin')
    .values({ saved_search_id: id, user_id: userId })
    .onConflict((oc) => oc.columns(['user_id', 'saved_search_id']).doNothing())
    .execute()
}

/** The viewer's pinned searches, by name; the caller keeps only those it may still see. */
export function listPinnedSavedSearches(db: Kysely<Database>, viewerId: number): Promise<SavedSearchRow[]> {
  return selectSearches(db, viewerId)
    .innerJoin('saved_search_pin as pin', (join) =>
      join.onRef('pin.saved_search_id', '=', 's.id').on('pin.user_id', '=', viewerId),
    )
    .orderBy('s.name')
    .orderBy('s.id')
    .execute() as Promise<SavedSearchRow[]>
}

/** Names of the outbound lists that follow a saved search. */
export async function listsFollowingSavedSearch(db: Kysely<Database>, id: number): Promise<string[]> {
  const rows = await db
    .selectFrom('outbound_list')
    .select('name')
    .where('saved_search_id', '=', id)
    .orderBy('name')
    .execute()
  return rows.map((r) => r.name)
}

/** A saved search's TQL and kind, by id, whoever may see it (an outbound list's definition reads it). */
export function findSavedSearchQuery(
  db: Kysely<Database>,
  id: number,
): Promise<{ id: number; name: string; tql: string; kind: string; last_modified: string } | undefined> {
  return db
    .selectFrom('saved_search')
    .select(['id', 'name', 'tql', 'kind', 'last_modified'])
    .where('id', '=', id)
    .executeTakeFirst()
}

/**
 * Defining feeds (domain/feeds/feeds.ts): a feed's row with its owner's name, by id or by name,
 * and its insert, change and deletion. What a run writes (cursor, failures, lease) is not here.
 * (feed.repository.ts is the other direction: an owner's Indicators served as a TAXII feed.)
 */
import type { Insertable, Kysely, Selectable, Updateable } from 'kysely'
import type { Database, FeedTable } from '../database.js'

export type FeedRowWithOwner = Selectable<FeedTable> & { owner_name: string }

function selectFeeds(db: Kysely<Database>) {
  return db
    .selectFrom('feed')
    .innerJoin('owner', 'owner.id', 'feed.owner_id')
    .selectAll('feed')
    .select('owner.name as owner_name')
}

export function listFeedRows(db: Kysely<Database>): Promise<FeedRowWithOwner[]> {
  return selectFeeds(db).orderBy('feed.name').execute()
}

export function findFeedRowById(db: Kysely<Database>, id: number): Promise<FeedRowWithOwner | undefined> {
  return selectFeeds(db).where('feed.id', '=', id).executeTakeFirst()
}

export function findFeedRowByName(db: Kysely<Database>, name: string): Promise<FeedRowWithOwner | undefined> {
  return selectFeeds(db).where('feed.name', '=', name).executeTakeFirst()
}

export async function insertFeedRow(db: Kysely<Database>, values: Insertable<FeedTable>): Promise<number> {
  return (await db.insertInto('feed').values(values).returning('id').executeTakeFirstOrThrow()).id
}

export async function updateFeedRow(db: Kysely<Database>, id: number, changes: Updateable<FeedTable>): Promise<void> {
  await db.updateTable('feed').set(changes).where('id', '=', id).execute()
}

/** The feed and, by the foreign key's cascade, its runs. */
export async function deleteFeedRow(db: Kysely<Database>, id: number): Promise<number> {
  const result = await db.deleteFrom('feed').where('id', '=', id).executeTakeFirst()
  return Number(result.numDeletedRows)
}

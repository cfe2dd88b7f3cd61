/**
 * The parts of multi-part feed results (domain/listing/feed-results.ts): one row per part,
 * keyed by result id and part number.
 */
import type { Kysely } from 'kysely'
import type { Database, FeedResultPartTable } from '../database.js'

export type FeedResultPartRow = FeedResultPartTable

/** Writes a part's start; a part already written (a retried request) keeps its first start. */
export async function insertFeedResultPart(db: Kysely<Database>, row: FeedResultPartRow): Promise<void> {
  await db
    .insertInto('feed_result_part')
    .values(row)
    .onConflict((oc) => oc.columns(['result_id', 'part_number']).doNothing())
    .execute()
}

export async function selectFeedResultPart(
  db: Kysely<Database>,
  resultId: string,
  partNumber: number,
): Promise<FeedResultPartRow | undefined> {
  return db
    .selectFrom('feed_result_part')
    .selectAll()
    .where('result_id', '=', resultId)
    .where('part_number', '=', partNumber)
    .executeTakeFirst()
}

export async function deleteFeedResultPartsBefore(db: Kysely<Database>, createdBefore: string): Promise<void> {
  await db.deleteFrom('feed_result_part').where('created_at', '<', createdBefore).execute()
}

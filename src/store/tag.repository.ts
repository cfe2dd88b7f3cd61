/**
 * Tags as objects: one row per (owner, name), names case-sensitive. The links from items
 * to tags (item_tag) are read here for the tag-centred views (weight, "items carrying X");
 * adding a tag to an item is metadata.repository's job.
 */
import type { Kysely } from 'kysely'
import type { Database, Row } from './database.js'

export type TagRow = Row<'tag'>

export function findTagByName(db: Kysely<Database>, ownerId: number, name: string): Promise<TagRow | undefined> {
  return db.selectFrom('tag').selectAll().where('owner_id', '=', ownerId).where('name', '=', name).executeTakeFirst()
}

/** The owner's tag of that name, created on first use. Safe when two requests race. */
export async function findOrCreateTag(db: Kysely<Database>, ownerId: number, name: string, now: string): Promise<TagRow> {
  const existing = await findTagByName(db, ownerId, name)
  if (existing) return existing
  await db.insertInto('tag').values({ owner_id: ownerId, name, description: null, technique_id: null, date_added: now, last_used: null })
    .onConflict((oc) => oc.columns(['owner_id', 'name']).doNothing()).execute()
  return (await findTagByName(db, ownerId, name))!
}

/**
 * Security Labels as objects: one row per (owner, name). Applying a label to an item is
 * metadata.repository's job; this module reads the item links only for label-centred views.
 *
 * Every owner starts with the standard TLP labels. A migration cannot know owners created
 * later, so they are created the first time an owner's labels are looked up, once: the
 * owner's standard_labels_seeded flag keeps a deleted TLP label deleted.
 */
import { type Kysely, sql } from 'kysely'
import type { Database, Row } from '../database.js'

export type SecurityLabelRow = Row<'security_label'>

/** TLP 1.0 and 2.0 labels with FIRST's colors (hex without '#'). */
export const STANDARD_SECURITY_LABELS: readonly { name: string; color: string; description: string }[] = [
  {
    name: 'TLP:RED',
    color: 'FF2B2B',
    description: 'For the eyes and ears of individual recipients only; no further disclosure.',
  },
  {
    name: 'TLP:AMBER+STRICT',
    color: 'FFC000',
    description: 'Limited disclosure, restricted to the recipient organization only.',
  },
  {
    name: 'TLP:AMBER',
    color: 'FFC000',
    description:
      'Limited disclosure, restricted to the recipient organization and its clients on a need-to-know basis.',
  },
  { name: 'TLP:GREEN', color: '33FF00', description: 'Limited disclosure, restricted to the community.' },
  { name: 'TLP:CLEAR', color: 'FFFFFF', description: 'Disclosure is not limited.' },
  { name: 'TLP:WHITE', color: 'FFFFFF', description: 'Disclosure is not limited (TLP 1.0 name of TLP:CLEAR).' },
]

/** Creates the standard labels in the owner unless that was done before. */
export async function ensureStandardLabels(db: Kysely<Database>, ownerId: number, now: string): Promise<void> {
  const owner = await db
    .selectFrom('owner')
    .select('standard_labels_seeded')
    .where('id', '=', ownerId)
    .executeTakeFirst()
  if (!owner || owner.standard_labels_seeded) return
  for (const label of STANDARD_SECURITY_LABELS) {
    await db
      .insertInto('security_label')
      .values({
        owner_id: ownerId,
        name: label.name,
        description: label.description,
        color: label.color,
        date_added: now,
      })
      .onConflict((oc) => oc.columns(['owner_id', 'name']).doNothing())
      .execute()
  }
  await db.updateTable('owner').set({ standard_labels_seeded: 1 }).where('id', '=', ownerId).execute()
}

/**
 * The owner's label of that name: the exact spelling first, else the one spelling that
 * differs only in case (clients write `TLP:Amber` for `TLP:AMBER`).
 */
export async function findLabelByName(
  db: Kysely<Database>,
  ownerId: number,
  name: string,
): Promise<SecurityLabelRow | undefined> {
  const lookup = () =>
    db
      .selectFrom('security_label')
      .selectAll()
      .where('owner_id', '=', ownerId)
      .where(sql<string>`lower(name)`, '=', name.toLowerCase())
      .orderBy('id')
      .execute()
  let rows = await lookup()
  const standard = STANDARD_SECURITY_LABELS.some((l) => l.name.toLowerCase() === name.toLowerCase())
  // Only a standard name can make the owner's first lookup create labels: asking for an
  // unknown label must create nothing.
  if (rows.length === 0 && standard) {
    await ensureStandardLabels(db, ownerId, new Date().toISOString())
    rows = await lookup()
  }
  return rows.find((r) => r.name === name) ?? (rows.length === 1 ? rows[0] : undefined)
}

export interface LabelFilter {
  name?: { op: '=' | '^'; value: string }
}

export function listLabels(db: Kysely<Database>, ownerId: number, filter: LabelFilter): Promise<SecurityLabelRow[]> {
  let query = db.selectFrom('security_label').selectAll().where('owner_id', '=', ownerId)
  const name = filter.name
  if (name?.op === '=') query = query.where('name', '=', name.value)
  // substr rather than LIKE: no wildcard escaping, and case-sensitive on both databases.
  if (name?.op === '^') query = query.where(sql<string>`substr(name, 1, ${[...name.value].length})`, '=', name.value)
  return query.orderBy('name').execute()
}

/** Ids of the owner's labels, all of them or those with the given names. */
export function listLabelIds(
  db: Kysely<Database>,
  ownerId: number,
  names?: readonly string[],
): Promise<{ id: number; name: string }[]> {
  let query = db.selectFrom('security_label').select(['id', 'name']).where('owner_id', '=', ownerId)
  if (names) query = query.where('name', 'in', names)
  return query.execute()
}

export async function insertLabel(
  db: Kysely<Database>,
  values: { ownerId: number; name: string; description: string | null; color: string | null; now: string },
) {
  const row = await db
    .insertInto('security_label')
    .values({
      owner_id: values.ownerId,
      name: values.name,
      description: values.description,
      color: values.color,
      date_added: values.now,
    })
    .onConflict((oc) => oc.columns(['owner_id', 'name']).doNothing())
    .returningAll()
    .executeTakeFirst()
  return row as SecurityLabelRow | undefined
}

/** Removes the label from every item and attribute, then the label itself. */
export async function deleteLabel(db: Kysely<Database>, labelId: number): Promise<number> {
  const unlinked = await db.deleteFrom('item_security_label').where('label_id', '=', labelId).executeTakeFirst()
  await db.deleteFrom('security_label').where('id', '=', labelId).execute()
  return Number(unlinked.numDeletedRows)
}

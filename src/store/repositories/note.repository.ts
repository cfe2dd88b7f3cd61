/** Notes on Cases, Tasks and Artifacts. */
import type { Kysely } from 'kysely'
import type { Store } from '../connect.js'
import type { Database, Row } from '../database.js'
import { inChunks } from './metadata.repository.js'
import { preparedByIds } from '../engine/prepared-read.js'

export type NoteRow = Row<'note'> & { owner_name: string }
export type NoteValues = Omit<Row<'note'>, 'id'>

export const findNotesByIds: (store: Store, ids: readonly number[]) => Promise<NoteRow[]> = preparedByIds(
  'notes_by_id',
  (db, idIn) =>
    db
      .selectFrom('note')
      .innerJoin('owner', 'owner.id', 'note.owner_id')
      .selectAll('note')
      .select('owner.name as owner_name')
      .where(idIn('note.id')),
)

export async function insertNote(db: Kysely<Database>, values: NoteValues): Promise<number> {
  const { id } = await db.insertInto('note').values(values).returning('id').executeTakeFirstOrThrow()
  return id
}

export async function updateNote(db: Kysely<Database>, id: number, changes: Partial<NoteValues>): Promise<void> {
  if (Object.keys(changes).length === 0) return
  await db.updateTable('note').set(changes).where('id', '=', id).execute()
}

export async function deleteNotes(db: Kysely<Database>, ids: readonly number[]): Promise<void> {
  await inChunks(ids, async (chunk) => {
    await db.deleteFrom('note').where('id', 'in', chunk).execute()
    return []
  })
}

/** Playbooks: the summary columns the API searches on, and the uploaded file kept whole in `definition`. */
import { type Kysely, sql } from 'kysely'
import type { Database, Row } from '../database.js'

export type PlaybookRow = Omit<Row<'playbook'>, 'definition'> & { owner_name: string }

const SUMMARY = [
  'playbook.id',
  'playbook.owner_id',
  'playbook.xid',
  'playbook.name',
  'playbook.description',
  'playbook.trigger_type',
  'playbook.status',
  'playbook.labels',
  'playbook.version_major',
  'playbook.version_minor',
  'playbook.date_added',
  'playbook.last_modified',
  'owner.name as owner_name',
] as const

function summaries(db: Kysely<Database>) {
  return db.selectFrom('playbook').innerJoin('owner', 'owner.id', 'playbook.owner_id').select(SUMMARY)
}

export function findPlaybookById(db: Kysely<Database>, id: number): Promise<PlaybookRow | undefined> {
  return summaries(db).where('playbook.id', '=', id).executeTakeFirst()
}

export function findPlaybookByXid(
  db: Kysely<Database>,
  ownerId: number,
  xid: string,
): Promise<PlaybookRow | undefined> {
  return summaries(db).where('playbook.owner_id', '=', ownerId).where('playbook.xid', '=', xid).executeTakeFirst()
}

export async function findDefinition(db: Kysely<Database>, id: number): Promise<string | undefined> {
  return (await db.selectFrom('playbook').select('definition').where('id', '=', id).executeTakeFirst())?.definition
}

export interface PlaybookSearch {
  /** Case-insensitive substring of the name. */
  name?: string
  triggerType?: string
  status?: string
  sortOn: 'id' | 'name' | 'triggerType'
  ascending: boolean
}

export function searchPlaybooks(db: Kysely<Database>, ownerId: number, search: PlaybookSearch): Promise<PlaybookRow[]> {
  let query = summaries(db).where('playbook.owner_id', '=', ownerId)
  if (search.name) {
    const pattern = `%${search.name.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`
    query = query.where(sql<boolean>`lower(playbook.name) like ${pattern} escape '\\'`)
  }
  if (search.triggerType)
    query = query.where(sql<string>`lower(playbook.trigger_type)`, '=', search.triggerType.toLowerCase())
  if (search.status) query = query.where('playbook.status', '=', search.status)
  const direction = search.ascending ? 'asc' : 'desc'
  const column = { id: 'playbook.id', name: 'playbook.name', triggerType: 'playbook.trigger_type' }[
    search.sortOn
  ] as 'playbook.id'
  return query.orderBy(column, direction).orderBy('playbook.id', direction).execute()
}

export async function insertPlaybook(db: Kysely<Database>, values: Omit<Row<'playbook'>, 'id'>): Promise<number> {
  return (await db.insertInto('playbook').values(values).returning('id').executeTakeFirstOrThrow()).id
}

export async function updatePlaybook(
  db: Kysely<Database>,
  id: number,
  changes: Partial<Omit<Row<'playbook'>, 'id' | 'owner_id'>>,
): Promise<void> {
  if (Object.keys(changes).length === 0) return
  await db.updateTable('playbook').set(changes).where('id', '=', id).execute()
}

export async function deletePlaybook(db: Kysely<Database>, id: number): Promise<void> {
  await db.deleteFrom('playbook').where('id', '=', id).execute()
}

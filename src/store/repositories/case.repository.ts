/** Cases, read with their owner's name. */
import type { Kysely } from 'kysely'
import type { Store } from '../connect.js'
import type { Database, Row } from '../database.js'
import { inChunks } from './metadata.repository.js'
import { preparedByIds } from '../engine/prepared-read.js'

export type CaseRow = Row<'intel_case'> & { owner_name: string }
export type CaseValues = Omit<Row<'intel_case'>, 'id'>

export const findCasesByIds: (store: Store, ids: readonly number[]) => Promise<CaseRow[]> = preparedByIds(
  'cases_by_id',
  (db, idIn) =>
    db
      .selectFrom('intel_case')
      .innerJoin('owner', 'owner.id', 'intel_case.owner_id')
      .selectAll('intel_case')
      .select('owner.name as owner_name')
      .where(idIn('intel_case.id')),
)

export function findCaseByXid(db: Kysely<Database>, xid: string) {
  return db.selectFrom('intel_case').select(['id']).where('xid', '=', xid).executeTakeFirst()
}

export async function insertCase(db: Kysely<Database>, values: CaseValues): Promise<number> {
  const { id } = await db.insertInto('intel_case').values(values).returning('id').executeTakeFirstOrThrow()
  return id
}

export async function updateCase(db: Kysely<Database>, id: number, changes: Partial<CaseValues>): Promise<void> {
  if (Object.keys(changes).length === 0) return
  await db.updateTable('intel_case').set(changes).where('id', '=', id).execute()
}

/** Ids of the artifacts, notes and tasks inside the cases, so their metadata can go with them. */
export async function listCaseChildren(db: Kysely<Database>, caseIds: readonly number[]) {
  const [artifacts, tasks, notes] = await Promise.all([
    inChunks(caseIds, (chunk) => db.selectFrom('artifact').select('id').where('case_id', 'in', chunk).execute()),
    inChunks(caseIds, (chunk) => db.selectFrom('task').select('id').where('case_id', 'in', chunk).execute()),
    inChunks(caseIds, (chunk) => db.selectFrom('note').select('id').where('case_id', 'in', chunk).execute()),
  ])
  return { artifactIds: artifacts.map((r) => r.id), taskIds: tasks.map((r) => r.id), noteIds: notes.map((r) => r.id) }
}

export async function deleteCases(db: Kysely<Database>, ids: readonly number[]): Promise<void> {
  await inChunks(ids, async (chunk) => {
    await db.deleteFrom('intel_case').where('id', 'in', chunk).execute()
    return []
  })
}

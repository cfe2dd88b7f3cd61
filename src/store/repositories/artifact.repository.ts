/** Artifacts (with their type and case) and the artifact type list. */
import type { Kysely } from 'kysely'
import type { Store } from '../connect.js'
import type { Database, Row } from '../database.js'
import { inChunks } from './metadata.repository.js'
import { preparedByIds } from '../engine/prepared-read.js'

export type ArtifactTypeRow = Row<'artifact_type'>

function artifactColumns(db: Kysely<Database>) {
  return db
    .selectFrom('artifact')
    .innerJoin('owner', 'owner.id', 'artifact.owner_id')
    .innerJoin('artifact_type', 'artifact_type.id', 'artifact.type_id')
    .innerJoin('intel_case', 'intel_case.id', 'artifact.case_id')
    .selectAll('artifact')
    .select([
      'owner.name as owner_name',
      'artifact_type.name as type_name',
      'artifact_type.intel_type',
      'intel_case.xid as case_xid',
    ])
}

export type ArtifactRow = Awaited<ReturnType<ReturnType<typeof artifactColumns>['execute']>>[number]
export type ArtifactValues = Omit<Row<'artifact'>, 'id'>

export const findArtifactsByIds: (store: Store, ids: readonly number[]) => Promise<ArtifactRow[]> = preparedByIds(
  'artifacts_by_id',
  (db, idIn) => artifactColumns(db).where(idIn('artifact.id')),
)

export async function insertArtifact(db: Kysely<Database>, values: ArtifactValues): Promise<number> {
  const { id } = await db.insertInto('artifact').values(values).returning('id').executeTakeFirstOrThrow()
  return id
}

export async function updateArtifact(
  db: Kysely<Database>,
  id: number,
  changes: Partial<ArtifactValues>,
): Promise<void> {
  if (Object.keys(changes).length === 0) return
  await db.updateTable('artifact').set(changes).where('id', '=', id).execute()
}

export async function deleteArtifacts(db: Kysely<Database>, ids: readonly number[]): Promise<void> {
  await inChunks(ids, async (chunk) => {
    await db.deleteFrom('artifact').where('id', 'in', chunk).execute()
    return []
  })
}

export function listArtifactNoteIds(db: Kysely<Database>, artifactIds: readonly number[]) {
  return inChunks(artifactIds, (chunk) =>
    db.selectFrom('note').select('id').where('artifact_id', 'in', chunk).execute(),
  )
}

export function findArtifactTypeByName(db: Kysely<Database>, name: string): Promise<ArtifactTypeRow | undefined> {
  return db.selectFrom('artifact_type').selectAll().where('name', '=', name).executeTakeFirst()
}

export const findArtifactTypesByIds: (store: Store, ids: readonly number[]) => Promise<ArtifactTypeRow[]> =
  preparedByIds('artifact_types_by_id', (db, idIn) => db.selectFrom('artifact_type').selectAll().where(idIn('id')))

export function findTaskCase(db: Kysely<Database>, taskId: number) {
  return db.selectFrom('task').select(['id', 'case_id', 'owner_id']).where('id', '=', taskId).executeTakeFirst()
}

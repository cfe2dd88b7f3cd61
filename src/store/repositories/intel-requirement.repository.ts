/** Intelligence Requirements, read with their owner's name. */
import type { Kysely } from 'kysely'
import type { Store } from '../connect.js'
import type { Database, Row } from '../database.js'
import { inChunks } from './metadata.repository.js'
import { preparedByIds } from '../engine/prepared-read.js'

export type IntelRequirementRow = Row<'intel_requirement'> & { owner_name: string }
export type IntelRequirementValues = Omit<Row<'intel_requirement'>, 'id'>

export const findIntelRequirementsByIds: (store: Store, ids: readonly number[]) => Promise<IntelRequirementRow[]> =
  preparedByIds('intel_requirements_by_id', (db, idIn) =>
    db
      .selectFrom('intel_requirement')
      .innerJoin('owner', 'owner.id', 'intel_requirement.owner_id')
      .selectAll('intel_requirement')
      .select('owner.name as owner_name')
      .where(idIn('intel_requirement.id')),
  )

/** Another requirement of the owner with the same unique id or requirement text, if any. */
export function findConflictingRequirement(
  db: Kysely<Database>,
  ownerId: number,
  by: { uniqueId?: string; requirementText?: string },
  exceptId?: number,
) {
  let q = db
    .selectFrom('intel_requirement')
    .select(['id', 'unique_id', 'requirement_text'])
    .where('owner_id', '=', ownerId)
    .where((eb) =>
      eb.or([
        ...(by.uniqueId !== undefined ? [eb('unique_id', '=', by.uniqueId)] : []),
        ...(by.requirementText !== undefined ? [eb('requirement_text', '=', by.requirementText)] : []),
      ]),
    )
  if (exceptId !== undefined) q = q.where('id', '!=', exceptId)
  return q.executeTakeFirst()
}

export async function insertIntelRequirement(db: Kysely<Database>, values: IntelRequirementValues): Promise<number> {
  const { id } = await db.insertInto('intel_requirement').values(values).returning('id').executeTakeFirstOrThrow()
  return id
}

export async function updateIntelRequirement(
  db: Kysely<Database>,
  id: number,
  changes: Partial<IntelRequirementValues>,
): Promise<void> {
  if (Object.keys(changes).length === 0) return
  await db.updateTable('intel_requirement').set(changes).where('id', '=', id).execute()
}

export async function deleteIntelRequirements(db: Kysely<Database>, ids: readonly number[]): Promise<void> {
  await inChunks(ids, async (chunk) => {
    await db.deleteFrom('intel_requirement').where('id', 'in', chunk).execute()
    return []
  })
}

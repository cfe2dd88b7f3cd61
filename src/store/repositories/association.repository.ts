/** Associations, stored in both directions so either side lists its partners with one index scan. */
import type { Kysely } from 'kysely'
import type { ItemKind } from '../../model/kinds.js'
import type { Database } from '../database.js'
import { inChunks } from './metadata.repository.js'

export interface AssociationKey {
  fromKind: ItemKind
  fromId: number
  toKind: ItemKind
  toId: number
  associationTypeId: number
}

export async function insertAssociation(
  db: Kysely<Database>,
  key: AssociationKey,
  source: string,
  now: string,
): Promise<boolean> {
  const rows = [
    { from_kind: key.fromKind, from_id: key.fromId, to_kind: key.toKind, to_id: key.toId },
    { from_kind: key.toKind, from_id: key.toId, to_kind: key.fromKind, to_id: key.fromId },
  ]
    .filter((row, i) => i === 0 || row.from_kind !== key.fromKind || row.from_id !== key.fromId)
    .map((row) => ({ ...row, association_type_id: key.associationTypeId, source, date_added: now }))
  const result = await db
    .insertInto('association')
    .values(rows)
    .onConflict((oc) => oc.columns(['from_kind', 'from_id', 'to_kind', 'association_type_id', 'to_id']).doNothing())
    .executeTakeFirst()
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0
}

export async function deleteAssociation(db: Kysely<Database>, key: AssociationKey): Promise<boolean> {
  const result = await db
    .deleteFrom('association')
    .where('association_type_id', '=', key.associationTypeId)
    .where((eb) =>
      eb.or([
        eb.and([
          eb('from_kind', '=', key.fromKind),
          eb('from_id', '=', key.fromId),
          eb('to_kind', '=', key.toKind),
          eb('to_id', '=', key.toId),
        ]),
        eb.and([
          eb('from_kind', '=', key.toKind),
          eb('from_id', '=', key.toId),
          eb('to_kind', '=', key.fromKind),
          eb('to_id', '=', key.fromId),
        ]),
      ]),
    )
    .executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

/** Partner ids of many items at once, e.g. for v3 `fields=associatedGroups`. */
export function listPartners(
  db: Kysely<Database>,
  fromKind: ItemKind,
  ids: readonly number[],
  toKind: ItemKind,
  associationTypeId?: number,
) {
  return inChunks(ids, (chunk) => {
    let q = db
      .selectFrom('association')
      .select(['from_id', 'to_id', 'association_type_id', 'source', 'date_added'])
      .where('from_kind', '=', fromKind)
      .where('from_id', 'in', chunk)
      .where('to_kind', '=', toKind)
    if (associationTypeId !== undefined) q = q.where('association_type_id', '=', associationTypeId)
    return q.orderBy('to_id').execute()
  })
}

export function listAssociationTypeRows(db: Kysely<Database>) {
  return db.selectFrom('association_type').selectAll().orderBy('id').execute()
}

export function findAssociationTypeById(db: Kysely<Database>, id: number) {
  return db.selectFrom('association_type').selectAll().where('id', '=', id).executeTakeFirst()
}

export function findAssociationTypeByBranch(db: Kysely<Database>, nameOrBranch: string) {
  return db
    .selectFrom('association_type')
    .selectAll()
    .where((eb) => eb.or([eb('api_branch', '=', nameOrBranch), eb('name', '=', nameOrBranch)]))
    .executeTakeFirst()
}

/** One end of a typed association (a STIX relationship's): its kind and id. */
export interface RelationshipEnd {
  kind: string
  id: number
}

/** The relationship kept on each of these pairs of untyped associations (association_type_id 0), as stored in the pair's direction. */
export function findRelationshipsOfPairs(db: Kysely<Database>, pairs: { a: RelationshipEnd; b: RelationshipEnd }[]) {
  return db
    .selectFrom('association')
    .select([
      'from_kind',
      'from_id',
      'to_kind',
      'to_id',
      'relationship_type',
      'relationship_from_source',
      'relationship_modified',
    ])
    .where('association_type_id', '=', 0)
    .where((eb) =>
      eb.or(
        pairs.map(({ a, b }) =>
          eb.and([
            eb('from_kind', '=', a.kind),
            eb('from_id', '=', a.id),
            eb('to_kind', '=', b.kind),
            eb('to_id', '=', b.id),
          ]),
        ),
      ),
    )
    .execute()
}

/** Writes the relationship kept on the untyped association from `from` to `to` (one of its two rows). */
export async function setRelationship(
  db: Kysely<Database>,
  from: RelationshipEnd,
  to: RelationshipEnd,
  values: {
    relationship_type: string | null
    relationship_from_source: number
    relationship_modified: string | null
    last_modified?: string
  },
): Promise<void> {
  await db
    .updateTable('association')
    .set(values)
    .where('from_kind', '=', from.kind)
    .where('from_id', '=', from.id)
    .where('to_kind', '=', to.kind)
    .where('to_id', '=', to.id)
    .where('association_type_id', '=', 0)
    .execute()
}

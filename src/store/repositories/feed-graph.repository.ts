/**
 * An owner's Groups and their associations, as a feed serves them beside its Indicators
 * (domain/listing/feed-graph.ts): the Groups of the named types, and the plain (untyped)
 * associations that start at one of them, each stored pair read once.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../database.js'

export async function selectFeedGroups(db: Kysely<Database>, ownerId: number, types: readonly string[]) {
  if (types.length === 0) return []
  return db
    .selectFrom('intel_group')
    .select([
      'id',
      'type',
      'name',
      'xid',
      'description',
      'date_added',
      'last_modified',
      'external_date_added',
      'external_last_modified',
      'first_seen',
      'last_seen',
      'publish_date',
    ])
    .where('owner_id', '=', ownerId)
    .where('type', 'in', types)
    .orderBy('id')
    .execute()
}

const LINK_COLUMNS = [
  'association.from_id',
  'association.to_id',
  'association.date_added',
  'association.last_modified',
  'association.relationship_type',
  'association.relationship_from_source',
] as const

/**
 * The plain associations from the owner's Groups to its Groups (each pair once: from the lower
 * id) and to its Indicators (with the STIX id an Indicator is served under, when it has its
 * source's), each with the relationship type an import kept (migration 0138).
 */
export async function selectFeedGroupLinks(db: Kysely<Database>, ownerId: number) {
  const groups = await db
    .selectFrom('association')
    .innerJoin('intel_group as a', 'a.id', 'association.from_id')
    .innerJoin('intel_group as b', 'b.id', 'association.to_id')
    .select([...LINK_COLUMNS])
    .where('association.from_kind', '=', 'group')
    .where('association.to_kind', '=', 'group')
    .where('association.association_type_id', '=', 0)
    .whereRef('association.from_id', '<', 'association.to_id')
    .where('a.owner_id', '=', ownerId)
    .where('b.owner_id', '=', ownerId)
    .execute()
  const indicators = await db
    .selectFrom('association')
    .innerJoin('intel_group as a', 'a.id', 'association.from_id')
    .innerJoin('indicator as b', 'b.id', 'association.to_id')
    .select([...LINK_COLUMNS, 'b.stix_id'])
    .where('association.from_kind', '=', 'group')
    .where('association.to_kind', '=', 'indicator')
    .where('association.association_type_id', '=', 0)
    .where('a.owner_id', '=', ownerId)
    .where('b.owner_id', '=', ownerId)
    .execute()
  return { groups, indicators }
}

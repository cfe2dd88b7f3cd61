/** The counts behind the owner metrics: one grouped query per kind of content, for many owners at once. */
import { type Kysely, sql } from 'kysely'
import type { Database } from '../database.js'

/** `day` is the UTC date (YYYY-MM-DD) whose observations and false positives count as "daily". */
export async function countOwnerContent(db: Kysely<Database>, ownerIds: number[], day: string) {
  const [indicators, groups, tasks, tags, attributes, observations, falsePositives, groupIndicators, resolutions] =
    await Promise.all([
      db
        .selectFrom('indicator')
        .select([
          'owner_id',
          'type',
          sql<number>`count(*)`.as('n'),
          sql<number | null>`avg(rating)`.as('rating'),
          sql<number | null>`avg(confidence)`.as('confidence'),
          sql<number>`sum(observation_count)`.as('observations'),
          sql<number>`sum(false_positive_count)`.as('false_positives'),
          sql<number>`sum(case when dns_active = 1 or whois_active = 1 then 1 else 0 end)`.as('tracked'),
          sql<number>`sum(case when address_country_code is not null or address_city is not null or address_organization is not null or address_asn is not null then 1 else 0 end)`.as(
            'enriched',
          ),
        ])
        .where('owner_id', 'in', ownerIds)
        .groupBy(['owner_id', 'type'])
        .execute(),
      db
        .selectFrom('intel_group')
        .select(['owner_id', 'type', sql<number>`count(*)`.as('n')])
        .where('owner_id', 'in', ownerIds)
        .groupBy(['owner_id', 'type'])
        .execute(),
      db
        .selectFrom('task')
        .select(['owner_id', sql<number>`count(*)`.as('n')])
        .where('owner_id', 'in', ownerIds)
        .groupBy('owner_id')
        .execute(),
      db
        .selectFrom('tag')
        .select(['owner_id', sql<number>`count(*)`.as('n')])
        .where('owner_id', 'in', ownerIds)
        .groupBy('owner_id')
        .execute(),
      db
        .selectFrom('attribute')
        .select(['owner_id', 'item_kind', sql<number>`count(*)`.as('n')])
        .where('owner_id', 'in', ownerIds)
        .groupBy(['owner_id', 'item_kind'])
        .execute(),
      db
        .selectFrom('indicator_observation')
        .innerJoin('indicator', 'indicator.id', 'indicator_observation.indicator_id')
        .select(['indicator.owner_id', sql<number>`sum(indicator_observation.count)`.as('n')])
        .where('indicator.owner_id', 'in', ownerIds)
        .where('indicator_observation.date_observed', '>=', day)
        .groupBy('indicator.owner_id')
        .execute(),
      db
        .selectFrom('indicator_false_positive')
        .innerJoin('indicator', 'indicator.id', 'indicator_false_positive.indicator_id')
        .select(['indicator.owner_id', sql<number>`count(*)`.as('n')])
        .where('indicator.owner_id', 'in', ownerIds)
        .where('indicator_false_positive.day', '=', day)
        .groupBy('indicator.owner_id')
        .execute(),
      db
        .selectFrom('indicator')
        .select(['owner_id', sql<number>`count(*)`.as('n')])
        .where('owner_id', 'in', ownerIds)
        .where(
          'id',
          'in',
          db
            .selectFrom('association')
            .select('from_id')
            .where('from_kind', '=', 'indicator')
            .where('to_kind', '=', 'group'),
        )
        .groupBy('owner_id')
        .execute(),
      db
        .selectFrom('dns_resolution')
        .innerJoin('indicator', 'indicator.id', 'dns_resolution.host_id')
        .select(['indicator.owner_id', sql<number>`count(*)`.as('n')])
        .where('indicator.owner_id', 'in', ownerIds)
        .groupBy('indicator.owner_id')
        .execute(),
    ])
  return { indicators, groups, tasks, tags, attributes, observations, falsePositives, groupIndicators, resolutions }
}

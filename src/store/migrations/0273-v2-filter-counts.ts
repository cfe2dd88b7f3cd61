/**
 * The v2 Indicator filters that still counted every matching row for their exact `resultCount` (issue 28, point 4:
 * a first page in < 20 ms p50 at 10,000,000 Indicators):
 *
 * - `threatAssessScore`: a tally of its own by owner, type, active flag and score (-1 for none), kept as the
 *   confidence tally is (0271). The score is rating × confidence with observations and false positives, so neither
 *   of the other tallies answers it; feeds set few ratings and confidences, so an owner has a few hundred keys at most.
 *   (`threatAssessRating` and `threatAssessConfidence` are the rating and confidence with none as 0: the tallies
 *   already kept answer them.)
 * - `falsePositive`, `dnsActive` and `whoisActive`: almost every Indicator holds 0, which analysts change one at a
 *   time. A partial index holds the others; a count is theirs through it, plus, when 0 matches too, the owner's total
 *   from the tally less them.
 * - The Address filters (`city`, `countryCode`, … `asn`): one partial index of the Addresses with any of them set,
 *   which an equality on any of them implies. Nothing in Bulwark writes them yet, so it stays empty and costs a load
 *   nothing.
 */
import { type Kysely, type SqlBool, sql } from 'kysely'
import { type ColumnTally, createColumnTally, dropColumnTally } from './indicator-tally-triggers.js'

const SCORE_TALLY: ColumnTally = { table: 'indicator_score_tally', column: 'score', source: 'threat_assess_score' }

const GEOLOCATION = [
  'address_city',
  'address_country_code',
  'address_country_name',
  'address_organization',
  'address_state',
  'address_timezone',
  'address_asn',
]

/**
 * The partial indexes over the rare side of a column (store/repositories/indicator.repository.ts, SPARSE_COLUMNS)
 * hold what a list's count compares (owner, column, type, active flag), so the count reads the index alone; their rows
 * are few, so a page sorts them by id. The column comes second, so that a page seeks it with the owner: sought by
 * the owner alone, SQLite without statistics preferred the narrower (owner_id, id) index, which holds every row of
 * the owner. The Addresses with data are sought by the owner in id order, as that index is, and read for the column.
 */
const PARTIAL_INDEXES: { name: string; columns: string[]; where: string }[] = [
  ...['false_positive_count', 'dns_active', 'whois_active'].map((column) => ({
    name: `indicator_owner_${column === 'false_positive_count' ? 'false_positives' : column}`,
    columns: ['owner_id', column, 'type', 'active'],
    where: `${column} <> 0`,
  })),
  {
    name: 'indicator_owner_geolocated',
    columns: ['owner_id', 'id'],
    where: GEOLOCATION.map((column) => `${column} is not null`).join(' or '),
  },
]

export async function up(db: Kysely<any>): Promise<void> {
  await createColumnTally(db, SCORE_TALLY)
  for (const index of PARTIAL_INDEXES)
    await db.schema
      .createIndex(index.name)
      .on('indicator')
      .columns(index.columns)
      .where(sql.raw<SqlBool>(index.where))
      .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const index of PARTIAL_INDEXES) await db.schema.dropIndex(index.name).execute()
  await dropColumnTally(db, SCORE_TALLY)
}

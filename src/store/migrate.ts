/**
 * Runs the numbered migrations in order, on either dialect. Several nodes starting at once
 * on PostgreSQL are safe: Kysely's migrator takes a lock table before it migrates.
 */
import { type Kysely, type Migration, type MigrationProvider, Migrator } from 'kysely'
import * as m0001 from './migrations/0001-initial.js'
import * as m0040 from './migrations/0040-labels-seeded-and-playbook-xid.js'
import * as m0050 from './migrations/0050-tql-indexes.js'
import * as m0060 from './migrations/0060-intel-requirement-author.js'
import * as m0070 from './migrations/0070-batch-progress.js'
import * as m0080 from './migrations/0080-indicator-date-added.js'
import * as m0085 from './migrations/0085-threat-assess-backfill.js'
import * as m0090 from './migrations/0090-prefix-pattern-indexes.js'
import * as m0100 from './migrations/0100-indicator-feed-index.js'
import * as m0110 from './migrations/0110-feed-results.js'
import * as m0120 from './migrations/0120-listing-order-indexes.js'
import * as m0125 from './migrations/0125-indicator-tally.js'
import * as m0130 from './migrations/0130-file-hash-indexes.js'
import * as m0135 from './migrations/0135-link-seek-indexes.js'
import * as m0136 from './migrations/0136-indicator-tally-rating.js'
import * as m0137 from './migrations/0137-observation-source.js'
import * as m0138 from './migrations/0138-association-relationship.js'
import * as m0139 from './migrations/0139-indicator-stix-id.js'
import * as m0140 from './migrations/0140-console-sessions.js'
import * as m0141 from './migrations/0141-indicator-index-audit.js'
import * as m0142 from './migrations/0142-feeds.js'
import * as m0143 from './migrations/0143-feed-values.js'

import * as m0144 from './migrations/0144-outbound-lists.js'
import * as m0145 from './migrations/0145-saved-searches.js'
import * as m0146 from './migrations/0146-indicator-day-tally.js'
import * as m0147 from './migrations/0147-indicator-day-tally-type.js'
import * as m0150 from './migrations/0150-indicator-lifecycle.js'
import * as m0155 from './migrations/0155-import-jobs.js'
import * as m0270 from './migrations/0270-change-notices.js'
import * as m0271 from './migrations/0271-indicator-confidence-tally.js'
import * as m0272 from './migrations/0272-value-first-lookup-indexes.js'
import * as m0273 from './migrations/0273-v2-filter-counts.js'
import * as m0274 from './migrations/0274-batch-input-lz4.js'

const MIGRATIONS: Record<string, Migration> = {
  '0001-initial': m0001,
  '0040-labels-seeded-and-playbook-xid': m0040,
  '0050-tql-indexes': m0050,
  '0060-intel-requirement-author': m0060,
  '0070-batch-progress': m0070,
  '0080-indicator-date-added': m0080,
  '0085-threat-assess-backfill': m0085,
  '0090-prefix-pattern-indexes': m0090,
  '0100-indicator-feed-index': m0100,
  '0110-feed-results': m0110,
  '0120-listing-order-indexes': m0120,
  '0125-indicator-tally': m0125,
  '0130-file-hash-indexes': m0130,
  '0135-link-seek-indexes': m0135,
  '0136-indicator-tally-rating': m0136,
  '0137-observation-source': m0137,
  '0138-association-relationship': m0138,
  '0139-indicator-stix-id': m0139,
  '0140-console-sessions': m0140,
  '0141-indicator-index-audit': m0141,
  '0142-feeds': m0142,
  '0143-feed-values': m0143,

  '0144-outbound-lists': m0144,
  '0145-saved-searches': m0145,
  '0146-indicator-day-tally': m0146,
  '0147-indicator-day-tally-type': m0147,
  '0150-indicator-lifecycle': m0150,
  '0155-import-jobs': m0155,
  '0270-change-notices': m0270,
  '0271-indicator-confidence-tally': m0271,
  '0272-value-first-lookup-indexes': m0272,
  '0273-v2-filter-counts': m0273,
  '0274-batch-input-lz4': m0274,
}

class StaticMigrationProvider implements MigrationProvider {
  async getMigrations() {
    return MIGRATIONS
  }
}

export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  // Migrations are numbered by area, so a newer file may carry a lower number than one already applied.
  const migrator = new Migrator({ db, provider: new StaticMigrationProvider(), allowUnorderedMigrations: true })
  const { error, results } = await migrator.migrateToLatest()
  if (error) throw error
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}

/** Every known migration with the time it ran, or null when it has not run yet. */
export async function listMigrations(db: Kysely<any>): Promise<{ name: string; executedAt: string | null }[]> {
  const migrator = new Migrator({ db, provider: new StaticMigrationProvider() })
  return (await migrator.getMigrations()).map((m) => ({
    name: m.name,
    executedAt: m.executedAt ? m.executedAt.toISOString() : null,
  }))
}

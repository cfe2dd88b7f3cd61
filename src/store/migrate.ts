/**
 * Runs the numbered migrations in order, on either dialect. Several nodes starting at once
 * on PostgreSQL are safe: Kysely's migrator takes a lock table before it migrates.
 */
import { type Kysely, type Migration, type MigrationProvider, Migrator } from 'kysely'
import * as m0001 from './migrations/0001-initial.js'

const MIGRATIONS: Record<string, Migration> = {
  '0001-initial': m0001,
}

class StaticMigrationProvider implements MigrationProvider {
  async getMigrations() {
    return MIGRATIONS
  }
}

export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({ db, provider: new StaticMigrationProvider() })
  const { error, results } = await migrator.migrateToLatest()
  if (error) throw error
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}

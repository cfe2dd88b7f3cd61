/** `bulwark status`: what this database is, how far it is migrated, what it holds, how it is set. */
import { countRecords } from '../../domain/access/accounts.js'
import { migrationStatus } from '../../domain/platform/operations.js'
import type { Services } from '../../domain/services.js'
import type { Store } from '../../store/connect.js'

export async function statusCommand(store: Store, services: Services, _args: object = {}) {
  const migrations = await migrationStatus(store)
  return {
    database: store.dialect,
    migrationsApplied: migrations.filter((m) => m.executedAt).length,
    migrationsPending: migrations.filter((m) => !m.executedAt).map((m) => m.name),
    migrations,
    counts: await countRecords(store.db),
    settings: await services.settings.getAll(),
  }
}

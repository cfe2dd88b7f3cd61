/**
 * `bulwark backup <file>` and `bulwark restore <file>`: the whole database, SQLite or PostgreSQL.
 * Backup runs beside a serving node; restore wants every node stopped.
 */
import { resolve } from 'node:path'
import type { Config } from '../../config.js'
import { secureDataDir } from '../../data-dir.js'
import { backupDatabase, restoreDatabase } from '../../store/backup.js'
import type { Store } from '../../store/connect.js'

export async function backupCommand(store: Store, config: Config, args: { file: string }) {
  return backupDatabase(store, sessionUrl(config), resolve(args.file))
}

export async function restoreCommand(config: Config, args: { file: string }) {
  secureDataDir(config.dataDir)
  return restoreDatabase(sessionUrl(config), resolve(args.file))
}

/**
 * pg_dump and pg_restore keep session state (settings, a snapshot, locks) across statements,
 * which a transaction pooler would spread over server connections: behind one they use the
 * direct listen URL when it is given (docs/scale-out.md).
 */
function sessionUrl(config: Config): string {
  return config.databasePooling === 'transaction' && config.databaseListenUrl
    ? config.databaseListenUrl
    : config.databaseUrl
}

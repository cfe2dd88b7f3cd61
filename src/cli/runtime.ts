/**
 * Opens the configured database for one admin command, exactly as a server node would:
 * migrations, reference data and, on a brand-new database, the first-start Organization
 * and administrator. So a database the CLI touched first still gets its administrator.
 */
import { type FirstStart, ensureFirstStart, loadServerKey, openConfiguredStore, prepareDatabase } from '../bootstrap.js'
import { type Config, loadConfig } from '../config.js'
import { secureDataDir } from '../data-dir.js'
import { type Services, createServices } from '../domain/services.js'
import type { Store } from '../store/connect.js'

export interface CliRuntime {
  config: Config
  store: Store
  services: Services
  /** Set when this run created the default Organization and administrator. */
  firstStart?: FirstStart
  close(): Promise<void>
}

export async function openRuntime(config: Config = loadConfig()): Promise<CliRuntime> {
  const { tightened } = secureDataDir(config.dataDir)
  for (const { path, from } of tightened)
    process.stderr.write(`Made private (was readable by others): ${path} (${from})\n`)
  const store = openConfiguredStore(config)
  try {
    await prepareDatabase(store)
    const services = createServices(store, { serverKey: loadServerKey(config), publicUrl: config.publicUrl })
    const firstStart = await ensureFirstStart(store, config, services.secretBox)
    return { config, store, services, firstStart, close: () => store.close() }
  } catch (error) {
    await store.close()
    throw error
  }
}

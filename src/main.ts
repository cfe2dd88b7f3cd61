/**
 * Starts one Bulwark node: configuration, database (migrated), first-start setup, TLS,
 * the HTTP application and the batch worker. Several nodes may share one PostgreSQL database.
 */
import { ensureFirstStart, loadServerKey, prepareDatabase } from './bootstrap.js'
import { loadConfig } from './config.js'
import { createServices } from './domain/services.js'
import { buildApp } from './protocols/http/server.js'
import { loadTlsMaterial } from './protocols/http/tls.js'
import { openStore } from './store/connect.js'
import { startBatchWorker } from './worker/batch-worker.js'

async function main() {
  const config = loadConfig()
  const store = openStore(config.databaseUrl)
  await prepareDatabase(store)
  const services = createServices(store, { serverKey: loadServerKey(config), publicUrl: config.publicUrl })
  const firstStart = await ensureFirstStart(store, config, services.secretBox)
  const tls = config.tls.enabled ? await loadTlsMaterial({ ...config.tls, dataDir: config.dataDir }) : undefined
  const app = await buildApp({
    store, services, https: tls, trustedProxies: config.trustedProxies, bodyLimitBytes: config.bodyLimitBytes, logLevel: config.logLevel,
  })
  await app.listen({ host: config.host, port: config.port })
  app.log.info({ database: store.dialect, publicUrl: config.publicUrl, tls: config.tls.enabled }, 'Bulwark is serving')
  if (tls?.generatedAt) app.log.info({ certificate: tls.generatedAt }, 'made a self-signed TLS certificate (set BULWARK_TLS_CERT and BULWARK_TLS_KEY to use your own)')
  if (firstStart) {
    app.log.info({ organization: firstStart.organization, user: firstStart.userName }, 'first start: created the default Organization and its administrator API account')
    if (firstStart.credentialsFile) app.log.info({ file: firstStart.credentialsFile }, 'the administrator credentials (access id, secret key, API token) are in this file, readable only by this user; store them safely and delete the file')
    else app.log.info('the administrator credentials are the ones given in BULWARK_ADMIN_ACCESS_ID, BULWARK_ADMIN_SECRET_KEY and BULWARK_ADMIN_TOKEN')
  }
  const batchWorker = config.batchWorker
    ? startBatchWorker(store, services, { log: (msg, err) => app.log.error({ err }, msg) })
    : undefined
  const stop = async (signal: string) => {
    app.log.info({ signal }, 'stopping')
    await batchWorker?.stop()
    await app.close()
    await store.close()
    process.exit(0)
  }
  process.once('SIGINT', () => void stop('SIGINT'))
  process.once('SIGTERM', () => void stop('SIGTERM'))
}

main().catch((error) => {
  console.error(`Bulwark could not start: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(1)
})

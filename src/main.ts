/**
 * Starts one Bulwark node: configuration, a private data directory, database (migrated),
 * first-start setup, TLS, the HTTP application, metrics and the batch worker; stops it gracefully
 * on SIGTERM or SIGINT. Several nodes may share one PostgreSQL database.
 */
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setFlagsFromString } from 'node:v8'
import { ensureFirstStart, loadServerKey, openConfiguredStore, prepareDatabase } from './bootstrap.js'
import { loadConfig } from './config.js'
import { secureDataDir } from './data-dir.js'
import { createServices } from './domain/services.js'
import { createMetrics, serveMetrics } from './protocols/http/metrics.js'
import { buildApp } from './app.js'
import { loadTlsMaterial } from './protocols/http/tls.js'
import { watchChanges } from './store/change-notices.js'
import { refreshAtStart } from './store/engine/planner-statistics.js'
import { type BatchWorkerHandle, startBatchWorker } from './worker/batch-worker.js'
import { startScheduledTasks } from './worker/scheduled-tasks.js'
import { startImportWorker } from './worker/import-worker.js'
import { startFeedScheduler } from './worker/feed-scheduler.js'

/**
 * How far V8 lets the old generation grow past what survived its last full collection before
 * collecting again: 100 % here instead of the up to 300 % it picks while collections are cheap.
 * A batch job promotes each chunk's records to the old generation and drops them a moment
 * later; with the default the garbage piled up to 150 MB of heap (300 MB resident at a million
 * Indicators) before a collection. At 100 % a million-Indicator load peaked at 235 MB resident
 * on SQLite and 191 MB on PostgreSQL, for about 5 % more CPU there and in TAXII reads (50 % saved
 * another 13 MB and cost TAXII reads a fifth more CPU). It is a pace, not a cap: a large request
 * still gets all the memory it needs. The young generation's size cannot be set from here (V8 reads it when the
 * heap is made): `npm start` passes `--max-semi-space-size=4` (package.json; docs/decisions.md).
 */
const HEAP_GROWING_PERCENT = 100

/** The console's build: this file runs as dist/main.mjs or src/main.ts, both one level below the checkout. */
const CONSOLE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'console')

async function main() {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`)
  const config = loadConfig()
  const { tightened } = secureDataDir(config.dataDir)
  const store = openConfiguredStore(config)
  await prepareDatabase(store)
  const services = createServices(store, { serverKey: loadServerKey(config), publicUrl: config.publicUrl })
  const firstStart = await ensureFirstStart(store, config, services.secretBox)
  const tls = config.tls.enabled ? await loadTlsMaterial({ ...config.tls, dataDir: config.dataDir }) : undefined
  const metrics = config.metrics.port !== undefined || config.metrics.token ? createMetrics(store) : undefined
  let batchWorker: BatchWorkerHandle | undefined
  let stopping = false
  const app = await buildApp({
    store,
    services,
    https: tls,
    trustedProxies: config.trustedProxies,
    bodyLimitBytes: config.bodyLimitBytes,
    logLevel: config.logLevel,
    metrics,
    metricsToken: config.metrics.token,
    rateLimit: config.rateLimit,
    console: { dir: CONSOLE_DIR },
    readiness: { workerRunning: () => !stopping && (!config.batchWorker || !!batchWorker?.running()) },
  })
  const changes = watchChanges(store, { log: (msg, err) => app.log.warn({ err }, msg) })
  for (const { path, from } of tightened)
    app.log.warn({ path, mode: from }, 'was readable by other users; made private')
  await app.listen({ host: config.host, port: config.port })
  app.log.info({ database: store.dialect, publicUrl: config.publicUrl, tls: config.tls.enabled }, 'Bulwark is serving')
  // After listening, so a large database does not delay the first answer.
  void refreshAtStart(store).catch((err) => app.log.warn({ err }, 'could not refresh planner statistics at start'))
  if (tls?.generatedAt)
    app.log.info(
      { certificate: tls.generatedAt },
      'made a self-signed TLS certificate (set BULWARK_TLS_CERT and BULWARK_TLS_KEY to use your own)',
    )
  if (firstStart) {
    app.log.info(
      { organization: firstStart.organization, user: firstStart.userName },
      'first start: created the default Organization and its administrator API account',
    )
    if (firstStart.credentialsFile)
      app.log.info(
        { file: firstStart.credentialsFile },
        'the administrator credentials (access id, secret key, API token) are in this file, readable only by this user; store them safely and delete the file',
      )
    else
      app.log.info(
        'the administrator credentials are the ones given in BULWARK_ADMIN_ACCESS_ID, BULWARK_ADMIN_SECRET_KEY and BULWARK_ADMIN_TOKEN',
      )
  }
  const metricsServer =
    metrics && config.metrics.port !== undefined
      ? await serveMetrics(metrics, config.metrics.host, config.metrics.port)
      : undefined
  if (metricsServer)
    app.log.info({ host: config.metrics.host, port: config.metrics.port }, 'serving Prometheus metrics at /metrics')
  batchWorker = config.batchWorker
    ? startBatchWorker(store, services, {
        leaseMs: config.batchLeaseMs,
        lanes: config.batchConcurrency,
        log: (msg, err) => app.log.error({ err }, msg),
      })
    : undefined
  const scheduledTasks = config.batchWorker
    ? startScheduledTasks(store, services, { log: (msg, err) => app.log.error({ err }, msg) })
    : undefined
  const importWorker = config.batchWorker
    ? startImportWorker(store, services, { log: (msg, err) => app.log.error({ err }, msg) })
    : undefined
  const feedScheduler = config.batchWorker
    ? startFeedScheduler(store, services, {
        leaseMs: config.feedLeaseMs,
        pollMs: config.feedPollMs,
        log: (msg, err) => app.log.error({ err }, msg),
      })
    : undefined

  const stop = async (signal: string) => {
    if (stopping) {
      app.log.warn({ signal }, 'second signal: exiting without waiting')
      process.exit(1)
    }
    stopping = true
    app.log.info(
      { signal, timeoutMs: config.shutdownTimeoutMs },
      'stopping: no new connections; finishing requests in flight and handing back batch jobs',
    )
    // Requests still running after the bound lose their connections; their transactions roll back.
    const force = setTimeout(() => app.server.closeAllConnections(), config.shutdownTimeoutMs)
    await Promise.all([
      app.close(),
      batchWorker?.stop(),
      scheduledTasks?.stop(),
      importWorker?.stop(),
      feedScheduler?.stop(),
    ])
    clearTimeout(force)
    if (metricsServer) await new Promise((resolve) => metricsServer.close(resolve))
    await changes.close()
    await store.close()
    app.log.info('stopped')
    process.exit(0)
  }
  process.on('SIGINT', () => void stop('SIGINT'))
  process.on('SIGTERM', () => void stop('SIGTERM'))
}

main().catch((error) => {
  console.error(`Bulwark could not start: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(1)
})

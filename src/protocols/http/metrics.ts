/**
 * Prometheus metrics (prom-client), off unless configured: requests by route pattern, method and
 * status with their latency, batch jobs by state and the age of the oldest queued one, database
 * connections, and the process's own figures (memory, event-loop lag, CPU). Served on a separate
 * plain-HTTP listener, or at /api/metrics behind a bearer token. With read replicas: each replica's
 * state and lag, and where read requests went. When metrics are off nothing
 * here is installed: no hook runs on the request path.
 */
import { createServer, type Server } from 'node:http'
import type { FastifyInstance } from 'fastify'
import { Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import { constantTimeEqual } from '../../domain/access/credentials.js'
import { countBatchJobs, feedFigures, oldestQueuedJobAge } from '../../domain/platform/operations.js'
import type { Store } from '../../store/connect.js'

export interface Metrics {
  registry: Registry
  requestDuration: Histogram<'method' | 'route' | 'status'>
}

const JOB_STATES = ['Created', 'Queued', 'Running', 'Completed'] as const

export function createMetrics(store: Store): Metrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: 'bulwark_' })
  const requestDuration = new Histogram({
    name: 'bulwark_http_request_duration_seconds',
    help: 'Time from request to response, by route pattern, method and status; its _count is the number of requests',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  })
  new Gauge({
    name: 'bulwark_batch_jobs',
    help: 'Batch jobs by state',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      const counts = await countBatchJobs(store)
      for (const state of JOB_STATES) this.set({ state }, counts[state] ?? 0)
    },
  })
  new Gauge({
    name: 'bulwark_batch_queue_oldest_age_seconds',
    help: 'Age of the oldest queued batch job (0 when none waits)',
    registers: [registry],
    async collect() {
      this.set(await oldestQueuedJobAge(store))
    },
  })
  new Gauge({
    name: 'bulwark_db_connections',
    help: 'Database connections of this node by state (PostgreSQL pool; SQLite has one in-process connection)',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const pool = store.pool
      this.set({ state: 'total' }, pool ? pool.totalCount : 1)
      this.set({ state: 'idle' }, pool ? pool.idleCount : 0)
      this.set({ state: 'waiting' }, pool ? pool.waitingCount : 0)
    },
  })
  installFeedMetrics(store, registry)
  const replicas = store.replicas
  if (replicas) {
    new Gauge({
      name: 'bulwark_db_replica_up',
      help: 'Whether each read replica answered the last check as a standby (1) or is bypassed as down (0)',
      labelNames: ['replica'] as const,
      registers: [registry],
      collect() {
        for (const r of replicas.status().replicas) this.set({ replica: r.name }, r.up ? 1 : 0)
      },
    })
    new Gauge({
      name: 'bulwark_db_replica_lag_seconds',
      help: 'How long each read replica has lacked a WAL position the primary had (0: it has replayed the latest); -1 when down',
      labelNames: ['replica'] as const,
      registers: [registry],
      collect() {
        for (const r of replicas.status().replicas)
          this.set({ replica: r.name }, Number.isFinite(r.lagMs) ? r.lagMs / 1000 : -1)
      },
    })
    new Gauge({
      name: 'bulwark_db_read_requests',
      help:
        "Read requests since the start by where they read: replica, replica_after_wait (for the caller's own write), " +
        'primary_own_write (no replica replayed it in time), primary_no_replica (none up and within the lag bound); ' +
        'retried_on_primary counts replica statements that failed and ran again on the primary',
      labelNames: ['read'] as const,
      registers: [registry],
      collect() {
        const reads = replicas.status().reads
        this.set({ read: 'replica' }, reads.replica)
        this.set({ read: 'replica_after_wait' }, reads.replicaAfterWait)
        this.set({ read: 'primary_own_write' }, reads.primaryForOwnWrite)
        this.set({ read: 'primary_no_replica' }, reads.primaryNoReplica)
        this.set({ read: 'retried_on_primary' }, reads.retriedOnPrimary)
      },
    })
  }
  return { registry, requestDuration }
}

const FEED_OUTCOMES = ['created', 'updated', 'unchanged', 'refused'] as const

/** Per feed, from the database (every node reports the same): last success, the last run's items, failures in a row. */
function installFeedMetrics(store: Store, registry: Registry) {
  // One read serves the three gauges of a scrape: prom-client collects them one after another.
  let pending: Promise<Awaited<ReturnType<typeof feedFigures>>> | undefined
  const figures = () => {
    pending ??= feedFigures(store).finally(() => setImmediate(() => (pending = undefined)))
    return pending
  }
  new Gauge({
    name: 'bulwark_feed_last_success_timestamp_seconds',
    help: 'When each feed last ran successfully (seconds since the epoch); absent before its first success',
    labelNames: ['feed'] as const,
    registers: [registry],
    async collect() {
      this.reset()
      for (const f of await figures()) if (f.lastSuccess !== undefined) this.set({ feed: f.feed }, f.lastSuccess)
    },
  })
  new Gauge({
    name: 'bulwark_feed_objects_last_run',
    help: "Items of each feed's newest finished run, by outcome (created, updated, unchanged, refused)",
    labelNames: ['feed', 'outcome'] as const,
    registers: [registry],
    async collect() {
      this.reset()
      for (const f of await figures())
        if (f.lastRun) for (const outcome of FEED_OUTCOMES) this.set({ feed: f.feed, outcome }, f.lastRun[outcome])
    },
  })
  new Gauge({
    name: 'bulwark_feed_failures',
    help: 'Failed runs of each feed in a row (0 after a success)',
    labelNames: ['feed'] as const,
    registers: [registry],
    async collect() {
      this.reset()
      for (const f of await figures()) this.set({ feed: f.feed }, f.failures)
    },
  })
}

/** Observes every response; only called when metrics are on. */
export function installRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
  // Callback style and no closure allocation beyond the labels: this runs on every request.
  app.addHook('onResponse', (req, reply, done) => {
    metrics.requestDuration.observe(
      { method: req.method, route: req.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    )
    done()
  })
}

/** GET /api/metrics on the main listener, for `Authorization: Bearer <token>` only. */
export function installMetricsRoute(app: FastifyInstance, metrics: Metrics, token: string): void {
  app.get('/api/metrics', async (req, reply) => {
    const given = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1]
    if (!given || !constantTimeEqual(given, token)) {
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer')
        .send({ status: 'Error', message: 'A valid metrics token is required' })
    }
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics())
  })
}

/** A listener of its own that serves only GET /metrics, for a scraper on a private network. */
export async function serveMetrics(metrics: Metrics, host: string, port: number): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found\n')
      return
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('Metrics could not be collected\n'),
    )
  })
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, resolve))
  return server
}

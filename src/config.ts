/**
 * Settings from the environment, with the defaults the README documents. Nothing else in
 * src/ reads process.env (src/config.test.ts checks it): modules are handed these values, so
 * a test or a second server in one process can give each its own. Test helpers (src/test/,
 * *.test.ts) and bench/ read their own BULWARK_TEST_*, BULWARK_CLIENTS_* and BENCH_* variables.
 */
import { join, resolve } from 'node:path'

export interface Config {
  host: string
  port: number
  dataDir: string
  databaseUrl: string
  /** PostgreSQL connections this node's pool may open (SQLite has one connection). */
  databasePoolSize: number
  /**
   * How the PostgreSQL URL is pooled: `session` (direct, or a session pooler) or `transaction` (a
   * transaction pooler such as PgBouncer's `pool_mode = transaction`): no named prepared statements
   * and no session state then (docs/scale-out.md).
   */
  databasePooling: 'session' | 'transaction'
  /**
   * A direct (not transaction-pooled) PostgreSQL URL for what needs a session of its own: LISTEN for
   * batch wake-ups and change notices. Unset behind a transaction pooler: polling instead.
   */
  databaseListenUrl?: string
  /**
   * PostgreSQL streaming replicas that read requests may read from (store/replicas.ts); empty: every
   * read on the primary. A replica further behind than `databaseReplicaMaxLagMs` is bypassed; a
   * caller's read waits up to `databaseReplicaWaitMs` for a replica to replay the caller's last write,
   * then reads the primary.
   */
  databaseReplicaUrls: string[]
  databaseReplicaMaxLagMs: number
  databaseReplicaWaitMs: number
  publicUrl: string
  tls: { enabled: boolean; certFile?: string; keyFile?: string }
  /** Addresses (or CIDRs) whose X-Forwarded-Proto/For headers are believed. */
  trustedProxies: string[]
  /** Key that seals HMAC secrets; every node of one deployment must share it. */
  serverKey?: string
  admin: { accessId?: string; secretKey?: string; token?: string; organization: string; userName: string }
  logLevel: string
  bodyLimitBytes: number
  batchWorker: boolean
  /** Batch jobs a node runs at once: more than one on PostgreSQL only (SQLite has one writer), 2 there by default. */
  batchConcurrency: number
  /** How long a batch job's lease lasts between renewals (each chunk): how soon another node resumes the job of a node that died. */
  batchLeaseMs: number
  /** How long a feed's lease lasts between renewals (a third of it): how soon another node resumes a feed whose node died. */
  feedLeaseMs: number
  /** How often each node looks for due feeds. */
  feedPollMs: number
  /** Prometheus metrics: a separate listener (port) and/or /api/metrics behind a token; off when neither is set. */
  metrics: { host: string; port?: number; token?: string }
  /** How long a stopping node waits for requests in flight before it closes their connections. */
  shutdownTimeoutMs: number
  /** REST requests one account may make per window on one node; off when max is undefined. */
  rateLimit: { max?: number; windowMs: number }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = resolve(env.BULWARK_DATA_DIR ?? './data')
  const port = Number(env.BULWARK_PORT ?? 8443)
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`BULWARK_PORT must be a port number, not '${env.BULWARK_PORT}'`)
  const tlsEnabled = (env.BULWARK_TLS ?? 'on').toLowerCase() !== 'off'
  const host = env.BULWARK_HOST ?? '0.0.0.0'
  const databasePoolSize = Number(env.BULWARK_DB_POOL_SIZE ?? 10)
  if (!Number.isInteger(databasePoolSize) || databasePoolSize < 1)
    throw new Error(`BULWARK_DB_POOL_SIZE must be a number of connections, not '${env.BULWARK_DB_POOL_SIZE}'`)
  const databasePooling = (env.BULWARK_DB_POOLING ?? 'session').toLowerCase()
  if (databasePooling !== 'session' && databasePooling !== 'transaction')
    throw new Error(`BULWARK_DB_POOLING must be 'session' or 'transaction', not '${env.BULWARK_DB_POOLING}'`)
  const databaseListenUrl = env.BULWARK_DATABASE_LISTEN_URL || undefined
  if (databaseListenUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseListenUrl))
    throw new Error('BULWARK_DATABASE_LISTEN_URL must be a postgres:// URL')
  const databaseReplicaUrls = (env.BULWARK_DATABASE_REPLICA_URL ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  if (databaseReplicaUrls.some((u) => !/^postgres(ql)?:\/\//.test(u)))
    throw new Error('BULWARK_DATABASE_REPLICA_URL must be postgres:// URLs, separated by commas')
  const databaseUrl = env.BULWARK_DATABASE_URL ?? `sqlite:${join(dataDir, 'bulwark.db')}`
  // A SQLite file has no replicas; accepting the setting would let an operator believe reads are offloaded.
  if (databaseReplicaUrls.length > 0 && !/^postgres(ql)?:\/\//.test(databaseUrl))
    throw new Error('BULWARK_DATABASE_REPLICA_URL needs a PostgreSQL BULWARK_DATABASE_URL (SQLite has no replicas)')
  const databaseReplicaMaxLagMs = Number(env.BULWARK_DATABASE_REPLICA_MAX_LAG_MS ?? 1000)
  if (!Number.isInteger(databaseReplicaMaxLagMs) || databaseReplicaMaxLagMs < 0)
    throw new Error(
      `BULWARK_DATABASE_REPLICA_MAX_LAG_MS must be a number of milliseconds, not '${env.BULWARK_DATABASE_REPLICA_MAX_LAG_MS}'`,
    )
  const databaseReplicaWaitMs = Number(env.BULWARK_DATABASE_REPLICA_WAIT_MS ?? 10)
  if (!Number.isInteger(databaseReplicaWaitMs) || databaseReplicaWaitMs < 0 || databaseReplicaWaitMs > 1000)
    throw new Error(
      `BULWARK_DATABASE_REPLICA_WAIT_MS must be a number of milliseconds up to 1000, not '${env.BULWARK_DATABASE_REPLICA_WAIT_MS}'`,
    )
  const batchLeaseMs = Number(env.BULWARK_BATCH_LEASE_MS ?? 60_000)
  if (!Number.isInteger(batchLeaseMs) || batchLeaseMs < 1000)
    throw new Error(`BULWARK_BATCH_LEASE_MS must be at least 1000 milliseconds, not '${env.BULWARK_BATCH_LEASE_MS}'`)
  const postgres = /^postgres(ql)?:\/\//.test(databaseUrl)
  const batchConcurrency = Number(env.BULWARK_BATCH_CONCURRENCY ?? (postgres ? 2 : 1))
  if (!Number.isInteger(batchConcurrency) || batchConcurrency < 1 || batchConcurrency > 16)
    throw new Error(
      `BULWARK_BATCH_CONCURRENCY must be a whole number from 1 to 16, not '${env.BULWARK_BATCH_CONCURRENCY}'`,
    )
  if (!postgres && batchConcurrency > 1)
    throw new Error('BULWARK_BATCH_CONCURRENCY above 1 needs PostgreSQL: SQLite has one writer')
  const feedLeaseMs = Number(env.BULWARK_FEED_LEASE_MS ?? 120_000)
  if (!Number.isInteger(feedLeaseMs) || feedLeaseMs < 3000)
    throw new Error(`BULWARK_FEED_LEASE_MS must be at least 3000 milliseconds, not '${env.BULWARK_FEED_LEASE_MS}'`)
  const feedPollMs = Number(env.BULWARK_FEED_POLL_MS ?? 15_000)
  if (!Number.isInteger(feedPollMs) || feedPollMs < 100)
    throw new Error(`BULWARK_FEED_POLL_MS must be at least 100 milliseconds, not '${env.BULWARK_FEED_POLL_MS}'`)
  const bodyLimitBytes = Number(env.BULWARK_BODY_LIMIT ?? 5 * 1024 * 1024)
  if (!Number.isInteger(bodyLimitBytes) || bodyLimitBytes < 1024)
    throw new Error(`BULWARK_BODY_LIMIT must be a number of bytes (at least 1024), not '${env.BULWARK_BODY_LIMIT}'`)
  const metricsPort = env.BULWARK_METRICS_PORT ? Number(env.BULWARK_METRICS_PORT) : undefined
  if (metricsPort !== undefined && (!Number.isInteger(metricsPort) || metricsPort < 0 || metricsPort > 65535)) {
    throw new Error(`BULWARK_METRICS_PORT must be a port number, not '${env.BULWARK_METRICS_PORT}'`)
  }
  if (env.BULWARK_METRICS_TOKEN !== undefined && env.BULWARK_METRICS_TOKEN.length < 16)
    throw new Error('BULWARK_METRICS_TOKEN must be at least 16 characters')
  const shutdownTimeoutMs = Number(env.BULWARK_SHUTDOWN_TIMEOUT_MS ?? 10_000)
  if (!Number.isInteger(shutdownTimeoutMs) || shutdownTimeoutMs < 0)
    throw new Error(
      `BULWARK_SHUTDOWN_TIMEOUT_MS must be a number of milliseconds, not '${env.BULWARK_SHUTDOWN_TIMEOUT_MS}'`,
    )
  const rateLimitMax = env.BULWARK_RATE_LIMIT ? Number(env.BULWARK_RATE_LIMIT) : undefined
  if (rateLimitMax !== undefined && (!Number.isInteger(rateLimitMax) || rateLimitMax < 0))
    throw new Error(`BULWARK_RATE_LIMIT must be a whole number of requests, not '${env.BULWARK_RATE_LIMIT}'`)
  const rateLimitWindowMs = Number(env.BULWARK_RATE_LIMIT_WINDOW_MS ?? 60_000)
  if (!Number.isInteger(rateLimitWindowMs) || rateLimitWindowMs < 1000)
    throw new Error(
      `BULWARK_RATE_LIMIT_WINDOW_MS must be at least 1000 milliseconds, not '${env.BULWARK_RATE_LIMIT_WINDOW_MS}'`,
    )
  const admin = [env.BULWARK_ADMIN_ACCESS_ID, env.BULWARK_ADMIN_SECRET_KEY, env.BULWARK_ADMIN_TOKEN]
  // Half-given credentials would leave the administrator with a mix of chosen and generated secrets.
  if (admin.some(Boolean) && !admin.every(Boolean)) {
    throw new Error(
      'Set all of BULWARK_ADMIN_ACCESS_ID, BULWARK_ADMIN_SECRET_KEY and BULWARK_ADMIN_TOKEN, or none of them',
    )
  }
  return {
    host,
    port,
    dataDir,
    databaseUrl,
    databasePoolSize,
    databasePooling,
    databaseListenUrl,
    databaseReplicaUrls,
    databaseReplicaMaxLagMs,
    databaseReplicaWaitMs,
    publicUrl: env.BULWARK_PUBLIC_URL ?? `${tlsEnabled ? 'https' : 'http'}://localhost:${port}`,
    tls: { enabled: tlsEnabled, certFile: env.BULWARK_TLS_CERT, keyFile: env.BULWARK_TLS_KEY },
    trustedProxies: (env.BULWARK_TRUSTED_PROXIES ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    serverKey: env.BULWARK_SECRET_KEY,
    admin: {
      accessId: env.BULWARK_ADMIN_ACCESS_ID,
      secretKey: env.BULWARK_ADMIN_SECRET_KEY,
      token: env.BULWARK_ADMIN_TOKEN,
      organization: env.BULWARK_ORGANIZATION ?? 'Default Organization',
      userName: env.BULWARK_ADMIN_USER ?? 'admin-api',
    },
    logLevel: env.BULWARK_LOG_LEVEL ?? 'info',
    bodyLimitBytes,
    batchWorker: (env.BULWARK_BATCH_WORKER ?? 'on').toLowerCase() !== 'off',
    batchLeaseMs,
    batchConcurrency,
    feedLeaseMs,
    feedPollMs,
    metrics: {
      host: env.BULWARK_METRICS_HOST ?? '127.0.0.1',
      port: metricsPort,
      token: env.BULWARK_METRICS_TOKEN || undefined,
    },
    shutdownTimeoutMs,
    rateLimit: { max: rateLimitMax || undefined, windowMs: rateLimitWindowMs },
  }
}

/**
 * The environment of a child process Bulwark starts (pg_dump, pg_restore): this process's own,
 * so PATH and the PG* variables reach the tool, with `extra` on top.
 */
export function childEnvironment(
  extra: Record<string, string> = {},
  env: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  return { ...env, ...extra }
}

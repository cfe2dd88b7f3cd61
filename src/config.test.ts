import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadConfig } from './config.js'

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({})
    expect(config).toEqual({
      host: '0.0.0.0',
      port: 8443,
      dataDir: resolve('./data'),
      databaseUrl: `sqlite:${resolve('./data/bulwark.db')}`,
      databasePoolSize: 10,
      databasePooling: 'session',
      databaseListenUrl: undefined,
      databaseReplicaUrls: [],
      databaseReplicaMaxLagMs: 1000,
      databaseReplicaWaitMs: 10,
      publicUrl: 'https://localhost:8443',
      tls: { enabled: true, certFile: undefined, keyFile: undefined },
      trustedProxies: [],
      serverKey: undefined,
      admin: {
        accessId: undefined,
        secretKey: undefined,
        token: undefined,
        organization: 'Default Organization',
        userName: 'admin-api',
      },
      logLevel: 'info',
      bodyLimitBytes: 5 * 1024 * 1024,
      batchWorker: true,
      batchLeaseMs: 60_000,
      batchConcurrency: 1,
      feedLeaseMs: 120_000,
      feedPollMs: 15_000,
      metrics: { host: '127.0.0.1', port: undefined, token: undefined },
      shutdownTimeoutMs: 10_000,
      rateLimit: { max: undefined, windowMs: 60_000 },
    })
  })

  it('reads every BULWARK_* variable', () => {
    const config = loadConfig({
      BULWARK_HOST: '127.0.0.1',
      BULWARK_PORT: '9443',
      BULWARK_DATA_DIR: '/var/lib/bulwark',
      BULWARK_DATABASE_URL: 'postgres://tip@db:5432/tip',
      BULWARK_PUBLIC_URL: 'https://tip.example.org',
      BULWARK_TLS_CERT: '/etc/tls/tip.crt',
      BULWARK_TLS_KEY: '/etc/tls/tip.key',
      BULWARK_TRUSTED_PROXIES: ' 10.0.0.1, 10.0.1.0/24 ,,',
      BULWARK_SECRET_KEY: 'k',
      BULWARK_ADMIN_ACCESS_ID: '1',
      BULWARK_ADMIN_SECRET_KEY: 's',
      BULWARK_ADMIN_TOKEN: 't',
      BULWARK_ORGANIZATION: 'Blue Team',
      BULWARK_ADMIN_USER: 'root-api',
      BULWARK_LOG_LEVEL: 'debug',
      BULWARK_BODY_LIMIT: '1024',
      BULWARK_BATCH_WORKER: 'OFF',
      BULWARK_BATCH_LEASE_MS: '15000',
      BULWARK_BATCH_CONCURRENCY: '3',
      BULWARK_FEED_LEASE_MS: '6000',
      BULWARK_FEED_POLL_MS: '500',
      BULWARK_METRICS_HOST: '0.0.0.0',
      BULWARK_METRICS_PORT: '9464',
      BULWARK_METRICS_TOKEN: 'a-scraper-token-16',
      BULWARK_SHUTDOWN_TIMEOUT_MS: '3000',
      BULWARK_RATE_LIMIT: '600',
      BULWARK_RATE_LIMIT_WINDOW_MS: '10000',
      BULWARK_DB_POOL_SIZE: '25',
      BULWARK_DB_POOLING: 'Transaction',
      BULWARK_DATABASE_LISTEN_URL: 'postgres://tip@db-direct:5432/tip',
      BULWARK_DATABASE_REPLICA_URL: 'postgres://tip@replica-1:5432/tip, postgresql://tip@replica-2:5432/tip',
      BULWARK_DATABASE_REPLICA_MAX_LAG_MS: '2500',
      BULWARK_DATABASE_REPLICA_WAIT_MS: '25',
    })
    expect(config).toEqual({
      host: '127.0.0.1',
      port: 9443,
      dataDir: '/var/lib/bulwark',
      databaseUrl: 'postgres://tip@db:5432/tip',
      databasePoolSize: 25,
      databasePooling: 'transaction',
      databaseListenUrl: 'postgres://tip@db-direct:5432/tip',
      databaseReplicaUrls: ['postgres://tip@replica-1:5432/tip', 'postgresql://tip@replica-2:5432/tip'],
      databaseReplicaMaxLagMs: 2500,
      databaseReplicaWaitMs: 25,
      publicUrl: 'https://tip.example.org',
      tls: { enabled: true, certFile: '/etc/tls/tip.crt', keyFile: '/etc/tls/tip.key' },
      trustedProxies: ['10.0.0.1', '10.0.1.0/24'],
      serverKey: 'k',
      admin: { accessId: '1', secretKey: 's', token: 't', organization: 'Blue Team', userName: 'root-api' },
      logLevel: 'debug',
      bodyLimitBytes: 1024,
      batchWorker: false,
      batchLeaseMs: 15_000,
      batchConcurrency: 3,
      feedLeaseMs: 6000,
      feedPollMs: 500,
      metrics: { host: '0.0.0.0', port: 9464, token: 'a-scraper-token-16' },
      shutdownTimeoutMs: 3000,
      rateLimit: { max: 600, windowMs: 10_000 },
    })
  })

  it('keeps the SQLite file in the data directory and follows the port in the public URL', () => {
    const config = loadConfig({ BULWARK_DATA_DIR: '/srv/tip', BULWARK_PORT: '443' })
    expect(config.databaseUrl).toBe('sqlite:/srv/tip/bulwark.db')
    expect(config.publicUrl).toBe('https://localhost:443')
  })

  it('serves plain HTTP with an http public URL when BULWARK_TLS is off, in any case', () => {
    for (const value of ['off', 'OFF', 'Off']) {
      const config = loadConfig({ BULWARK_TLS: value, BULWARK_PORT: '8080' })
      expect(config.tls.enabled).toBe(false)
      expect(config.publicUrl).toBe('http://localhost:8080')
    }
    expect(loadConfig({ BULWARK_TLS: 'on' }).tls.enabled).toBe(true)
  })

  it('refuses a short metrics token and malformed limits', () => {
    expect(() => loadConfig({ BULWARK_METRICS_TOKEN: 'short' })).toThrow(
      'BULWARK_METRICS_TOKEN must be at least 16 characters',
    )
    expect(() => loadConfig({ BULWARK_METRICS_PORT: 'x' })).toThrow(
      "BULWARK_METRICS_PORT must be a port number, not 'x'",
    )
    expect(() => loadConfig({ BULWARK_RATE_LIMIT: '1.5' })).toThrow(
      "BULWARK_RATE_LIMIT must be a whole number of requests, not '1.5'",
    )
    expect(() => loadConfig({ BULWARK_RATE_LIMIT_WINDOW_MS: '10' })).toThrow(
      "BULWARK_RATE_LIMIT_WINDOW_MS must be at least 1000 milliseconds, not '10'",
    )
    expect(loadConfig({ BULWARK_RATE_LIMIT: '0' }).rateLimit.max).toBeUndefined()
    expect(() => loadConfig({ BULWARK_DB_POOL_SIZE: '0' })).toThrow(
      "BULWARK_DB_POOL_SIZE must be a number of connections, not '0'",
    )
    expect(() => loadConfig({ BULWARK_DB_POOLING: 'statement' })).toThrow(
      "BULWARK_DB_POOLING must be 'session' or 'transaction', not 'statement'",
    )
    expect(() => loadConfig({ BULWARK_DATABASE_LISTEN_URL: 'db-direct:5432' })).toThrow(
      'BULWARK_DATABASE_LISTEN_URL must be a postgres:// URL',
    )
  })

  it('takes read replicas only with a PostgreSQL database, and refuses malformed ones', () => {
    expect(() => loadConfig({ BULWARK_DATABASE_REPLICA_URL: 'postgres://tip@replica:5432/tip' })).toThrow(
      'BULWARK_DATABASE_REPLICA_URL needs a PostgreSQL BULWARK_DATABASE_URL (SQLite has no replicas)',
    )
    const postgres = { BULWARK_DATABASE_URL: 'postgres://tip@db:5432/tip' }
    expect(() => loadConfig({ ...postgres, BULWARK_DATABASE_REPLICA_URL: 'replica:5432' })).toThrow(
      'BULWARK_DATABASE_REPLICA_URL must be postgres:// URLs, separated by commas',
    )
    expect(() => loadConfig({ ...postgres, BULWARK_DATABASE_REPLICA_MAX_LAG_MS: '-1' })).toThrow(
      "BULWARK_DATABASE_REPLICA_MAX_LAG_MS must be a number of milliseconds, not '-1'",
    )
    expect(() => loadConfig({ ...postgres, BULWARK_DATABASE_REPLICA_WAIT_MS: '5000' })).toThrow(
      "BULWARK_DATABASE_REPLICA_WAIT_MS must be a number of milliseconds up to 1000, not '5000'",
    )
    expect(loadConfig({ ...postgres, BULWARK_DATABASE_REPLICA_URL: ' ' }).databaseReplicaUrls).toEqual([])
  })

  it('runs two batch jobs at once on PostgreSQL and one on SQLite, and refuses more than one on SQLite', () => {
    const postgres = { BULWARK_DATABASE_URL: 'postgres://tip@db:5432/tip' }
    expect(loadConfig(postgres).batchConcurrency).toBe(2)
    expect(loadConfig({ ...postgres, BULWARK_BATCH_CONCURRENCY: '1' }).batchConcurrency).toBe(1)
    expect(loadConfig({}).batchConcurrency).toBe(1)
    expect(() => loadConfig({ BULWARK_BATCH_CONCURRENCY: '2' })).toThrow(
      'BULWARK_BATCH_CONCURRENCY above 1 needs PostgreSQL: SQLite has one writer',
    )
    expect(() => loadConfig({ ...postgres, BULWARK_BATCH_CONCURRENCY: '0' })).toThrow(
      "BULWARK_BATCH_CONCURRENCY must be a whole number from 1 to 16, not '0'",
    )
  })

  it('refuses a port that is not a port number', () => {
    for (const port of ['http', '65536', '-1', '80.5']) {
      expect(() => loadConfig({ BULWARK_PORT: port })).toThrow(`BULWARK_PORT must be a port number, not '${port}'`)
    }
  })
})

describe('configuration mistakes stop the start with a clear message', () => {
  it('refuses a body limit that is not a number of bytes', () => {
    expect(() => loadConfig({ BULWARK_BODY_LIMIT: 'lots' })).toThrow(/BULWARK_BODY_LIMIT must be a number of bytes/)
  })

  it('refuses administrator credentials given only in part', () => {
    expect(() => loadConfig({ BULWARK_ADMIN_TOKEN: 'a-token-of-sufficient-length' })).toThrow(
      /Set all of BULWARK_ADMIN_ACCESS_ID/,
    )
  })
})

describe('the environment', () => {
  const SRC = new URL('.', import.meta.url).pathname

  /** Every .ts file of src/ but the test helpers (src/test/, *.test.ts), which read their own variables. */
  function sources(dir: string): string[] {
    return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) return path === join(SRC, 'test') ? [] : sources(path)
      return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : []
    })
  }

  it('is read by config.ts alone', () => {
    // Comments may name process.env; code may reach it as process.env, process['env'] or node:process's env.
    const reads =
      /\bprocess\s*(\.\s*env\b|\[\s*['"`]env['"`]\s*\])|\bimport\s*\{[^}]*\benv\b[^}]*\}\s*from\s*'(node:)?process'/
    const withoutComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)\/\/.*$/gm, '$1')
    const offending = sources(SRC)
      .filter((file) => relative(SRC, file) !== 'config.ts' && reads.test(withoutComments(readFileSync(file, 'utf8'))))
      .map((file) => relative(SRC, file))
    expect(offending, 'read the variable in config.ts and pass its value in').toEqual([])
  })
})

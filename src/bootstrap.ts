/**
 * What a node does before it serves: migrate, seed reference data, and on the very first
 * start create the default Organization and its administrator API account. Safe when
 * several nodes start at once on PostgreSQL (an advisory lock serializes them).
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import type { Config } from './config.js'
import { createAccessKey, createAccount, createOwner, issueApiToken } from './domain/access/accounts.js'
import { SecretBox } from './domain/access/credentials.js'
import { isoNow } from './core/time.js'
import { type Store, openStore } from './store/connect.js'
import { migrateToLatest } from './store/migrate.js'
import { withReadReplicas } from './store/replicas.js'
import { hasAnyOwner, seedReferenceDataOnce, withFirstStartLock } from './store/repositories/startup.repository.js'

export interface FirstStart {
  organization: string
  userName: string
  /** Where the generated credentials were written; absent when they came from the environment. */
  credentialsFile?: string
}

/** The configured database (its pool, pooling mode, listening URL and read replicas), as a node and the CLI open it. */
export function openConfiguredStore(config: Config): Store {
  return withReadReplicas(
    openStore(config.databaseUrl, {
      poolSize: config.databasePoolSize,
      pooling: config.databasePooling,
      listenUrl: config.databaseListenUrl,
    }),
    {
      urls: config.databaseReplicaUrls,
      maxLagMs: config.databaseReplicaMaxLagMs,
      waitMs: config.databaseReplicaWaitMs,
      poolSize: config.databasePoolSize,
    },
  )
}

export async function prepareDatabase(store: Store): Promise<void> {
  await migrateToLatest(store.db)
  await seedReferenceDataOnce(store, isoNow())
}

/** The server key: from the environment, else a file in the data directory made on first start. */
export function loadServerKey(config: Config): string {
  if (config.serverKey) return config.serverKey
  const file = join(config.dataDir, 'server.key')
  if (!existsSync(file)) {
    mkdirSync(config.dataDir, { recursive: true })
    writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' })
  }
  return readFileSync(file, 'utf8').trim()
}

/** Creates the default Organization and administrator once; returns undefined when owners already exist. */
export async function ensureFirstStart(store: Store, config: Config, box: SecretBox): Promise<FirstStart | undefined> {
  const run = async (db: Store['db']): Promise<FirstStart | undefined> => {
    if (await hasAnyOwner(db)) return undefined
    const now = isoNow()
    const { organization, userName } = config.admin
    await createOwner(db, { name: organization, type: 'Organization' }, now)
    await createAccount(
      db,
      {
        userName,
        kind: 'api',
        organization,
        role: 'Organization Administrator',
        systemRole: 'Administrator',
        firstName: 'Bulwark',
        lastName: 'Administrator',
      },
      now,
    )
    const key = await createAccessKey(db, box, userName, now, {
      accessId: config.admin.accessId,
      secretKey: config.admin.secretKey,
    })
    const token = await issueApiToken(db, userName, { token: config.admin.token }, Date.now())
    const fromEnvironment = !!(config.admin.accessId && config.admin.secretKey && config.admin.token)
    if (fromEnvironment) return { organization, userName }
    const credentialsFile = join(config.dataDir, 'admin-credentials.json')
    mkdirSync(config.dataDir, { recursive: true })
    writeFileSync(
      credentialsFile,
      `${JSON.stringify({ userName, organization, accessId: key.accessId, secretKey: key.secretKey, token: token.token }, null, 2)}\n`,
      { mode: 0o600 },
    )
    chmodSync(credentialsFile, 0o600)
    return { organization, userName, credentialsFile }
  }
  return withFirstStartLock(store, run)
}

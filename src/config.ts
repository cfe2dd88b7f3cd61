/**
 * Settings from the environment, with the defaults the README documents. Nothing else
 * reads process.env.
 */
import { join, resolve } from 'node:path'

export interface Config {
  host: string
  port: number
  dataDir: string
  databaseUrl: string
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
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = resolve(env.BULWARK_DATA_DIR ?? './data')
  const port = Number(env.BULWARK_PORT ?? 8443)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`BULWARK_PORT must be a port number, not '${env.BULWARK_PORT}'`)
  const tlsEnabled = (env.BULWARK_TLS ?? 'on').toLowerCase() !== 'off'
  const host = env.BULWARK_HOST ?? '0.0.0.0'
  const bodyLimitBytes = Number(env.BULWARK_BODY_LIMIT ?? 5 * 1024 * 1024)
  if (!Number.isInteger(bodyLimitBytes) || bodyLimitBytes < 1024) throw new Error(`BULWARK_BODY_LIMIT must be a number of bytes (at least 1024), not '${env.BULWARK_BODY_LIMIT}'`)
  const admin = [env.BULWARK_ADMIN_ACCESS_ID, env.BULWARK_ADMIN_SECRET_KEY, env.BULWARK_ADMIN_TOKEN]
  // Half-given credentials would leave the administrator with a mix of chosen and generated secrets.
  if (admin.some(Boolean) && !admin.every(Boolean)) {
    throw new Error('Set all of BULWARK_ADMIN_ACCESS_ID, BULWARK_ADMIN_SECRET_KEY and BULWARK_ADMIN_TOKEN, or none of them')
  }
  return {
    host,
    port,
    dataDir,
    databaseUrl: env.BULWARK_DATABASE_URL ?? `sqlite:${join(dataDir, 'bulwark.db')}`,
    publicUrl: env.BULWARK_PUBLIC_URL ?? `${tlsEnabled ? 'https' : 'http'}://localhost:${port}`,
    tls: { enabled: tlsEnabled, certFile: env.BULWARK_TLS_CERT, keyFile: env.BULWARK_TLS_KEY },
    trustedProxies: (env.BULWARK_TRUSTED_PROXIES ?? '').split(',').map((s) => s.trim()).filter(Boolean),
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
  }
}

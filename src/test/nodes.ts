/**
 * Bulwark nodes as real server processes (`node --import tsx src/main.ts`), for the tests of a
 * deployment: several nodes over one database, restarted, killed, behind a load balancer. Plain HTTP
 * on loopback (BULWARK_TLS off, 127.0.0.1 a trusted proxy), so requests say `X-Forwarded-Proto: https`
 * as a TLS-terminating proxy would.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { TEST_DB, createDatabase } from './harness.js'

const ROOT = join(import.meta.dirname, '..', '..')

export const NODE_TOKEN = 'deployment-admin-token-0123456789abcdef'

/** What a client of the nodes sends: the administrator's token, as if through a TLS-terminating proxy. */
export const NODE_HEADERS = {
  authorization: `TC-Token ${NODE_TOKEN}`,
  'x-forwarded-proto': 'https',
  'content-type': 'application/json',
}

export interface NodeProcess {
  port: number
  process: ChildProcess
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>
}

export interface Deployment {
  env: NodeJS.ProcessEnv
  /** Starts a node on `port` and resolves once its /api/ready answers 200. */
  start(port: number, extra?: NodeJS.ProcessEnv): Promise<NodeProcess>
  close(): Promise<void>
}

/** A database (PostgreSQL of its own, or an SQLite file) and the environment every node of it shares. */
export async function createDeployment(extra: NodeJS.ProcessEnv = {}): Promise<Deployment> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bulwark-deployment-'))
  const env: NodeJS.ProcessEnv = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BULWARK_'))),
    BULWARK_DATA_DIR: dataDir,
    BULWARK_HOST: '127.0.0.1',
    BULWARK_TLS: 'off',
    BULWARK_TRUSTED_PROXIES: '127.0.0.1',
    BULWARK_SECRET_KEY: 'shared-node-key',
    BULWARK_LOG_LEVEL: 'warn',
    BULWARK_SHUTDOWN_TIMEOUT_MS: '5000',
    BULWARK_ADMIN_ACCESS_ID: '12345678901234567890',
    BULWARK_ADMIN_SECRET_KEY: 'deployment-secret-key-0123456789abcd',
    BULWARK_ADMIN_TOKEN: NODE_TOKEN,
    ...extra,
  }
  let dropDatabase = async () => {}
  if (TEST_DB === 'postgres') {
    const database = await createDatabase()
    env.BULWARK_DATABASE_URL = database.url
    dropDatabase = database.drop
  }
  const started: NodeProcess[] = []
  return {
    env,
    async start(port, more = {}) {
      const node = await startNodeProcess({ ...env, ...more, BULWARK_PORT: String(port) }, port)
      started.push(node)
      return node
    },
    async close() {
      for (const node of started) if (node.process.exitCode === null) node.process.kill('SIGKILL')
      await Promise.all(started.map((n) => n.exited))
      await dropDatabase()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** Starts `src/main.ts` with `env` (which names the port) and resolves once its /api/ready answers 200 on `port`. */
export async function startNodeProcess(env: NodeJS.ProcessEnv, port: number): Promise<NodeProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr!.on('data', (chunk) => {
    stderr += chunk
  })
  let gone = false
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      gone = true
      resolve(code)
    }),
  )
  for (let i = 0; i < 600 && !gone; i++) {
    const ready = await fetch(`http://127.0.0.1:${port}/api/ready`).then(
      (r) => r.status,
      () => 0,
    )
    if (ready === 200) return { port, process: child, exited }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  child.kill('SIGKILL')
  throw new Error(`node on port ${port} did not become ready: ${stderr}`)
}

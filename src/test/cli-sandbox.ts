/**
 * The real `bulwark` executable, run the way an administrator would, in a sandbox of its own: a
 * temporary folder, an environment without the test runner's BULWARK_* settings and, on
 * PostgreSQL, a database of its own.
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { TEST_DB, createDatabase } from './harness.js'

/** The executable an administrator runs. */
export const BIN = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'bulwark.mjs')

export interface CliRun {
  status: number | null
  stdout: string
  stderr: string
}

export interface CliSandbox {
  /** The temporary folder; removed by close(). */
  root: string
  env: NodeJS.ProcessEnv
  run(args: string[], options?: { input?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv }): CliRun
  /**
   * The same run without blocking the test's event loop: for suites of long runs (imports, exports),
   * where seconds of blocking in a row make vitest's worker miss its own RPC deadline.
   */
  runAsync(args: string[], options?: { timeoutMs?: number; env?: NodeJS.ProcessEnv }): Promise<CliRun>
  close(): Promise<void>
}

/** `dataDir`, relative to the sandbox folder, becomes BULWARK_DATA_DIR; without it each run names its own. */
export async function createCliSandbox(prefix: string, options: { dataDir?: string } = {}): Promise<CliSandbox> {
  const root = mkdtempSync(join(tmpdir(), prefix))
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BULWARK_')))
  if (options.dataDir !== undefined) env.BULWARK_DATA_DIR = join(root, options.dataDir)
  const database = TEST_DB === 'postgres' ? await createDatabase() : undefined
  if (database) env.BULWARK_DATABASE_URL = database.url
  return {
    root,
    env,
    run(args, { input, timeoutMs = 60_000, env: extra } = {}) {
      const result = spawnSync(process.execPath, [BIN, ...args], {
        env: { ...env, ...extra },
        input,
        encoding: 'utf8',
        timeout: timeoutMs,
      })
      return { status: result.status, stdout: result.stdout, stderr: result.stderr }
    },
    runAsync(args, { timeoutMs = 60_000, env: extra } = {}) {
      return new Promise((resolvePromise, reject) => {
        const child = spawn(process.execPath, [BIN, ...args], {
          env: { ...env, ...extra },
          stdio: ['ignore', 'pipe', 'pipe'],
        })
        let stdout = ''
        let stderr = ''
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          stdout += chunk
        })
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
          stderr += chunk
        })
        const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
        child.on('error', (error) => {
          clearTimeout(timer)
          reject(error)
        })
        child.on('close', (status) => {
          clearTimeout(timer)
          resolvePromise({ status, stdout, stderr })
        })
      })
    },
    async close() {
      await database?.drop()
      rmSync(root, { recursive: true, force: true })
    },
  }
}

/**
 * The real clients of the interface (the platform's SDKs, TAXII clients, STIX validators),
 * driven from the test suite so that CI runs them. Their sources live outside every repository,
 * put together once per machine (docs/real-clients.md, "Setting up the clients"). Each client
 * run is a Python script beside the test that uses it; it talks to a test app created with
 * `createTestApp({ listen: true })` and prints one JSON document as its last line of output.
 *
 * Like the other test helpers, this module reads its own variables (BULWARK_CLIENTS_DIR,
 * BULWARK_CLIENTS_PYTHON, BULWARK_SCHEMAS_DIR) from process.env: they choose what the tests
 * run against, not how a server behaves, so they are not part of src/config.ts.
 */
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect } from 'vitest'

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')

/** Where ../shared/clients/setup.sh puts the clients unless told otherwise: the user's cache folder. */
export const DEFAULT_CLIENTS_DIR = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'bulwark-clients')

export const CLIENTS_DIR = process.env.BULWARK_CLIENTS_DIR || DEFAULT_CLIENTS_DIR

/**
 * The machine's shared folder beside the repository (schemas, research notes, the clients' set-up
 * kit). A git worktree sits elsewhere than its repository, so the folder beside the main checkout
 * counts too.
 */
export const SHARED_DIR =
  [REPO_ROOT, mainCheckout(REPO_ROOT)].map((root) => resolve(root, '..', 'shared')).find((dir) => existsSync(dir)) ??
  resolve(REPO_ROOT, '..', 'shared')

/** The STIX and TAXII schemas stay in the shared folder wherever the clients were put: BULWARK_CLIENTS_DIR does not move them. */
export const SCHEMAS_DIR = process.env.BULWARK_SCHEMAS_DIR || join(SHARED_DIR, 'schemas')

/** The checkout a git worktree was added to (its .git is a file naming a folder of the main .git), or `root` itself. */
function mainCheckout(root: string): string {
  try {
    const gitDir = /^gitdir: (.+)$/m.exec(readFileSync(join(root, '.git'), 'utf8'))?.[1]
    if (!gitDir) return root
    return dirname(resolve(gitDir, readFileSync(join(gitDir, 'commondir'), 'utf8').trim()))
  } catch {
    return root
  }
}

/** Debian's interpreter, with the client dependencies `.ci/run` installs from apt-packages.txt. */
export const PYTHON = process.env.BULWARK_CLIENTS_PYTHON ?? '/usr/bin/python3'

/**
 * Why the real-client runs cannot happen here, or undefined when they can. Only a machine
 * where the clients were never put together skips them; a missing Python package fails the
 * run instead, so a machine that has the clients never passes without having run them.
 */
export function realClientsUnavailable(): string | undefined {
  if (!existsSync(resolve(CLIENTS_DIR, 'clients.py'))) {
    return (
      `real-client runs skipped: ${CLIENTS_DIR} has no clients.py. Fetch each repository of ../shared/clients/SOURCES.txt, ` +
      'run ../shared/clients/setup.sh and set BULWARK_CLIENTS_DIR to the folder it prints (README, "Real clients"; docs/real-clients.md)'
    )
  }
  return undefined
}

/** Says once, on the test output, why a suite of real-client runs is skipped. */
export function announceSkip(suite: string): boolean {
  const reason = realClientsUnavailable()
  if (reason) console.warn(`${suite}: ${reason}`)
  return reason !== undefined
}

export interface ClientRun<T> {
  /** The JSON document the script printed last. */
  result: T
  stdout: string
  stderr: string
}

/**
 * Runs a client script with Debian's python3. The script finds the client trees through
 * BULWARK_CLIENTS_DIR (`sys.path.insert(0, os.environ["BULWARK_CLIENTS_DIR"]); import clients`)
 * and its target through the variables in `env`. A non-zero exit rejects with the script's
 * standard error, so a failing client shows why.
 */
export function runClientScript<T = unknown>(
  script: string,
  env: Record<string, string>,
  timeoutMs = 120_000,
): Promise<ClientRun<T>> {
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    BULWARK_CLIENTS_DIR: CLIENTS_DIR,
    PYTHONDONTWRITEBYTECODE: '1',
    PYTHONUNBUFFERED: '1',
    ...env,
  }
  // requests ignores verify=False while either of these is set (clients README).
  delete childEnv.REQUESTS_CA_BUNDLE
  delete childEnv.CURL_CA_BUNDLE
  return new Promise((resolvePromise, reject) => {
    const child = spawn(PYTHON, [script], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] })
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
      reject(new Error(`could not run ${PYTHON}: ${error.message}`))
    })
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      if (code !== 0) {
        const why = signal ? `was killed (${signal}) after ${timeoutMs} ms` : `exited with ${code}`
        reject(
          new Error(`${script} ${why}\n--- stderr ---\n${stderr.slice(-6000)}\n--- stdout ---\n${stdout.slice(-2000)}`),
        )
        return
      }
      const last = stdout.trim().split('\n').pop() ?? ''
      try {
        resolvePromise({ result: JSON.parse(last) as T, stdout, stderr })
      } catch {
        reject(
          new Error(
            `${script} did not end with a JSON line\n--- stdout ---\n${stdout.slice(-2000)}\n--- stderr ---\n${stderr.slice(-2000)}`,
          ),
        )
      }
    })
  })
}

/** One check a client script ran: the value it read, or the client's own error and trace. */
export interface ClientCheck {
  ok: boolean
  value?: any
  error?: string
  trace?: string
}

/** The value of a check that must have passed; a failed check shows the client's error and trace. */
export function passedCheck(checks: Record<string, ClientCheck>, name: string): any {
  const check = checks[name]
  expect(check, `check '${name}' did not run`).toBeDefined()
  expect(check.ok, `${name}: ${check.error}\n${check.trace}`).toBe(true)
  return check.value
}

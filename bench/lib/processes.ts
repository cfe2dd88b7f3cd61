/** Child servers for benchmarks: start, wait until they answer HTTPS, stop. */
import { type ChildProcess, spawn } from 'node:child_process'
import { closeSync, openSync, readFileSync } from 'node:fs'
import { request } from 'node:https'
import { createServer } from 'node:net'
import { join } from 'node:path'

export const ROOT = join(import.meta.dirname, '..', '..')

export interface ChildServer {
  port: number
  child: ChildProcess
  /** CPU time (user + system, all threads) the server has used so far, in µs; undefined off Linux. */
  cpuMicros(): number | undefined
  stop(): Promise<void>
}

/** Linux only: utime + stime from /proc/<pid>/stat, in clock ticks of 10 ms. */
export function readCpuMicros(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) * 10_000
  } catch {
    return undefined
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
      .listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number }
        server.close(() => resolve(port))
      })
      .on('error', reject)
  })
}

/** The node flags `npm start` gives the server (package.json), which benchmarks give it too. */
export const START_NODE_FLAGS: readonly string[] = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.start as string
)
  .split(/\s+/)
  .filter((word) => word.startsWith('--'))

/** The Bulwark server's entry point; startServer runs it through `npm start`'s script. */
export const SERVER = 'src/main.ts'

/**
 * Starts `node --import tsx <script>`, or for the Bulwark server `node scripts/start.mjs` (one process
 * either way, so --cpu-prof sees the server itself),
 * with output going to logFile, and resolves once the port answers any HTTPS request.
 */
export async function startServer(
  script: string,
  env: NodeJS.ProcessEnv,
  logFile: string,
  nodeArgs: string[] = [],
): Promise<ChildServer> {
  const port = Number(env.BULWARK_PORT ?? env.BENCH_PORT)
  const log = openSync(logFile, 'a')
  // The server runs as `npm start` runs it (compiled, no transpiler, its node flags), so start, RSS and CPU are what
  // users get; a benchmark's own flags come after npm start's, so they win where both set one.
  const args =
    script === SERVER
      ? [...START_NODE_FLAGS, ...nodeArgs, join(ROOT, 'scripts/start.mjs')]
      : [...nodeArgs, '--import', 'tsx', join(ROOT, script)]
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', log, log] })
  closeSync(log)
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`${script} exited with code ${code}; see ${logFile}`))),
  )
  await Promise.race([waitForHttps(port), exited])
  return {
    port,
    child,
    cpuMicros: () => readCpuMicros(child.pid),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  }
}

async function waitForHttps(port: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const answered = await new Promise<boolean>((resolve) => {
      const req = request(
        { host: '127.0.0.1', port, path: '/', method: 'GET', rejectUnauthorized: false, timeout: 1000 },
        (res) => {
          res.resume()
          resolve(true)
        },
      )
      req
        .on('error', () => resolve(false))
        .on('timeout', () => {
          req.destroy()
          resolve(false)
        })
      req.end()
    })
    if (answered) return
    await new Promise((r) => setTimeout(r, 200))
  }
  throw new Error(`Nothing answered on port ${port} within ${timeoutMs} ms`)
}

export interface CliRun {
  status: number | null
  stdout: string
  stderr: string
  seconds: number
  /** The highest RSS sampled every 100 ms, in MB. */
  peakRssMb: number
}

/**
 * Runs `bulwark <args>` as `npx bulwark` does: the executable itself, so its first line's node
 * options (the heap limit) apply, with its RSS sampled as it runs.
 */
export async function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<CliRun> {
  const started = performance.now()
  const child = spawn(join(ROOT, 'bin', 'bulwark.mjs'), args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c))
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c))
  let peakKb = 0
  const sampler = setInterval(() => {
    try {
      const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1]
      if (kb) peakKb = Math.max(peakKb, Number(kb))
    } catch {
      // The process has ended.
    }
  }, 100)
  const status = await new Promise<number | null>((resolve) => child.on('close', resolve))
  clearInterval(sampler)
  return {
    status,
    stdout,
    stderr,
    seconds: (performance.now() - started) / 1000,
    peakRssMb: Math.round(peakKb / 1024),
  }
}

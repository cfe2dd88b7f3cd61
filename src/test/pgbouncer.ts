/**
 * A PgBouncer of the test's own on a free loopback port, in front of the test PostgreSQL server
 * (POSTGRES_ADMIN_URL's host and port), as operators run one: Debian's /usr/sbin/pgbouncer (1.18),
 * trust authentication for the users of an auth file. Tests skip with PGBOUNCER_MISSING when the
 * binary is not installed (.ci/run installs Debian's package).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { POSTGRES_ADMIN_URL, freeLoopbackPort } from './harness.js'

export const PGBOUNCER = process.env.BULWARK_TEST_PGBOUNCER ?? '/usr/sbin/pgbouncer'
export const PGBOUNCER_MISSING = existsSync(PGBOUNCER)
  ? undefined
  : `${PGBOUNCER} is not installed (apt-get install pgbouncer; .ci/run does): the PgBouncer tests are skipped`

export interface PgBouncer {
  port: number
  /** `url` with its host and port replaced by the bouncer's. */
  urlFor(url: string): string
  /** Stops serving new clients' queries until resume() (PgBouncer's PAUSE, through its admin console). */
  admin(command: string): Promise<void>
  /** Points every database at another server (a promoted replica) and reloads: what an operator's failover does. */
  retarget(url: string): Promise<void>
  /** What the bouncer logged. */
  log(): string
  stop(): Promise<void>
}

export async function startPgBouncer(
  options: { poolMode?: 'transaction' | 'session'; poolSize?: number; port?: number; target?: string } = {},
): Promise<PgBouncer> {
  const dir = mkdtempSync(join(tmpdir(), 'bulwark-pgbouncer-'))
  // PgBouncer refuses to run as root; it drops to `nobody`, who must write its log here.
  chmodSync(dir, 0o777)
  const port = options.port ?? (await freeLoopbackPort())
  // The server it pools: the test server unless another URL is given (a cluster of the test's own).
  const target = new URL(options.target ?? POSTGRES_ADMIN_URL)
  const users = ['root', 'postgres', decodeURIComponent(target.username)].filter(Boolean)
  writeFileSync(join(dir, 'users.txt'), [...new Set(users)].map((u) => `"${u}" ""`).join('\n') + '\n', { mode: 0o644 })
  const databases = (server: URL) => `[databases]
* = host=${server.hostname} port=${server.port || 5432}
`
  const ini = `${databases(target)}
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = trust
auth_file = ${join(dir, 'users.txt')}
admin_users = ${users[0]}
pool_mode = ${options.poolMode ?? 'transaction'}
default_pool_size = ${options.poolSize ?? 4}
max_client_conn = 500
logfile = ${join(dir, 'pgbouncer.log')}
pidfile = ${join(dir, 'pgbouncer.pid')}
ignore_startup_parameters = extra_float_digits,options
server_login_retry = 1
`
  writeFileSync(join(dir, 'pgbouncer.ini'), ini, { mode: 0o644 })
  const user = process.getuid?.() === 0 ? ['-u', 'nobody'] : []
  const child: ChildProcess = spawn(PGBOUNCER, [...user, join(dir, 'pgbouncer.ini')], { stdio: 'ignore' })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  await waitForPort(port, child)
  const log = () => {
    try {
      return readFileSync(join(dir, 'pgbouncer.log'), 'utf8')
    } catch {
      return ''
    }
  }
  const bouncer: PgBouncer = {
    port,
    urlFor(url) {
      const u = new URL(url)
      u.hostname = '127.0.0.1'
      u.port = String(port)
      return u.toString()
    },
    async admin(command) {
      const pg = (await import('pg')).default
      const client = new pg.Client({ host: '127.0.0.1', port, user: users[0], database: 'pgbouncer' })
      await client.connect()
      try {
        await client.query(command)
      } finally {
        await client.end()
      }
    },
    async retarget(url) {
      const file = join(dir, 'pgbouncer.ini')
      const text = readFileSync(file, 'utf8')
      writeFileSync(file, databases(new URL(url)) + text.slice(text.indexOf('\n[pgbouncer]')), { mode: 0o644 })
      await bouncer.admin('RELOAD')
    },
    log,
    async stop() {
      if (child.exitCode === null) child.kill('SIGINT')
      await exited
      rmSync(dir, { recursive: true, force: true })
    },
  }
  return bouncer
}

async function waitForPort(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 10_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited with ${child.exitCode} before listening`)
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1')
      socket.once('connect', () => {
        socket.destroy()
        resolve(true)
      })
      socket.once('error', () => resolve(false))
    })
    if (open) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`pgbouncer did not listen on ${port} within 10 s`)
}

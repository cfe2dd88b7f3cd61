/**
 * A PostgreSQL cluster of the test's own, on a free loopback port, that the test may stop, restart
 * and start again without touching the shared server: Debian's binaries (/usr/lib/postgresql/<n>/bin),
 * run as the `postgres` user when the test runs as root, trust authentication, fsync off.
 * Tests skip with PG_CLUSTER_MISSING when no initdb is found.
 */
import { execFile, execFileSync } from 'node:child_process'
import { promisify } from 'node:util'
import { appendFileSync, chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freeLoopbackPort } from './harness.js'

const ROOT = '/usr/lib/postgresql'
const BIN = existsSync(ROOT)
  ? readdirSync(ROOT)
      .filter((v) => existsSync(join(ROOT, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a))
      .map((v) => join(ROOT, v, 'bin'))[0]
  : undefined

export const PG_CLUSTER_MISSING = BIN ? undefined : `no initdb under ${ROOT}: the PostgreSQL restart tests are skipped`

export interface PgCluster {
  port: number
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string
  /** The server's log (pg_ctl -l): with `logStatements`, every statement it ran. */
  logFile: string
  /** pg_ctl restart -m fast, run beside the event loop so the node under test keeps serving meanwhile. */
  restart(): Promise<void>
  /** pg_ctl stop: `fast` (the default) or `immediate` (a crash: no shutdown checkpoint). */
  stop(mode?: 'fast' | 'immediate'): Promise<void>
  start(): Promise<void>
  destroy(): void
}

export interface PgReplica extends PgCluster {
  /** pg_ctl promote: the replica leaves recovery and takes writes. */
  promote(): Promise<void>
}

export interface PgClusterOptions {
  /** Commits wait for the WAL flush, as in production (the default cluster skips it for speed). */
  synchronousCommit?: boolean
  /** log_statement = all: which server ran a statement is then read off its log. */
  logStatements?: boolean
}

export async function startPgCluster(options: PgClusterOptions = {}): Promise<PgCluster> {
  if (!BIN) throw new Error(PG_CLUSTER_MISSING)
  const { dir, data, run } = await clusterDir()
  run('initdb', ['-D', data, '--auth=trust', '--username=postgres', '--no-sync', '-E', 'UTF8'])
  return startIn(dir, data, run, options, [])
}

/**
 * A streaming replica of `primary` (a cluster of startPgCluster, whose initdb allows loopback
 * replication connections with trust), on its own loopback port: pg_basebackup -R, hot standby.
 */
export async function startPgReplica(primary: PgCluster, options: PgClusterOptions = {}): Promise<PgReplica> {
  const { dir, data, run } = await clusterDir()
  run('pg_basebackup', [
    '-h',
    '127.0.0.1',
    '-p',
    String(primary.port),
    '-U',
    'postgres',
    '-D',
    data,
    '-R',
    '-X',
    'stream',
  ])
  const cluster = await startIn(dir, data, run, options, ['hot_standby = on'])
  return { ...cluster, promote: () => cluster.ctl('promote') }
}

type Run = (tool: string, args: string[]) => void

const asRoot = process.getuid?.() === 0

async function clusterDir(): Promise<{ dir: string; data: string; run: Run }> {
  if (!BIN) throw new Error(PG_CLUSTER_MISSING)
  const bin = BIN
  const dir = mkdtempSync(join(tmpdir(), 'bulwark-pg-'))
  const data = join(dir, 'data')
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim())
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim())
    chownSync(dir, uid, gid)
  }
  chmodSync(dir, 0o700)
  const run = (tool: string, args: string[]) =>
    execFileSync(
      asRoot ? 'runuser' : join(bin, tool),
      asRoot ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args,
      {
        stdio: 'ignore',
        cwd: dir,
      },
    )
  return { dir, data, run }
}

async function startIn(
  dir: string,
  data: string,
  run: Run,
  options: PgClusterOptions,
  extra: string[],
): Promise<PgCluster & { ctl(...args: string[]): Promise<void> }> {
  const port = await freeLoopbackPort()
  // Appended: pg_basebackup -R leaves the primary's connection settings (primary_conninfo) there.
  appendFileSync(
    join(data, 'postgresql.auto.conf'),
    [
      '',
      `port = ${port}`,
      `listen_addresses = '127.0.0.1'`,
      `unix_socket_directories = '${dir}'`,
      'fsync = off',
      `synchronous_commit = ${options.synchronousCommit ? 'on' : 'off'}`,
      'full_page_writes = off',
      'shared_buffers = 32MB',
      'max_connections = 60',
      ...(options.logStatements ? [`log_statement = 'all'`] : []),
      ...extra,
      '',
    ].join('\n'),
  )
  const logFile = join(dir, 'log')
  const ctlArgs = (...args: string[]) => ['-D', data, '-l', logFile, '-w', '-t', '30', ...args]
  const ctl = (...args: string[]) => run('pg_ctl', ctlArgs(...args))
  const ctlAsync = async (...args: string[]) => {
    const tool = join(BIN!, 'pg_ctl')
    await promisify(execFile)(
      asRoot ? 'runuser' : tool,
      asRoot ? ['-u', 'postgres', '--', tool, ...ctlArgs(...args)] : ctlArgs(...args),
      {
        cwd: dir,
      },
    )
  }
  ctl('start')
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    logFile,
    restart: () => ctlAsync('restart', '-m', 'fast'),
    stop: (mode = 'fast') => ctlAsync('stop', '-m', mode),
    start: () => ctlAsync('start'),
    ctl: (...args: string[]) => ctlAsync(...args),
    destroy() {
      try {
        ctl('stop', '-m', 'immediate')
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/**
 * Backup and restore of the whole database. SQLite: the online backup API, a consistent copy
 * while the server keeps writing; restore checks the copy, then swaps the file in (every node
 * stopped). PostgreSQL: pg_dump's custom format and pg_restore, the tools that ship with it; the
 * password stays out of their command line.
 */
import { spawn } from 'node:child_process'
import { chmodSync, closeSync, copyFileSync, existsSync, openSync, renameSync, rmSync, statSync } from 'node:fs'
import SqliteDatabase from 'better-sqlite3'
import { childEnvironment } from '../config.js'
import type { Store } from './connect.js'

export type BackupResult = {
  database: 'sqlite' | 'postgres'
  file: string
  bytes: number
}

/**
 * Writes a consistent copy of the store's database to `file` (mode 0600).
 * @example await backupDatabase(store, 'postgres://bulwark@db/bulwark', '/backups/2026-11-24.dump')
 */
export async function backupDatabase(store: Store, url: string, file: string): Promise<BackupResult> {
  if (existsSync(file)) throw new Error(`${file} exists already; choose a new file`)
  // Made 0600 before anything is written into it: a backup holds everything the database does.
  closeSync(openSync(file, 'wx', 0o600))
  try {
    if (store.sqlite) {
      await store.sqlite.backup(file)
    } else {
      const { args, env } = postgresTarget(url)
      await run('pg_dump', ['--format=custom', '--no-owner', `--file=${file}`, ...args], env)
    }
  } catch (error) {
    rmSync(file, { force: true })
    throw error
  }
  chmodSync(file, 0o600)
  return { database: store.sqlite ? 'sqlite' : 'postgres', file, bytes: statSync(file).size }
}

/**
 * Replaces the database named by `url` with the backup in `file`. Every node must be stopped:
 * a running node keeps writing to the database being replaced.
 */
export async function restoreDatabase(url: string, file: string): Promise<BackupResult> {
  if (!existsSync(file)) throw new Error(`${file} does not exist`)
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length)
    if (path === ':memory:') throw new Error('An in-memory database cannot be restored')
    checkSqliteBackup(file)
    const incoming = `${path}.restoring`
    copyFileSync(file, incoming)
    chmodSync(incoming, 0o600)
    // The old database's write-ahead log must not be replayed onto the restored file.
    for (const stale of [`${path}-wal`, `${path}-shm`, `${path}-journal`]) rmSync(stale, { force: true })
    renameSync(incoming, path)
    return { database: 'sqlite', file, bytes: statSync(path).size }
  }
  const { args, env } = postgresTarget(url)
  await run(
    'pg_restore',
    ['--clean', '--if-exists', '--no-owner', '--single-transaction', '--exit-on-error', ...args, file],
    env,
  )
  return { database: 'postgres', file, bytes: statSync(file).size }
}

function checkSqliteBackup(file: string): void {
  let db: SqliteDatabase.Database | undefined
  try {
    db = new SqliteDatabase(file, { readonly: true, fileMustExist: true })
    const check = db.pragma('quick_check', { simple: true })
    if (check !== 'ok') throw new Error(`the file fails SQLite's check: ${String(check)}`)
    db.prepare('select count(*) from kysely_migration').get()
  } catch (error) {
    throw new Error(`${file} is not a Bulwark SQLite backup: ${(error as Error).message}`)
  } finally {
    db?.close()
  }
}

/** pg_dump/pg_restore arguments for a postgres:// URL, the password passed in the environment. */
function postgresTarget(url: string): { args: string[]; env: NodeJS.ProcessEnv } {
  const u = new URL(url)
  const password = decodeURIComponent(u.password)
  u.password = ''
  return { args: [`--dbname=${u.toString()}`], env: childEnvironment(password ? { PGPASSWORD: password } : {}) }
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (chunk) => {
      stderr += chunk
    })
    child.once('error', (error) =>
      reject(new Error(`${command} could not be run (${error.message}); install the PostgreSQL client tools`)),
    )
    child.once('exit', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`${command} failed (exit ${code}): ${stderr.trim().split('\n').slice(-3).join(' ')}`)),
    )
  })
}

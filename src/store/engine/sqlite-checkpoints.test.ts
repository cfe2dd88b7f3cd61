import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterEach, describe, expect, it } from 'vitest'
import SqliteDatabase from 'better-sqlite3'
import { CHECKPOINT_EVERY_MS, checkpointIfDue, stopCheckpoints } from './sqlite-checkpoints.js'

const dirs: string[] = []
const opened: SqliteDatabase.Database[] = []

afterEach(async () => {
  for (const db of opened.splice(0)) {
    await stopCheckpoints(db)
    db.close()
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A WAL database as store/connect.ts opens it, with a table and `rows` rows of 1 kB written in one commit. */
function walDatabase(rows: number): { db: SqliteDatabase.Database; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'bulwark-checkpoints-'))
  dirs.push(dir)
  const path = join(dir, 'store.db')
  const db = new SqliteDatabase(path)
  opened.push(db)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  db.pragma('wal_autocheckpoint = 0')
  db.exec('create table t (id integer primary key, body text)')
  write(db, rows)
  return { db, path }
}

function write(db: SqliteDatabase.Database, rows: number) {
  const insert = db.prepare('insert into t (body) values (?)')
  db.transaction(() => {
    for (let i = 0; i < rows; i++) insert.run('x'.repeat(1000))
  })()
}

/** Writes a few rows; true when the log file did not grow, that is when they went to the start of a restarted log. */
function logRestarted(db: SqliteDatabase.Database, path: string): boolean {
  const before = statSync(`${path}-wal`).size
  write(db, 10)
  return statSync(`${path}-wal`).size === before
}

describe('SQLite checkpoints between batch chunks', () => {
  it(`copies the log back in a worker once ${CHECKPOINT_EVERY_MS} ms have passed, and the next write starts the log over`, async () => {
    const { db, path } = walDatabase(2000)
    expect(logRestarted(db, path)).toBe(false)
    const walBytes = statSync(`${path}-wal`).size
    expect(walBytes).toBeGreaterThan(2_000_000)

    await checkpointIfDue(db)
    // Too soon after the checkpointer was first asked: nothing copied, the log grows on.
    write(db, 10)
    expect(statSync(`${path}-wal`).size).toBeGreaterThan(walBytes)

    await sleep(CHECKPOINT_EVERY_MS + 20)
    await checkpointIfDue(db)
    // Every frame copied, so the next transaction writes from the start of the log: the file stops growing.
    expect(logRestarted(db, path)).toBe(true)
    expect((db.prepare('select count(*) as n from t').get() as { n: number }).n).toBe(2030)
  })

  it('shares one checkpoint between callers that ask at once', async () => {
    const { db, path } = walDatabase(500)
    await checkpointIfDue(db)
    await sleep(CHECKPOINT_EVERY_MS + 20)
    write(db, 500)
    const first = checkpointIfDue(db)
    const second = checkpointIfDue(db)
    expect(second).toBe(first)
    await Promise.all([first, second])
    expect(logRestarted(db, path)).toBe(true)
  })

  it('does nothing for an in-memory database or when no database is given', async () => {
    const db = new SqliteDatabase(':memory:')
    opened.push(db)
    await sleep(CHECKPOINT_EVERY_MS + 20)
    await checkpointIfDue(db)
    await checkpointIfDue(undefined)
    await stopCheckpoints(db)
  })
})

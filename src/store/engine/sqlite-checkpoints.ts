/**
 * SQLite's WAL checkpoints, run off the event loop during batch jobs. With `wal_autocheckpoint` at 10,000 pages
 * (store/connect.ts says why so many), about every tenth chunk's COMMIT copied 40 MB of the log back into the
 * database before it returned: 70–100 ms in which the node's one event loop served nothing, and a TQL search
 * arriving meanwhile waited it out (issue 28, point 5: those commits were the whole tail of its p99 during a load).
 *
 * A batch job now asks for a checkpoint between its chunks once CHECKPOINT_EVERY_MS have passed since the last:
 * a worker thread with a connection of its own runs it (PASSIVE) while this thread goes on serving requests, and
 * the job waits for it before its next chunk, so no frames are added meanwhile and the job's next write starts the
 * log over. The same pages are copied as before, at about the same interval, so the job pays what it did; only the
 * requests stop paying for it. Every other writer keeps the autocheckpoint, which these checkpoints keep from
 * coming due during a job. The worker starts with the first job's checkpoint and ends with the store. Should it
 * fail to start or to run, the job goes on without it and the autocheckpoint does the work as before.
 */
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import type SqliteDatabase from 'better-sqlite3'

/**
 * How often a running batch job checkpoints: about 4,000 pages of log at a realistic load's rate, well before the
 * autocheckpoint's 10,000.
 */
export const CHECKPOINT_EVERY_MS = 100

/** The worker's whole program: open the database, checkpoint on each message, answer with the outcome. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
const db = new Database(workerData.path, { fileMustExist: true })
db.pragma('synchronous = NORMAL')
parentPort.on('message', () => {
  try {
    const [outcome] = db.pragma('wal_checkpoint(PASSIVE)')
    parentPort.postMessage({ ok: true, frames: outcome.log, copied: outcome.checkpointed })
  } catch (error) {
    parentPort.postMessage({ ok: false, message: String(error && error.message) })
  }
})
`

interface Checkpointer {
  worker?: Worker
  /** The checkpoint running now, which a second caller waits for instead of asking again. */
  running?: Promise<void>
  lastAt: number
  broken: boolean
}

const checkpointers = new WeakMap<SqliteDatabase.Database, Checkpointer>()

function checkpointerOf(sqlite: SqliteDatabase.Database): Checkpointer {
  let c = checkpointers.get(sqlite)
  if (!c) {
    c = { lastAt: performance.now(), broken: sqlite.memory }
    checkpointers.set(sqlite, c)
  }
  return c
}

function startWorker(c: Checkpointer, sqlite: SqliteDatabase.Database): Worker {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3')
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, path: sqlite.name } })
  // A node shutting down waits for its requests and jobs, not for an idle checkpointer.
  worker.unref()
  worker.on('error', () => (c.broken = true)).on('exit', () => (c.broken = true))
  return worker
}

function checkpointInWorker(c: Checkpointer, sqlite: SqliteDatabase.Database): Promise<void> {
  const worker = (c.worker ??= startWorker(c, sqlite))
  return new Promise<void>((resolve) => {
    const done = (failed: boolean) => {
      worker.off('message', onMessage).off('error', onEnd).off('exit', onEnd)
      if (failed) c.broken = true
      resolve()
    }
    const onMessage = (outcome: { ok: boolean }) => done(!outcome.ok)
    const onEnd = () => done(true)
    worker.on('message', onMessage).on('error', onEnd).on('exit', onEnd)
    worker.postMessage('checkpoint')
  })
}

/**
 * Between a batch job's chunks (after a commit, before the next write): checkpoints in the worker when
 * CHECKPOINT_EVERY_MS have passed since the last, and resolves when it is done. Does nothing on PostgreSQL,
 * an in-memory database, or once the worker has failed.
 */
export function checkpointIfDue(sqlite: SqliteDatabase.Database | undefined): Promise<void> {
  if (!sqlite) return DONE
  const c = checkpointerOf(sqlite)
  if (c.running) return c.running
  if (c.broken || performance.now() - c.lastAt < CHECKPOINT_EVERY_MS) return DONE
  c.running = checkpointInWorker(c, sqlite).finally(() => {
    c.running = undefined
    c.lastAt = performance.now()
  })
  return c.running
}

const DONE = Promise.resolve()

/** Ends the store's checkpointer, if it started one (the store is closing). */
export async function stopCheckpoints(sqlite: SqliteDatabase.Database | undefined): Promise<void> {
  const c = sqlite && checkpointers.get(sqlite)
  if (!c?.worker) return
  const worker = c.worker
  c.worker = undefined
  c.broken = true
  await worker.terminate()
}

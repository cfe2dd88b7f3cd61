/**
 * Consecutive chunks of a batch job committed together, on a SQLite file database. A commit writes every page the
 * transaction changed into the log, and a chunk's rows land on random leaves of the summary, hash and tag indexes:
 * a 20 ms chunk of about 100 realistic Indicators wrote as many pages per index as rows, and the commits took 12 % of
 * a load's time, with the checkpoints that copied those pages back. A group of chunks writes a leaf it changed
 * several times once. Each chunk stays short, with requests served between chunks, and runs in a savepoint of the
 * group, so a chunk that fails is undone alone and retried as before (run-job.ts).
 *
 * While a group is open the writing connection is locked: reads beside it go to the store's reading connection
 * (store/engine/sqlite-driver.ts) and see the last commit, and a write waits for the group to commit, which it does
 * at the end of the chunk in hand once anyone waits. A store without a reading connection (`:memory:`), and
 * PostgreSQL, whose chunks are large already and whose open transactions would hold row locks other writers wait
 * for, commit each chunk alone.
 */
import type { ControlledTransaction, Kysely } from 'kysely'
import type { Store } from '../../store/connect.js'
import type { Database } from '../../store/database.js'
import { inTransaction } from '../transaction.js'

/** The longest a group holds the writing connection, from its first chunk to its commit. */
export const GROUP_MS = 200

/** A chunk failed and took the group's earlier chunks with it: the job's progress since the last commit is gone. */
export class GroupLostError extends Error {
  constructor(override readonly cause: unknown) {
    super(`A batch job's uncommitted chunks were rolled back: ${(cause as Error)?.message}`)
  }
}

export interface CommitGroup {
  /** Rows the chunks since the last commit wrote, which the caller counts; back to 0 at each commit or rollback. */
  written: number
  /** Runs one chunk: alone in its transaction, or in a savepoint of the open group (opened for it if none is). */
  chunk<T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T>
  /** Whether the group should commit now (always, where chunks commit alone). */
  due(): boolean
  /** Commits the open group, if any; on failure it is rolled back, and the error thrown. */
  commit(): Promise<void>
  /** Rolls back the open group, if any (its chunks' progress with it). */
  rollback(): Promise<void>
}

export function commitGroup(store: Store): CommitGroup {
  if (!store.sqliteReader) {
    return {
      written: 0,
      chunk: (work) => inTransaction(store.db, work),
      due: () => true,
      async commit() {
        this.written = 0
      },
      async rollback() {
        this.written = 0
      },
    }
  }
  let open: { trx: ControlledTransaction<Database>; since: number } | undefined
  return {
    written: 0,
    async chunk(work) {
      open ??= { trx: await store.db.startTransaction().execute(), since: performance.now() }
      const trx = await open.trx.savepoint('chunk').execute()
      try {
        const result = await work(trx)
        await trx.releaseSavepoint('chunk').execute()
        return result
      } catch (error) {
        const undone = await trx
          .rollbackToSavepoint('chunk')
          .execute()
          .then((rolledBack) => rolledBack.releaseSavepoint('chunk').execute())
          .then(
            () => true,
            () => false,
          )
        if (undone) throw error
        // SQLite ended the transaction itself (a full disk, say): the group's other chunks are gone with it.
        open = undefined
        this.written = 0
        await trx
          .rollback()
          .execute()
          .catch(() => undefined)
        throw new GroupLostError(error)
      }
    },
    // A request's write waits for the group: it is committed at the end of the chunk in hand, not GROUP_MS later.
    due: () => !open || performance.now() - open.since >= GROUP_MS || (store.sqliteWriterLock?.waiting ?? 0) > 0,
    async commit() {
      if (!open) return
      const { trx } = open
      open = undefined
      this.written = 0
      try {
        await trx.commit().execute()
      } catch (error) {
        await trx
          .rollback()
          .execute()
          .catch(() => undefined)
        throw error
      }
    },
    async rollback() {
      if (!open) return
      const { trx } = open
      open = undefined
      this.written = 0
      await trx.rollback().execute()
    },
  }
}

/**
 * What operators ask of a node, outside any request: does its database answer, is every
 * migration it knows applied, and how the batch queue stands. The health probes and the
 * metrics ask here, so no protocol reads the store itself.
 */
import { pingDatabase, type Store } from '../../store/connect.js'
import { listMigrations } from '../../store/migrate.js'
import { batchJobCounts, oldestQueuedJobAdded } from '../../store/repositories/batch.repository.js'
import { feedMetricRows } from '../../store/repositories/feed-run.repository.js'

/** Resolves when the database answers a trivial query; rejects otherwise. */
export function checkDatabase(store: Store): Promise<void> {
  return pingDatabase(store)
}

/** Every migration this node knows, with when it was applied (null: not yet). */
export function migrationStatus(store: Store): Promise<{ name: string; executedAt: string | null }[]> {
  return listMigrations(store.db)
}

/** The names of the migrations this node knows that the database has not applied. */
export async function pendingMigrations(store: Store): Promise<string[]> {
  return (await migrationStatus(store)).filter((m) => m.executedAt === null).map((m) => m.name)
}

/** Batch jobs by status (Created, Queued, Running, Completed). */
export function countBatchJobs(store: Store): Promise<Record<string, number>> {
  return batchJobCounts(store.db)
}

/** How long the longest-waiting queued batch job has waited, in seconds (0 when none waits). */
export async function oldestQueuedJobAge(store: Store, now = Date.now()): Promise<number> {
  const added = await oldestQueuedJobAdded(store.db)
  return added ? Math.max(0, (now - Date.parse(added)) / 1000) : 0
}

export interface FeedFigures {
  feed: string
  /** Seconds since the epoch of the last successful run; undefined before the first. */
  lastSuccess?: number
  /** Failed runs in a row. */
  failures: number
  /** What the newest finished run did; undefined before the first. */
  lastRun?: { created: number; updated: number; unchanged: number; refused: number }
}

/** Each feed's figures, read from the database so every node reports the same. */
export async function feedFigures(store: Store): Promise<FeedFigures[]> {
  const { feeds, lastRuns } = await feedMetricRows(store.db)
  const last = new Map(lastRuns.map((r) => [r.feed_id, r]))
  return feeds.map((f) => {
    const run = last.get(f.id)
    return {
      feed: f.name,
      failures: f.failures,
      ...(f.last_success_at ? { lastSuccess: Date.parse(f.last_success_at) / 1000 } : {}),
      ...(run
        ? { lastRun: { created: run.created, updated: run.updated, unchanged: run.unchanged, refused: run.refused } }
        : {}),
    }
  })
}

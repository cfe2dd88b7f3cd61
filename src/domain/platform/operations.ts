/**
 * What operators ask of a node, outside any request: does its database answer, is every
 * migration it knows applied, and how the batch queue stands. The health probes and the
 * metrics ask here, so no protocol reads the store itself.
 */
import { pingDatabase, type Store } from '../../store/connect.js'
import { listMigrations } from '../../store/migrate.js'
import { batchJobCounts, oldestQueuedJobAdded } from '../../store/repositories/batch.repository.js'

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

/**
 * Tasks that run now and then on whichever node gets to them first, one node at a time: a task is
 * claimed with a compare-and-set lease (as batch jobs are, batch/leases.ts) when it last started
 * longer ago than its interval, the lease is renewed as it goes, and its outcome is kept.
 */
import type { Store } from '../store/connect.js'
import {
  claimScheduledTask,
  finishScheduledTask,
  renewScheduledTask,
} from '../store/repositories/lifecycle.repository.js'

export interface ScheduleOptions {
  /** How long after its last start a task is due again. */
  everyMs: number
  /** How long a claim holds without renewal: a node that died lets go of the task after it. */
  leaseMs?: number
  now?: Date
}

/** Called by the task between steps: false means stop now (the lease went to another node). */
export type KeepGoing = () => Promise<boolean>

const DEFAULT_LEASE_MS = 5 * 60_000

/**
 * Runs `work` when the task is due and no other node holds it; its outcome, or undefined when it
 * did not run here.
 */
export async function runScheduledTask<T>(
  store: Store,
  name: string,
  workerId: string,
  options: ScheduleOptions,
  work: (keepGoing: KeepGoing) => Promise<T>,
): Promise<T | undefined> {
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS
  const now = options.now ?? new Date()
  const until = (from: number) => new Date(from + leaseMs).toISOString()
  const due = new Date(now.getTime() - options.everyMs).toISOString()
  if (!(await claimScheduledTask(store.db, name, workerId, now.toISOString(), until(now.getTime()), due)))
    return undefined
  const keepGoing = () => renewScheduledTask(store.db, name, workerId, until(Date.now()))
  let outcome: T | undefined
  let failure: unknown
  try {
    outcome = await work(keepGoing)
  } catch (error) {
    failure = error
  }
  const report = failure === undefined ? { outcome } : { error: String((failure as Error)?.message ?? failure) }
  await finishScheduledTask(store.db, name, workerId, new Date().toISOString(), JSON.stringify(report))
  if (failure !== undefined) throw failure
  return outcome
}

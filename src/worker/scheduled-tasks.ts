/**
 * The scheduled tasks each node offers to run (beside the batch worker): every `pollMs` it tries the
 * tasks that are due, and their lease (domain/scheduled-tasks.ts) makes sure one node runs each.
 */
import { runLifecycle } from '../domain/lifecycle/lifecycle.js'
import type { Services } from '../domain/services.js'
import type { Store } from '../store/connect.js'
import { newWorkerId } from './batch-worker.js'
import { startPollLoop } from './poll-loop.js'

export interface ScheduledTasksHandle {
  stop(): Promise<void>
}

/** Runs the Indicator lifecycle when it is due and enabled (settings indicatorLifecycle…). */
export async function runDueTasks(store: Store, services: Services, workerId: string, stopping = () => false) {
  if (!(await services.settings.get('indicatorLifecycleEnabled'))) return undefined
  const everyMs = (await services.settings.get('indicatorLifecycleIntervalMinutes')) * 60_000
  return runLifecycle(store, workerId, everyMs, stopping)
}

/** Tries the due tasks `pollMs` after the last try ended; the first try comes after one interval, once the node serves. */
export function startScheduledTasks(
  store: Store,
  services: Services,
  options: { pollMs?: number; log?: (msg: string, err?: unknown) => void } = {},
): ScheduledTasksHandle {
  const workerId = newWorkerId()
  const loop = startPollLoop({
    pollMs: options.pollMs ?? 60_000,
    round: (stopping) => runDueTasks(store, services, workerId, stopping),
    onError: (error) => options.log?.('a scheduled task failed; it runs again when next due', error),
  })
  return { stop: loop.stop }
}

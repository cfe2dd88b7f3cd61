/**
 * The feeds each node offers to run (beside the batch worker): every `pollMs` it takes due feeds up to
 * `concurrency` at a time, each under its lease (domain/feeds/run-feed.ts), so one node runs a feed.
 * Runs go on in the background of the loop: a slow feed holds only its own slot, never the next round
 * or another feed. Stopping aborts the runs in hand, which end at their next page boundary.
 */
import { dueFeedIds, startFeedRun, sweepInterruptedFeedRuns } from '../domain/feeds/run-feed.js'
import type { Services } from '../domain/services.js'
import { feedRunDeps } from '../feeds/runner.js'
import type { Store } from '../store/connect.js'
import { newWorkerId } from './batch-worker.js'
import { startPollLoop } from './poll-loop.js'

export interface FeedSchedulerHandle {
  /** Looks for due feeds now. */
  wake(): void
  stop(): Promise<void>
}

export const FEED_RUNS_PER_NODE = 2

export function startFeedScheduler(
  store: Store,
  services: Services,
  options: {
    pollMs?: number
    concurrency?: number
    leaseMs?: number
    log?: (msg: string, err?: unknown) => void
  } = {},
): FeedSchedulerHandle {
  const workerId = newWorkerId()
  const concurrency = options.concurrency ?? FEED_RUNS_PER_NODE
  const stopping = new AbortController()
  const running = new Set<Promise<unknown>>()
  const round = async (stopped: () => boolean) => {
    await sweepInterruptedFeedRuns(store)
    if (stopped() || running.size >= concurrency) return
    const deps = await feedRunDeps(services)
    for (const feedId of await dueFeedIds(store, concurrency - running.size)) {
      if (stopped() || running.size >= concurrency) return
      const started = await startFeedRun(store, services, feedId, deps, {
        trigger: 'schedule',
        workerId,
        signal: stopping.signal,
        leaseMs: options.leaseMs,
      })
      if (!started) continue
      const done: Promise<unknown> = started.done
        .catch((error) => options.log?.(`feed run ${started.id} could not be recorded`, error))
        .finally(() => {
          running.delete(done)
          loop.wake()
        })
      running.add(done)
    }
  }
  const loop = startPollLoop({
    pollMs: options.pollMs ?? 15_000,
    firstAfterMs: options.pollMs ?? 15_000,
    round,
    onError: (error) => options.log?.('the feed scheduler failed; it looks again at its next poll', error),
    onStop: async () => {
      stopping.abort()
      await Promise.allSettled([...running])
    },
  })
  return { wake: loop.wake, stop: loop.stop }
}

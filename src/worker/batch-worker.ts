/**
 * The batch job runner each node starts (config.batchWorker). Woken when a job is queued, and
 * polling as the fallback, it looks for Queued jobs and Running ones whose lease expired (their
 * node died), claims one with a compare-and-set lease, and runs it; the job resumes at its last
 * committed chunk. Any number of nodes may run a worker against one PostgreSQL database.
 */
import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import { isDomainError } from '../core/errors.js'
import { spareTurn } from '../core/foreground.js'
import { claimJob, claimableJobs, handBackJob } from '../domain/batch/leases.js'
import {
  DEFAULT_LEASE_MS,
  JobPausedError,
  LeaseLostError,
  afterQueueDrained,
  runBatchJob,
} from '../domain/batch/run-job.js'
import type { Services } from '../domain/services.js'
import { type BatchWakeups, watchBatchQueue } from '../store/batch-wakeups.js'
import type { Store } from '../store/connect.js'
import { startPollLoop } from './poll-loop.js'

export interface WorkerOptions {
  workerId?: string
  leaseMs?: number
  /** Stop claiming when this returns true (the worker is shutting down). */
  stopping?: () => boolean
  onError?: (jobId: number, error: unknown) => void
  /**
   * Jobs this worker must hand back once the database answers again: a job whose chunk failed because
   * the database did not answer is handed back at once (another pass or node resumes it from its last
   * chunk), not left until its lease expires; when the hand-back itself fails it is kept here.
   */
  owedHandBacks?: Set<number>
  /** True while another lane of this worker runs a job: the end-of-load upkeep waits for the last to finish. */
  othersRunning?: () => boolean
  /** What each chunk of a job waits for before it runs (run-job.ts). */
  turn?: () => Promise<void>
}

/**
 * A lane beyond the first runs a chunk only while requests kept the node busy for at most a quarter of the last half
 * second, or after waiting a second (at most a quarter of the lease, which each chunk's commit renews): the extra
 * lanes use the cores that reads leave idle (docs/benchmarks.md, "Reads beside two lanes", session 24).
 */
const SPARE_LANE = { share: 0.25, windowMs: 500, waitMs: 1_000 }

export function newWorkerId(): string {
  return `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`
}

/**
 * Runs every job that can be claimed now, one after another, and returns how many it ran.
 * Tests call it to drive jobs synchronously.
 * @example await runPendingJobs(store, services)
 */
export async function runPendingJobs(store: Store, services: Services, options: WorkerOptions = {}): Promise<number> {
  const workerId = options.workerId ?? newWorkerId()
  for (const id of options.owedHandBacks ?? []) {
    await handBackJob(store, id, workerId)
    options.owedHandBacks!.delete(id)
  }
  let ran = 0
  for (;;) {
    if (options.stopping?.()) return ran
    const candidates = await claimableJobs(store, 10)
    let claimed: number | undefined
    for (const id of candidates) {
      if (await claimJob(store, id, workerId, options.leaseMs)) {
        claimed = id
        break
      }
    }
    if (claimed === undefined) {
      if (ran > 0 && !options.othersRunning?.()) await afterQueueDrained(store)
      return ran
    }
    try {
      await runBatchJob(store, services, claimed, {
        workerId,
        leaseMs: options.leaseMs,
        stopping: options.stopping,
        turn: options.turn,
      })
    } catch (error) {
      if (error instanceof JobPausedError) {
        // Handed back rather than left to expire, so another node resumes it at once.
        await handBackJob(store, claimed, workerId)
        return ran
      }
      if (isDomainError(error) && error.code === 'try_later') {
        // The database did not answer: the job is fine, so it is handed back (now, or on a later pass).
        await handBackJob(store, claimed, workerId).catch(() => options.owedHandBacks?.add(claimed))
        return ran
      }
      // A lost lease means another node took over; anything else leaves the job to be retried when its lease expires.
      if (!(error instanceof LeaseLostError)) options.onError?.(claimed, error)
    }
    ran++
  }
}

export interface BatchWorkerHandle {
  /** True from start until stop() is called. */
  running(): boolean
  /** Stops claiming; the job in hand stops at its next commit point and its lease is handed back. */
  stop(): Promise<void>
}

/**
 * Starts the worker: it runs jobs as soon as they are queued (this process, or any node on
 * PostgreSQL through LISTEN/NOTIFY), back to back while any are claimable, and polls every
 * `pollMs` as the fallback (expired leases, a lost listening connection). With `lanes` above one
 * (PostgreSQL) it runs that many jobs at once, each lane claiming under a worker id of its own as
 * another node would: a chunk waits on the database most of its time, and the node reads and
 * plans one job's chunk while the database writes another's (docs/batch.md).
 */
export function startBatchWorker(
  store: Store,
  services: Services,
  options: WorkerOptions & { pollMs?: number; lanes?: number; log?: (msg: string, err?: unknown) => void } = {},
): BatchWorkerHandle {
  const workerId = options.workerId ?? newWorkerId()
  let wakeups: BatchWakeups | undefined
  let listening: Promise<unknown> | undefined
  const wakeAll = () => {
    for (const lane of lanes) lane.wake()
  }
  const listen = () => {
    listening = watchBatchQueue(store, wakeAll, (error) => {
      options.log?.('batch worker lost its wake-up connection; polling until it is back', error)
      wakeups = undefined
    })
      .then((w) => {
        if (!lanes[0]!.running()) return w.close()
        wakeups = w
      })
      .catch((error) => options.log?.('batch worker could not listen for queued jobs; polling instead', error))
      .finally(() => {
        listening = undefined
      })
  }
  const laneCount = store.sqlite ? 1 : Math.max(1, options.lanes ?? 1)
  const spare = { ...SPARE_LANE, waitMs: Math.min(SPARE_LANE.waitMs, (options.leaseMs ?? DEFAULT_LEASE_MS) / 4) }
  let running = 0
  const lanes = Array.from({ length: laneCount }, (_, lane) => {
    const owedHandBacks = new Set<number>()
    return startPollLoop({
      pollMs: options.pollMs ?? 1000,
      firstAfterMs: 0,
      round: async (stopping) => {
        running++
        try {
          return await runPendingJobs(store, services, {
            workerId: lane === 0 ? workerId : `${workerId}/${lane}`,
            leaseMs: options.leaseMs,
            stopping,
            owedHandBacks,
            othersRunning: () => running > 1,
            turn: lane === 0 ? undefined : () => spareTurn(spare),
            onError: (jobId, error) =>
              options.log?.(`batch job ${jobId} failed; it will be retried when its lease expires`, error),
          })
        } finally {
          running--
        }
      },
      onError: (error) => options.log?.('batch worker poll failed', error),
      afterRound: () => {
        if (!wakeups && !listening && store.pool) listen()
      },
      onStop:
        lane === 0
          ? async () => {
              await listening
              await wakeups?.close()
            }
          : undefined,
    })
  })
  listen()
  return {
    running: lanes[0]!.running,
    stop: async () => {
      await Promise.all(lanes.map((lane) => lane.stop()))
    },
  }
}

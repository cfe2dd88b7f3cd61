/**
 * The import runner each node starts beside the batch worker: woken when an upload is queued in this
 * process, polling every `pollMs` for the others (and for jobs whose node died), it runs one import at
 * a time (domain/imports/import-jobs.ts); each import's batch jobs run in it too.
 */
import { importQueued, runPendingImports } from '../domain/imports/import-jobs.js'
import type { Services } from '../domain/services.js'
import type { Store } from '../store/connect.js'
import { newWorkerId } from './batch-worker.js'
import { startPollLoop } from './poll-loop.js'

export interface ImportWorkerHandle {
  stop(): Promise<void>
}

export function startImportWorker(
  store: Store,
  services: Services,
  options: { pollMs?: number; log?: (msg: string, err?: unknown) => void } = {},
): ImportWorkerHandle {
  const workerId = newWorkerId()
  const loop = startPollLoop({
    pollMs: options.pollMs ?? 1000,
    round: (stopping) => runPendingImports(store, services, workerId, stopping),
    onError: (error) => options.log?.('the import worker failed; it tries again at its next poll', error),
    onStop: async () => importQueued.off('queued', loop.wake),
  })
  importQueued.on('queued', loop.wake)
  return { stop: loop.stop }
}

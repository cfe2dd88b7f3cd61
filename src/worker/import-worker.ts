/**
 * The import runner each node starts beside the batch worker: woken when an upload is queued in this
 * process, polling every `pollMs` for the others (and for jobs whose node died), it runs one import at
 * a time (domain/imports/import-jobs.ts); each import's batch jobs run in it too.
 */
import { importQueued, runPendingImports } from '../domain/imports/import-jobs.js'
import type { Services } from '../domain/services.js'
import type { Store } from '../store/connect.js'
import { newWorkerId } from './batch-worker.js'

export interface ImportWorkerHandle {
  stop(): Promise<void>
}

export function startImportWorker(
  store: Store,
  services: Services,
  options: { pollMs?: number; log?: (msg: string, err?: unknown) => void } = {},
): ImportWorkerHandle {
  const workerId = newWorkerId()
  let stopped = false
  let running: Promise<void> | undefined
  let again = false
  const pass = () => {
    if (stopped) return
    if (running) {
      again = true
      return
    }
    running = runPendingImports(store, services, workerId, () => stopped)
      .then(() => undefined)
      .catch((error) => options.log?.('the import worker failed; it tries again at its next poll', error))
      .finally(() => {
        running = undefined
        if (again) {
          again = false
          pass()
        }
      })
  }
  importQueued.on('queued', pass)
  const timer = setInterval(pass, options.pollMs ?? 1000)
  timer.unref()
  return {
    async stop() {
      stopped = true
      clearInterval(timer)
      importQueued.off('queued', pass)
      await running
    },
  }
}

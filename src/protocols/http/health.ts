/**
 * Probes for load balancers and orchestrators, without authentication: GET /api/health (the
 * process answers) and GET /api/ready (the database answers, every migration this node knows is
 * applied, the batch worker runs). They say only yes or no; why a node is not ready goes to the
 * log, not to whoever asks.
 */
import type { FastifyInstance } from 'fastify'
import { checkDatabase, pendingMigrations } from '../../domain/platform/operations.js'
import type { Store } from '../../store/connect.js'

export interface Readiness {
  /** False once the batch worker stopped; absent when this node runs none. */
  workerRunning?: () => boolean
}

const PING_TIMEOUT_MS = 2_000

export function installHealthRoutes(app: FastifyInstance, store: Store, readiness: Readiness = {}): void {
  // Applied migrations stay applied, so once all are there the check need not run again.
  let migrated = false
  const notReady = async (): Promise<string | undefined> => {
    try {
      await withTimeout(checkDatabase(store), PING_TIMEOUT_MS)
    } catch (error) {
      return `the database does not answer: ${(error as Error).message}`
    }
    if (!migrated) {
      const pending = await pendingMigrations(store)
      if (pending.length) return `migrations not applied: ${pending.join(', ')}`
      migrated = true
    }
    if (readiness.workerRunning && !readiness.workerRunning()) return 'the batch worker is not running'
    return undefined
  }

  app.get('/api/health', (_req, reply) => {
    reply.send({ status: 'Success' })
  })
  app.get('/api/ready', async (req, reply) => {
    const reason = await notReady().catch((error: Error) => `the readiness check failed: ${error.message}`)
    if (!reason) return reply.send({ status: 'Success' })
    req.log.warn({ reason }, 'not ready')
    return reply.code(503).send({ status: 'Error', message: 'Not ready' })
  })
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

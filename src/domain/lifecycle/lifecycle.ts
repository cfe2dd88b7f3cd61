/**
 * Indicators expire. Each owner has a number of days per Indicator type (model/lifecycle.ts unless
 * the owner set its own; 0 never) after which an Indicator nobody has seen again goes inactive: a
 * feed or import that met it, an observation, or any change to it renews it. A locked Indicator
 * (activeLocked) is never changed. Going inactive stamps last_modified, so TAXII and the exports
 * serve it with its end of validity from then on.
 */
import type { Kysely } from 'kysely'
import { invalid } from '../../core/errors.js'
import { findIndicatorType } from '../../model/indicator-types.js'
import { DEFAULT_STALE_DAYS, MAX_STALE_DAYS } from '../../model/lifecycle.js'
import type { Store } from '../../store/connect.js'
import type { Database } from '../../store/database.js'
import {
  deactivateIndicators,
  deleteLifecyclePolicy,
  findScheduledTask,
  findLifecycleCandidates,
  listLifecyclePolicies,
  listOwnerIdsWithIndicators,
  upsertLifecyclePolicy,
} from '../../store/repositories/lifecycle.repository.js'
import { runScheduledTask } from '../scheduled-tasks.js'
import { inTransaction } from '../transaction.js'

const DAY_MS = 86_400_000
/** Rows read, and turned inactive in one transaction, at a time: short write locks, bounded memory. */
const PAGE = 2_000

export interface TypePolicy {
  type: string
  days: number
  /** Whether the owner set it (else it is the default). */
  own: boolean
}

/** The owner's days per type, every type listed. */
export async function lifecyclePolicy(db: Kysely<Database>, ownerId: number): Promise<TypePolicy[]> {
  const own = new Map((await listLifecyclePolicies(db, ownerId)).map((p) => [p.type, p.days]))
  return Object.entries(DEFAULT_STALE_DAYS).map(([type, days]) => ({
    type,
    days: own.get(type) ?? days,
    own: own.has(type),
  }))
}

/** Sets an owner's days for a type; `days` undefined goes back to the default. */
export async function setLifecyclePolicy(db: Kysely<Database>, ownerId: number, type: string, days?: number) {
  const def = findIndicatorType(type)
  if (!def) throw invalid(`'${type}' is not an Indicator type (${Object.keys(DEFAULT_STALE_DAYS).join(', ')})`)
  if (days === undefined) return deleteLifecyclePolicy(db, ownerId, def.name)
  if (!Number.isInteger(days) || days < 0 || days > MAX_STALE_DAYS)
    throw invalid(`days must be a whole number from 0 (never) to ${MAX_STALE_DAYS}, not ${days}`)
  await upsertLifecyclePolicy(db, ownerId, def.name, days)
}

export interface LifecycleOutcome {
  owners: number
  examined: number
  deactivated: number
  /** Deactivated per type. */
  byType: Record<string, number>
}

export interface LifecycleRunOptions {
  now?: Date
  /** Called between pages: false stops the run (its lease was lost, the node is stopping). */
  keepGoing?: () => Promise<boolean> | boolean
}

/** Turns every stale Indicator of every owner inactive. */
export async function expireStaleIndicators(
  store: Store,
  options: LifecycleRunOptions = {},
): Promise<LifecycleOutcome> {
  const now = options.now ?? new Date()
  const stamp = now.toISOString()
  const outcome: LifecycleOutcome = { owners: 0, examined: 0, deactivated: 0, byType: {} }
  for (const ownerId of await listOwnerIdsWithIndicators(store.db)) {
    outcome.owners++
    const cutoffs = new Map(
      (await lifecyclePolicy(store.db, ownerId))
        .filter((p) => p.days > 0)
        .map((p) => [p.type, new Date(now.getTime() - p.days * DAY_MS).toISOString()]),
    )
    if (!cutoffs.size) continue
    // Nothing changed since the latest cutoff can be stale: the run reads only rows older than it.
    const before = [...cutoffs.values()].sort().at(-1)!
    let after: { lastModified: string; id: number } | undefined
    for (;;) {
      if (options.keepGoing && !(await options.keepGoing())) return outcome
      const page = await findLifecycleCandidates(store.db, ownerId, before, after, PAGE)
      if (!page.length) break
      outcome.examined += page.length
      const stale = page.filter((row) => {
        const cutoff = cutoffs.get(row.type)
        return (
          cutoff !== undefined &&
          row.last_modified < cutoff &&
          (row.last_sighted ?? '') < cutoff &&
          (row.last_observed ?? '') < cutoff
        )
      })
      if (stale.length) {
        const done = await inTransaction(store.db, (trx) =>
          deactivateIndicators(
            trx,
            stale.map((r) => r.id),
            stamp,
          ),
        )
        outcome.deactivated += done
        for (const row of stale) outcome.byType[row.type] = (outcome.byType[row.type] ?? 0) + 1
      }
      const last = page[page.length - 1]
      after = { lastModified: last.last_modified, id: last.id }
      if (page.length < PAGE) break
    }
  }
  return outcome
}

/** The scheduled task's name (domain/scheduled-tasks.ts). */
export const LIFECYCLE_TASK = 'indicator-lifecycle'

/**
 * Runs the lifecycle on this node when it last started more than `everyMs` ago and no other node
 * holds it; its outcome, or undefined when it did not run here.
 */
export function runLifecycle(store: Store, workerId: string, everyMs: number, stopping = () => false) {
  return runScheduledTask(store, LIFECYCLE_TASK, workerId, { everyMs }, (keepGoing) =>
    expireStaleIndicators(store, { keepGoing: async () => !stopping() && (await keepGoing()) }),
  )
}

/** When the lifecycle last ran, on any node, and what it did. */
export async function lastLifecycleRun(store: Store) {
  const task = await findScheduledTask(store.db, LIFECYCLE_TASK)
  if (!task?.last_started) return null
  return {
    started: task.last_started,
    finished: task.last_finished,
    ...(task.last_outcome ? (JSON.parse(task.last_outcome) as object) : {}),
  }
}

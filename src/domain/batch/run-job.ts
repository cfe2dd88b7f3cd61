/**
 * Runs one claimed batch job to completion: groups, then Indicators, then associations, each
 * in chunks. Every chunk is validated completely in memory, then written in one transaction
 * together with its errors and the new progress offset, and that commit also renews (and
 * checks) the lease. A chunk that fails while writing is retried item by item, so only the
 * failing item is lost (0x1004). Knows nothing of HTTP; the worker calls it.
 */
import { backgroundTurn } from '../../core/foreground.js'
import type { Kysely } from 'kysely'
import {
  type BatchJobRow,
  commitBatchProgress,
  completeBatchJob,
  findBatchInput,
  findBatchJob,
  hasEarlierJobRunning,
  insertBatchErrors,
} from '../../store/repositories/batch.repository.js'
import type { Store } from '../../store/connect.js'
import type { Database } from '../../store/database.js'
import {
  markVisibleAfterLoad,
  noteRowsWritten,
  refreshIfDue,
  vacuumBatchQueue,
} from '../../store/engine/planner-statistics.js'
import { checkpointIfDue } from '../../store/engine/sqlite-checkpoints.js'
import { isWriteRace } from '../../store/engine/write-conflicts.js'
import { foldPiledUpTallies } from '../../store/repositories/indicator-tally.repository.js'
import type { RequestContext } from '../context.js'
import { isAllowed } from '../permissions.js'
import { membershipFor } from '../access/owner-scope.js'
import { callerOf, contextOutsideRequest } from '../access/callers.js'
import type { Services } from '../context.js'
import { isoNow } from '../../core/time.js'
import { type AssociationEntry, collectAssociations } from './association-input.js'
import { BATCH_CODES, type BatchIssue, batchError } from './codes.js'
import type { BatchOptions } from './definition.js'
import { type BatchEnvironment, loadBatchEnvironment, rememberLabel } from './environment.js'
import { type BatchInput, isIssue, parseBatchInputInTurns, readGroupDraft, readIndicatorDraft } from './input.js'
import type { ItemList } from './input-scan.js'
import {
  type BatchProgress,
  type OutcomeKind,
  PHASES,
  type Phase,
  type WriteOutcome,
  errorTotal,
  readProgress,
  successTotal,
} from './progress.js'
import { writeAssociationChunk } from './write-associations.js'
import { deleteGroupChunk, deleteIndicatorChunk, writeGroupChunk } from './write-groups.js'
import { writeIndicatorChunk } from './write-indicators.js'
import { type ObservationDraft, readObservationDraft, writeObservationChunk } from './write-observations.js'
import { inTransaction } from '../transaction.js'
import { chunkSizer } from './chunk-size.js'
import { type CommitGroup, GroupLostError, commitGroup } from './commit-group.js'

export { CHUNK_SIZE } from './chunk-size.js'

export const DEFAULT_LEASE_MS = 60_000

export class LeaseLostError extends Error {
  constructor(jobId: number) {
    super(`Batch job ${jobId} is now held by another worker`)
  }
}

export interface RunOptions {
  workerId: string
  leaseMs?: number
  /** Checked before each chunk: when true the job stops at that commit point (JobPausedError). */
  stopping?: () => boolean
  /** What each chunk waits for before it runs: by default backgroundTurn, the node's requests in flight. */
  turn?: () => Promise<void>
}

/**
 * A chunk of associations named items not found while a job of the same owner queued before this one was still
 * running: undone, and run again once that job has finished (untilEarlierJobsFinish).
 */
class EarlierJobRunningError extends Error {
  constructor() {
    super('An association names an item that a batch job queued earlier may still write')
  }
}

/** The job stopped between chunks because its worker is stopping; its progress is committed. */
export class JobPausedError extends Error {
  constructor(readonly jobId: number) {
    super(`Batch job ${jobId} paused at a commit point`)
  }
}

interface Runner {
  store: Store
  job: BatchJobRow | Omit<BatchJobRow, 'input'>
  workerId: string
  leaseMs: number
  progress: BatchProgress
  stopping?: () => boolean
  turn: () => Promise<void>
}

const leaseUntil = (r: Runner) => new Date(Date.now() + r.leaseMs).toISOString()

async function commit(r: Runner, db: Kysely<Database>, issues: BatchIssue[]) {
  if (issues.length) await insertBatchErrors(db, r.job.id, issues)
  const ok = await commitBatchProgress(db, r.job.id, r.workerId, {
    progress: JSON.stringify(r.progress),
    successCount: successTotal(r.progress.counts),
    errorCount: errorTotal(r.progress.counts),
    leaseUntil: leaseUntil(r),
  })
  if (!ok) throw new LeaseLostError(r.job.id)
}

async function finish(r: Runner, unprocessCount: number, issues: BatchIssue[] = []) {
  await inTransaction(r.store.db, async (trx) => {
    if (issues.length) await insertBatchErrors(trx, r.job.id, issues)
    const c = r.progress.counts
    // Only job-level issues (bad JSON, limit, permission) arrive here; item issues were tallied per chunk.
    const errors = errorTotal(c) + issues.length
    r.progress.phase = 'done'
    const ok = await completeBatchJob(trx, r.job.id, r.workerId, {
      progress: JSON.stringify(r.progress),
      successCount: successTotal(c),
      errorCount: errors,
      unprocessCount,
      now: isoNow(),
    })
    if (!ok) throw new LeaseLostError(r.job.id)
  })
  // The job is done whatever this does: a fold that fails leaves its deltas to the next read, which folds them.
  await foldPiledUpTallies(r.store.db, r.job.owner_id).catch(() => undefined)
}

async function jobContext(store: Store, services: Services, job: Runner['job']): Promise<RequestContext | undefined> {
  const caller = await callerOf(store, services, { id: job.user_id })
  const membership = caller && membershipFor({ caller }, job.owner_id)
  if (!caller || !membership || !isAllowed(membership, 'batch')) return undefined
  return contextOutsideRequest(store, services, caller, membership)
}

type Item = { index: number }
type Outcome = {
  consumed: number
  written: number
  issues: BatchIssue[]
  createdLabels?: { name: string; id: number }[]
  outcome?: WriteOutcome
}

interface PhasePlan {
  phase: Exclude<Phase, 'done'>
  items: ItemList
  read(item: unknown, index: number): Item | BatchIssue
  write(db: Kysely<Database>, drafts: Item[]): Promise<Outcome>
  tally(r: Runner, written: number, issues: BatchIssue[], outcome?: WriteOutcome): void
  /** Items of this phase that count toward unprocessCount when the job halts. */
  countable(from: number): number
}

const PHASE_KIND = {
  groups: 'group',
  indicators: 'indicator',
  associations: 'association',
  observations: 'observation',
} as const satisfies Record<PhasePlan['phase'], OutcomeKind>

function tallyFor(phase: PhasePlan['phase']) {
  const [ok, bad] =
    phase === 'groups'
      ? (['successGroupCount', 'errorGroupCount'] as const)
      : phase === 'indicators'
        ? (['successIndicatorCount', 'errorIndicatorCount'] as const)
        : phase === 'associations'
          ? (['successAssociationCount', 'errorAssociationCount'] as const)
          : (['successObservationCount', 'errorObservationCount'] as const)
  const kind = PHASE_KIND[phase]
  return (r: Runner, written: number, issues: BatchIssue[], outcome?: WriteOutcome) => {
    r.progress.counts[ok] += written
    const tally = r.progress.outcomes[kind]
    tally.created += outcome?.created ?? 0
    tally.updated += outcome?.updated ?? 0
    tally.unchanged += outcome?.unchanged ?? 0
    r.progress.counts[bad] += issues.filter((i) => i.severity === 'Error').length
    r.progress.counts.warningCount += issues.filter((i) => i.severity === 'Warning').length
  }
}

function phasePlans(
  r: Runner,
  env: BatchEnvironment,
  input: BatchInput,
  associations: (AssociationEntry | BatchIssue)[],
): PhasePlan[] {
  const del = env.options.action === 'Delete'
  const withIndex = associations.map((a, index) => (isIssue(a) ? a : { ...a, index }))
  const observations = !del && env.options.observations ? input.observation : []
  return [
    {
      phase: 'groups',
      items: input.group,
      read: (item, i) => readGroupDraft(env, item, i),
      tally: tallyFor('groups'),
      write: (db, d) => (del ? deleteGroupChunk(db, env, d as never) : writeGroupChunk(db, env, d as never)),
      countable: (from) => Math.max(0, input.group.length - from),
    },
    {
      phase: 'indicators',
      items: input.indicator,
      read: (item, i) => readIndicatorDraft(env, item, i),
      tally: tallyFor('indicators'),
      write: (db, d) => (del ? deleteIndicatorChunk(db, env, d as never) : writeIndicatorChunk(db, env, d as never)),
      countable: (from) => Math.max(0, input.indicator.length - from),
    },
    {
      phase: 'associations',
      items: withIndex,
      read: (item) => item as Item | BatchIssue,
      tally: tallyFor('associations'),
      async write(db, d) {
        const outcome = await writeAssociationChunk(db, env, d as (AssociationEntry & Item)[])
        // Jobs run side by side (several nodes, or lanes of one): a file naming the Indicators of the file uploaded
        // before it finds them once that job is done, as it would had the jobs run one after the other.
        if (outcome.unresolved && (await hasEarlierJobRunning(db, r.job, isoNow()))) throw new EarlierJobRunningError()
        return outcome
      },
      countable: (from) => withIndex.slice(from).filter((a) => isIssue(a) || !(a as AssociationEntry).inline).length,
    },
    {
      phase: 'observations',
      items: observations,
      read: (item, i) => readObservationDraft(item, i),
      tally: tallyFor('observations'),
      write: (db, d) => writeObservationChunk(db, env, d as ObservationDraft[]),
      countable: (from) => Math.max(0, observations.length - from),
    },
  ]
}

/**
 * Times one chunk is run again after losing a race with another writer before it is split into single items (and
 * times a single item is, before it is reported): each retry sees the rows that beat it, so only a new writer of the
 * same values, at that moment, makes it lose again.
 */
const RACE_RETRIES = 3

/** Items whose drafts are read in one turn of the event loop. */
const DRAFT_SLICE = 250

/** How often a job waiting for the jobs queued before it looks at them again. */
const EARLIER_JOBS_POLL_MS = 100

/**
 * Waits until no job of the owner queued before this one is running under a live lease, renewing this job's own lease
 * as it waits; stops waiting when the worker is stopping (the loop then pauses the job at its last commit).
 */
async function untilEarlierJobsFinish(r: Runner, group: CommitGroup): Promise<void> {
  await committed(r, group)
  let renewed = Date.now()
  while (!r.stopping?.() && (await hasEarlierJobRunning(r.store.db, r.job, isoNow()))) {
    await new Promise((resolve) => setTimeout(resolve, EARLIER_JOBS_POLL_MS))
    if (Date.now() - renewed > r.leaseMs / 4) {
      await inTransaction(r.store.db, (trx) => commit(r, trx, []))
      renewed = Date.now()
    }
  }
}

/** Processes one phase from the saved offset; returns true when the job halted on an error. */
async function runPhase(r: Runner, env: BatchEnvironment, plan: PhasePlan): Promise<boolean> {
  const group = commitGroup(r.store)
  try {
    const halted = await runChunks(r, env, plan, group)
    await committed(r, group)
    return halted
  } catch (error) {
    await group.rollback().catch(() => undefined)
    throw error
  }
}

/** Commits the group's chunks; then, between commits, the work a commit makes due. */
async function committed(r: Runner, group: CommitGroup): Promise<void> {
  const written = group.written
  await group.commit()
  // So the next chunk's look-ups plan with statistics of the table as it now is.
  noteRowsWritten(r.store, written)
  await refreshIfDue(r.store)
  // SQLite: the log copied back by a worker thread while this one serves requests (sqlite-checkpoints.ts).
  await checkpointIfDue(r.store.sqlite)
}

async function runChunks(r: Runner, env: BatchEnvironment, plan: PhasePlan, group: CommitGroup): Promise<boolean> {
  let singleUntil = -1
  let races = 0
  const chunks = chunkSizer(r.store.dialect)
  while (r.progress.offset < plan.items.length) {
    // SQLite calls return synchronously, so without this a whole job would run as one turn of the event loop
    // and every request to this node would wait for it; between chunks interactive requests go first.
    await r.turn()
    if (r.stopping?.()) {
      await committed(r, group)
      throw new JobPausedError(r.job.id)
    }
    const start = r.progress.offset
    const size = start < singleUntil ? 1 : chunks.size
    // Reading drafts is work on the event loop, as a SQLite transaction is: requests go first between its slices
    // and before the write (a PostgreSQL chunk of 2,000 read at once held the loop for tens of milliseconds).
    const read: { index: number; issue?: BatchIssue; draft?: Item }[] = []
    for (let from = start; from < Math.min(start + size, plan.items.length); from += DRAFT_SLICE) {
      if (from > start) await backgroundTurn()
      plan.items.slice(from, Math.min(start + size, from + DRAFT_SLICE)).forEach((item, k) => {
        const v = plan.read(item, from + k)
        read.push(isIssue(v) ? { index: from + k, issue: v } : { index: from + k, draft: v })
      })
    }
    if (read.length > DRAFT_SLICE) await backgroundTurn()
    const firstIssue = env.options.haltOnError ? read.findIndex((x) => 'issue' in x) : -1
    const usable = (firstIssue >= 0 ? read.slice(0, firstIssue) : read).flatMap((x) => ('draft' in x ? [x.draft!] : []))
    env.ctx = { ...env.ctx, now: isoNow() }
    const began = performance.now()
    // What a chunk undone leaves: the progress as the last chunk left it, committed or in the open group.
    const before = structuredClone(r.progress)
    try {
      const created = await group.chunk(async (trx) => {
        const outcome: Outcome = usable.length ? await plan.write(trx, usable) : { consumed: 0, written: 0, issues: [] }
        const next =
          outcome.consumed < usable.length
            ? usable[outcome.consumed].index
            : firstIssue >= 0
              ? start + firstIssue + 1
              : start + read.length
        const issues = [...read.filter((x) => 'issue' in x && x.index < next).map((x) => x.issue!), ...outcome.issues]
        plan.tally(r, outcome.written, issues, outcome.outcome)
        r.progress.offset = next
        await commit(r, trx, issues)
        return {
          labels: outcome.createdLabels ?? [],
          written: outcome.written,
          halted: env.options.haltOnError && issues.some((i) => i.severity === 'Error'),
        }
      })
      chunks.took(read.length, performance.now() - began)
      for (const label of created.labels) rememberLabel(env, label.name, label.id)
      group.written += created.written
      if (group.due()) {
        // In a turn of its own: a group's commit writes its pages to the log, synchronously, and a request that came in
        // during the chunk goes first rather than waiting for the chunk and the commit together.
        await backgroundTurn()
        await committed(r, group)
      }
      races = 0
      if (created.halted) return true
    } catch (error) {
      r.progress = before
      if (error instanceof LeaseLostError) throw error
      // The job goes on from its last commit, on this node or, once its lease runs out, another.
      if (error instanceof GroupLostError) throw error.cause
      if (error instanceof EarlierJobRunningError) {
        await untilEarlierJobsFinish(r, group)
        continue
      }
      // Another node's chunk inserted a value of this one first: committed now, so the same chunk finds and merges it.
      if (isWriteRace(error) && races++ < RACE_RETRIES) continue
      races = 0
      if (size > 1) {
        singleUntil = start + size
        continue
      }
      const issue = batchError(
        BATCH_CODES.internal,
        `${PHASE_KIND[plan.phase]}[${start}]`,
        `Internal: ${(error as Error).message}`,
      )
      plan.tally(r, 0, [issue])
      r.progress.offset = start + 1
      await group.chunk((trx) => commit(r, trx, [issue]))
      if (env.options.haltOnError) return true
    }
  }
  return false
}

/**
 * Runs a job this worker has claimed, resuming from its saved progress.
 * @example await runBatchJob(store, services, 12, { workerId: 'node-a:1234' })
 */
export async function runBatchJob(store: Store, services: Services, jobId: number, options: RunOptions): Promise<void> {
  const job = await findBatchJob(store.db, jobId)
  if (!job || job.status !== 'Running' || job.lease_owner !== options.workerId) return
  const r: Runner = {
    store,
    job,
    workerId: options.workerId,
    leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS,
    progress: readProgress(job.progress),
    stopping: options.stopping,
    turn: options.turn ?? backgroundTurn,
  }
  const batchOptions = JSON.parse(job.options) as BatchOptions
  // The scan and the walk for associations run on the event loop too: between their slices requests go first.
  const parsed = await parseBatchInputInTurns((await findBatchInput(store.db, jobId)) ?? '', backgroundTurn)
  if (isIssue(parsed)) return finish(r, 0, [parsed])
  const total =
    parsed.indicator.length +
    parsed.group.length +
    parsed.association.length +
    (batchOptions.observations ? parsed.observation.length : 0)
  const ctx = await jobContext(store, services, job)
  if (!ctx)
    return finish(r, total, [
      batchError(BATCH_CODES.permission, null, 'Permission: the job owner may no longer run batch jobs in this owner'),
    ])
  const max = Number(await services.settings.get('batchMaxIndicators'))
  if (parsed.indicator.length > max) {
    return finish(r, total, [
      batchError(
        BATCH_CODES.indicatorLimit,
        '$.indicator',
        `Batch job would exceed the number of allowed indicators: ${parsed.indicator.length} given, at most ${max} per job`,
      ),
    ])
  }
  const env = await loadBatchEnvironment(store.db, ctx, batchOptions)
  const associations =
    env.options.action === 'Delete' ? [] : await collectAssociations(parsed, env.options, backgroundTurn)
  const plans = phasePlans(r, env, parsed, associations)
  for (const plan of plans) {
    if (PHASES.indexOf(r.progress.phase) > PHASES.indexOf(plan.phase)) continue
    if (r.progress.phase !== plan.phase) r.progress = { ...r.progress, phase: plan.phase, offset: 0 }
    if (await runPhase(r, env, plan)) {
      const later = plans.slice(plans.indexOf(plan) + 1).reduce((n, p) => n + p.countable(0), 0)
      return finish(r, plan.countable(r.progress.offset) + later)
    }
  }
  return finish(r, 0)
}

/**
 * What a node does once its batch queue has drained after running jobs: the end of a load, when PostgreSQL's pages
 * written since the last vacuum are marked all-visible and the queue's deleted uploads reclaimed
 * (store/engine/planner-statistics.ts, markVisibleAfterLoad and vacuumBatchQueue).
 */
export async function afterQueueDrained(store: Store): Promise<void> {
  await markVisibleAfterLoad(store)
  await vacuumBatchQueue(store)
}

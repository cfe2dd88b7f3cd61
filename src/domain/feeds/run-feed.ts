/**
 * A run of a feed (docs/feeds.md, Runs). One node at a time runs a feed, under the lease on its row
 * (store/repositories/feed-run.repository.ts); the kind's puller gives pages, each read by a format of
 * formats/ into batch jobs as an import's are (imports/run-import.ts), and each page's jobs are queued
 * in the same transaction that stores the page's cursor. Once a job's input is stored the batch
 * machinery writes it, here or on whichever node resumes it, so a run stopped anywhere (kill -9
 * included) resumes after the last stored page: nothing lost, nothing written twice. The jobs are then
 * run here and their outcomes added to the run's record. The puller and the network come in as
 * FeedRunDeps: the domain knows no adapter.
 */
import { randomUUID } from 'node:crypto'
import type { ReadEvent } from '../../formats/format.js'
import { hostname } from 'node:os'
import { conflict, forbidden, invalid, notFound } from '../../core/errors.js'
import type { Store } from '../../store/connect.js'
import {
  type FeedRunRow,
  claimFeed,
  countFeedRuns,
  findFeedForRun,
  findFeedIdByName,
  findFeedRun,
  finishFeed,
  interruptRunsOf,
  insertFeedRun,
  listDueFeedIds,
  listFeedRuns,
  makeFeedDue,
  markInterruptedRuns,
  releaseFeed,
  renewFeedLease,
  storeFeedCursor,
  updateFeedRun,
} from '../../store/repositories/feed-run.repository.js'
import { callerOf, contextOutsideRequest } from '../access/callers.js'
import type { RequestContext, Services } from '../context.js'
import {
  type ImportTally,
  type JobFile,
  type JobItemKind,
  emptyTally,
  importFormat,
  jobFilesOf,
  queueJobFile,
  requireImportable,
  runQueuedJob,
} from '../imports/run-import.js'
import { inTransaction, withTransaction } from '../transaction.js'
import type { FeedDefaults, FeedDefinition, FeedKind, FeedRun, FeedRunStatus } from './feed.js'
import { type FeedRow, feedDefinitionOf } from './feed-records.js'
import { noteListValues, retireMissingValues } from './mirror.js'
import { type FeedHttp, FeedFetchError, type PullContext, type Puller } from './pull.js'

/** What a run needs from the adapters: the puller of each kind and the network as a feed may use it. */
export interface FeedRunDeps {
  /** src/feeds/pullers.ts PULLERS[kind]; undefined for a kind this build does not pull. */
  pullerOf(kind: FeedKind): Puller | undefined
  /** src/feeds/http createFeedHttp, with the system's network rules (setting feedsAllowPrivateNetworks). */
  http(feed: FeedDefinition): FeedHttp
}

export interface FeedRunOptions {
  trigger: 'schedule' | 'manual'
  /** The node's worker id: the lease's holder and the run record's `worker`. */
  workerId: string
  /** Aborted when the node stops: the run ends at its next page boundary, Interrupted, and the feed is due again. */
  signal?: AbortSignal
  /** How long the lease holds without renewal; a node that died lets go of the feed after it. */
  leaseMs?: number
}

export interface StartedFeedRun {
  id: number
  /** The run's record once it ended; never rejects for the run's own failures (they are in the record). */
  done: Promise<FeedRun>
}

export const DEFAULT_FEED_LEASE_MS = 2 * 60_000
/** Refusals a run lists by item and reason; past them only their number is kept. */
export const FEED_RUN_LISTED_REFUSALS = 100
const MINUTE_MS = 60_000
/** A failed run's message is kept to this many characters. */
const MAX_ERROR_CHARS = 2_000
class LeaseLost extends Error {
  constructor() {
    super('the feed was taken over by another node (its lease ran out)')
  }
}

/**
 * Takes the feed's lease and records a run (a scheduled run only when the feed is enabled and due),
 * then pulls in the background of the returned `done`. A scheduled run that another node won gives
 * undefined; a manual run of a feed running elsewhere is refused (conflict).
 */
export async function startFeedRun(
  store: Store,
  services: Services,
  feedId: number,
  deps: FeedRunDeps,
  options: FeedRunOptions,
): Promise<StartedFeedRun | undefined> {
  const leaseMs = options.leaseMs ?? DEFAULT_FEED_LEASE_MS
  const now = new Date()
  const claimed = await claimFeed(store.db, feedId, {
    workerId: options.workerId,
    now: now.toISOString(),
    leaseUntil: new Date(now.getTime() + leaseMs).toISOString(),
    due: options.trigger === 'schedule',
  })
  if (!claimed) {
    if (options.trigger === 'schedule') return undefined
    const row = await findFeedForRun(store.db, feedId)
    if (!row) throw notFound(`Feed ${feedId} not found`)
    throw conflict(
      `Feed '${row.name}' is being run now by another worker (${row.lease_owner}); its run shows in the feed's history`,
    )
  }
  try {
    // Holding the lease, no other run of the feed is live: one still marked Running lost its node.
    await interruptRunsOf(store.db, feedId, now.toISOString())
    const id = await insertFeedRun(store.db, {
      feedId,
      trigger: options.trigger,
      worker: options.workerId,
      startedAt: now.toISOString(),
    })
    return { id, done: drive(store, services, feedId, id, deps, { ...options, leaseMs }, now.toISOString()) }
  } catch (error) {
    await releaseFeed(store.db, feedId, options.workerId, now.toISOString()).catch(() => {})
    throw error
  }
}

/** Runs the feed here and gives its record; undefined for a scheduled run another node won. */
export async function runFeed(
  store: Store,
  services: Services,
  feedId: number,
  deps: FeedRunDeps,
  options: FeedRunOptions,
): Promise<FeedRun | undefined> {
  const started = await startFeedRun(store, services, feedId, deps, options)
  return started?.done
}

interface Progress {
  pages: number
  fetched: number
  tally: ImportTally
}

async function drive(
  store: Store,
  services: Services,
  feedId: number,
  runId: number,
  deps: FeedRunDeps,
  options: FeedRunOptions & { leaseMs: number },
  startedAt: string,
): Promise<FeedRun> {
  const { workerId, leaseMs } = options
  const leaseUntil = () => new Date(Date.now() + leaseMs).toISOString()
  const stop = new AbortController()
  let lost = false
  const onAbort = () => stop.abort()
  options.signal?.addEventListener('abort', onAbort)
  if (options.signal?.aborted) stop.abort()
  // Renewed on a clock too, not only between pages: a slow page or a long job must not lose the feed.
  const renewal = setInterval(
    () =>
      void renewFeedLease(store.db, feedId, workerId, leaseUntil()).then(
        (held) => {
          if (!held) {
            lost = true
            stop.abort()
          }
        },
        () => {},
      ),
    Math.max(1000, Math.floor(leaseMs / 3)),
  )
  renewal.unref()
  const progress: Progress = { pages: 0, fetched: 0, tally: emptyTally() }
  let row: (FeedRow & { owner_name: string }) | undefined
  let definition: FeedDefinition | undefined
  let status: FeedRunStatus = 'Succeeded'
  let failure: unknown
  try {
    row = await findFeedForRun(store.db, feedId)
    if (!row) throw notFound(`Feed ${feedId} not found`)
    definition = feedDefinitionOf(row, row.owner_name, services.secretBox)
    await pullPages(
      store,
      services,
      definition,
      runId,
      deps,
      options,
      stop.signal,
      progress,
      () => lost,
      row.created_by,
    )
    if (lost) throw new LeaseLost()
    if (stop.signal.aborted) status = 'Interrupted'
  } catch (error) {
    failure = error
    // A stop (the node's, or the lease's) may surface as the puller's abort: the run was interrupted, not failed.
    status = lost || error instanceof LeaseLost || stop.signal.aborted ? 'Interrupted' : 'Failed'
  } finally {
    clearInterval(renewal)
    options.signal?.removeEventListener('abort', onAbort)
  }
  const finishedAt = new Date()
  const values = {
    status,
    finished_at: finishedAt.toISOString(),
    ...progressValues(progress),
    error: failure === undefined ? null : safeMessage(failure, definition),
  }
  await inTransaction(store.db, async (trx) => {
    await updateFeedRun(trx, runId, values)
    if (lost || failure instanceof LeaseLost) return
    if (status === 'Interrupted') {
      // The node is stopping: the feed is due again at once, for whichever node comes next.
      await finishFeed(trx, feedId, workerId, {
        nextRunAt: finishedAt.toISOString(),
        failures: row?.failures ?? 0,
      })
      return
    }
    const intervalMs = (row?.interval_seconds ?? 3600) * 1000
    if (status === 'Succeeded') {
      await finishFeed(trx, feedId, workerId, {
        nextRunAt: new Date(finishedAt.getTime() + intervalMs).toISOString(),
        failures: 0,
        lastSuccessAt: finishedAt.toISOString(),
      })
      return
    }
    const failures = (row?.failures ?? 0) + 1
    await finishFeed(trx, feedId, workerId, {
      nextRunAt: new Date(finishedAt.getTime() + retryDelayMs(failure, failures, intervalMs)).toISOString(),
      failures,
    })
  })
  const stored = await findFeedRun(store.db, runId)
  if (stored) return toFeedRun(stored, row?.name ?? String(feedId))
  // The feed was removed while it ran (its runs with it): the record as it would have been kept.
  return {
    id: runId,
    feed: row?.name ?? String(feedId),
    status,
    trigger: options.trigger,
    startedAt,
    finishedAt: values.finished_at,
    ...progressValues(progress),
    refusals: progress.tally.errors.slice(0, FEED_RUN_LISTED_REFUSALS),
    ...(values.error === null ? {} : { error: values.error }),
  }
}

/**
 * How long after a failed run the feed is tried again: what the server asked for (Retry-After of a
 * 429 or 503), never sooner; else one minute doubled with each failure in a row, at most the interval.
 */
export function retryDelayMs(error: unknown, failures: number, intervalMs: number): number {
  const backOff = Math.min(intervalMs, MINUTE_MS * 2 ** Math.min(failures - 1, 30))
  const asked = error instanceof FeedFetchError ? error.details.retryAfterMs : undefined
  return asked !== undefined && Number.isFinite(asked) ? Math.max(asked, backOff) : backOff
}

async function pullPages(
  store: Store,
  services: Services,
  feed: FeedDefinition,
  runId: number,
  deps: FeedRunDeps,
  options: FeedRunOptions & { leaseMs: number },
  signal: AbortSignal,
  progress: Progress,
  leaseLost: () => boolean,
  createdBy: number | null,
) {
  const puller = deps.pullerOf(feed.kind)
  if (!puller) throw invalid(`This server has no puller for ${feed.kind} feeds`)
  const ctx = await feedContext(store, services, feed, createdBy)
  const maxBytes = Number(await services.settings.get('batchMaxUploadBytes'))
  const cap = feed.maxObjectsPerRun ?? Number.MAX_SAFE_INTEGER
  const mirrored: { type: string; summary: string }[] = []
  const shape = withDefaults(feed.defaults, feed.settings.mirror ? mirrored : undefined)
  // The puller reads `remaining` from the context it was given: it is kept current as pages are stored.
  const context: PullContext = {
    feed,
    cursor: feed.cursor,
    http: deps.http(feed),
    now: new Date().toISOString(),
    signal,
    remaining: cap,
  }
  for await (const page of puller.pull(context)) {
    // A page boundary: stop here when the node stops or another node took the feed.
    if (signal.aborted || leaseLost()) return
    const format = importFormat({
      owner: feed.owner,
      name: page.name,
      format: page.format,
      type: page.options?.type,
      map: page.options?.map,
    })
    mirrored.length = 0
    // A job is stored (with the mirror's values it brought) and run as soon as it is made, so a page as
    // large as a million-line list never waits whole in memory; the page's last job carries its cursor.
    // Jobs stored before a stop are written again by the next run, which makes them unchanged: the
    // cursor, not the jobs, says where the next pull starts.
    const storeAndRun = async (file: JobFile | undefined, values: typeof mirrored, cursor?: string) => {
      const id = await withTransaction(ctx, async (tctx) => {
        const queued = file && (await queueJobFile(tctx, feed.owner, file, format.reader.sourceVersions))
        if (feed.settings.mirror && values.length) await noteListValues(tctx, feed.id, runId, values)
        const until = leaseLimit(options.leaseMs)
        // The fence: a node that lost the feed stores neither the job nor the cursor.
        const held =
          cursor === undefined
            ? await renewFeedLease(tctx.store.db, feed.id, options.workerId, until)
            : await storeFeedCursor(tctx.store.db, feed.id, options.workerId, cursor, until)
        if (!held) throw new LeaseLost()
        return queued
      })
      if (id !== undefined && file) await runQueuedJob(ctx, id, file, progress.tally, FEED_RUN_LISTED_REFUSALS, signal)
    }
    const events = placedIn(
      page.name,
      format.reader.read(page.content, { name: page.name, type: page.options?.type, map: page.options?.map }),
    )
    let held: { file: JobFile; values: typeof mirrored } | undefined
    for await (const file of jobFilesOf(events, {
      maxBytes,
      tally: progress.tally,
      maxErrors: FEED_RUN_LISTED_REFUSALS,
      inputItem: page.name,
      shape,
    })) {
      if (held) {
        if (signal.aborted || leaseLost()) return
        await storeAndRun(held.file, held.values)
      }
      held = { file, values: mirrored.splice(0) }
    }
    // A page without items (a cursor that moved over nothing new) stores its cursor alone.
    await storeAndRun(held?.file, [...(held?.values ?? []), ...mirrored.splice(0)], JSON.stringify(page.cursor))
    if (page.complete && feed.settings.mirror) await retireMissingValues(ctx, feed.id, runId)
    progress.pages++
    progress.fetched += page.fetched
    context.remaining = Math.max(0, cap - progress.fetched)
    await updateFeedRun(store.db, runId, progressValues(progress))
    if (context.remaining === 0) return
  }
}

/** The reader's places (`line 3`) named within their page (`page 2, line 3`): a run reads many pages. */
async function* placedIn(name: string, events: AsyncIterable<ReadEvent>): AsyncIterable<ReadEvent> {
  const at = (where: string) => `${name}, ${where}`
  const placed = <T extends { where: string }>(list: T[] | undefined) =>
    list?.map((x) => ({ ...x, where: at(x.where) }))
  for await (const event of events) {
    if (event.kind === 'input') yield event
    else
      yield {
        ...event,
        where: at(event.where),
        indicators: placed(event.indicators)!,
        groups: placed(event.groups),
        associations: placed(event.associations),
        observations: placed(event.observations),
        earlierErrors: event.earlierErrors?.map((e) => ({ ...e, where: at(e.where) })),
      }
  }
}

const leaseLimit = (leaseMs: number) => new Date(Date.now() + leaseMs).toISOString()

/**
 * The context the feed's items are written in: as the account that set the feed up (`created_by`),
 * in the feed's owner, with that account's rights there checked as an import's are.
 */
async function feedContext(
  store: Store,
  services: Services,
  feed: FeedDefinition,
  createdBy: number | null,
): Promise<RequestContext> {
  const caller = createdBy === null ? undefined : await callerOf(store, services, { id: createdBy })
  if (!caller)
    throw forbidden(
      `Feed '${feed.name}' has no enabled account to write as (the account that set it up is gone or disabled)`,
    )
  return contextOutsideRequest(store, services, caller, requireImportable(caller, feed.owner))
}

/**
 * The feed's defaults on an item that lacks them: rating and confidence (Indicators), the feed's
 * tags added, its security label when the item has none. Nothing the feed does not set is added.
 * `values` collects the Indicators' type and summary, for the mirror mode.
 */
export function withDefaults(defaults: FeedDefaults, values?: { type: string; summary: string }[]) {
  return (kind: JobItemKind, item: unknown): unknown => {
    if ((kind !== 'indicator' && kind !== 'group') || item === null || typeof item !== 'object') return item
    const out: Record<string, unknown> = { ...(item as Record<string, unknown>) }
    if (kind === 'indicator') {
      if (out.rating == null && defaults.rating !== undefined) out.rating = defaults.rating
      if (out.confidence == null && defaults.confidence !== undefined) out.confidence = defaults.confidence
      if (values && typeof out.type === 'string' && typeof out.summary === 'string')
        values.push({ type: out.type, summary: out.summary })
    }
    if (defaults.tags?.length) {
      const tags = Array.isArray(out.tag) ? [...(out.tag as { name?: unknown }[])] : []
      for (const name of defaults.tags) if (!tags.some((t) => t?.name === name)) tags.push({ name })
      out.tag = tags
    }
    if (defaults.securityLabel !== undefined && !(Array.isArray(out.securityLabel) && out.securityLabel.length))
      out.securityLabel = [{ name: defaults.securityLabel }]
    return out
  }
}

function progressValues({ pages, fetched, tally }: Progress) {
  const kinds = [tally.indicators, tally.groups, tally.associations, tally.observations]
  return {
    pages,
    fetched,
    created: kinds.reduce((n, k) => n + k.created, 0),
    updated: kinds.reduce((n, k) => n + k.updated, 0),
    unchanged: kinds.reduce((n, k) => n + k.unchanged, 0),
    refused: tally.errorCount,
    refusals: JSON.stringify(tally.errors.slice(0, FEED_RUN_LISTED_REFUSALS)),
  }
}

/** The failure in words safe to keep: the feed's secrets masked wherever they appear, a URL's user and password dropped. */
export function safeMessage(error: unknown, feed?: FeedDefinition): string {
  let text = error instanceof Error ? error.message || error.name : String(error)
  const credentials = feed?.credentials
  const secrets =
    credentials?.kind === 'basic'
      ? [credentials.password, Buffer.from(`${credentials.user}:${credentials.password}`).toString('base64')]
      : credentials?.kind === 'bearer'
        ? [credentials.token]
        : credentials?.kind === 'header'
          ? [credentials.value]
          : []
  for (const secret of secrets) if (secret) text = text.split(secret).join('[redacted]')
  text = text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/\s@]*@/gi, '$1')
  const kind = error instanceof FeedFetchError ? `${error.code}: ` : ''
  return `${kind}${text}`.slice(0, MAX_ERROR_CHARS)
}

function toFeedRun(row: FeedRunRow, feedName: string): FeedRun {
  const run: FeedRun = {
    id: row.id,
    feed: feedName,
    status: row.status as FeedRunStatus,
    trigger: row.trigger as FeedRun['trigger'],
    startedAt: row.started_at,
    pages: row.pages,
    fetched: row.fetched,
    created: row.created,
    updated: row.updated,
    unchanged: row.unchanged,
    refused: row.refused,
    refusals: JSON.parse(row.refusals) as FeedRun['refusals'],
  }
  if (row.finished_at !== null) run.finishedAt = row.finished_at
  if (row.error !== null) run.error = row.error
  return run
}

// ---- What the adapters call: the scheduler, the REST routes and the CLI. ----

/** A worker id for a run started outside the scheduler (a REST call, the CLI): `host:pid:random`. */
export function newFeedWorkerId(): string {
  return `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`
}

/** Enabled feeds that are due and free, soonest due first. */
export function dueFeedIds(store: Store, limit: number, now = new Date()): Promise<number[]> {
  return listDueFeedIds(store.db, now.toISOString(), limit)
}

/** Runs left Running by a node that died (or lost its lease) become Interrupted; their number. */
export function sweepInterruptedFeedRuns(store: Store, now = new Date()): Promise<number> {
  return markInterruptedRuns(store.db, now.toISOString())
}

/** Feeds are run and their history read by administrators: system Administrators and Organization Administrators. */

/** A feed's id from its id or name; not found otherwise. */
export async function feedIdOf(store: Store, ref: { id: number } | { name: string }): Promise<number> {
  const id = 'id' in ref ? (await findFeedForRun(store.db, ref.id))?.id : await findFeedIdByName(store.db, ref.name)
  if (id === undefined) throw notFound(`Feed ${'id' in ref ? ref.id : `'${ref.name}'`} not found`)
  return id
}

/** Starts a run now on this node (a manual run; `signal` stops it, as the node stops); refused when the feed is running elsewhere. */
export async function startManualFeedRun(
  store: Store,
  services: Services,
  feedId: number,
  deps: FeedRunDeps,
  signal?: AbortSignal,
): Promise<StartedFeedRun> {
  return (await startFeedRun(store, services, feedId, deps, {
    trigger: 'manual',
    workerId: newFeedWorkerId(),
    signal,
  }))!
}

/** Makes the feed due now: the next node's scheduler to look runs it. */
export async function requestFeedRun(store: Store, feedId: number): Promise<void> {
  await makeFeedDue(store.db, feedId, new Date().toISOString())
}

/** A feed's runs, newest first, and how many are kept (at most FEED_RUNS_KEPT). */
export async function feedRunHistory(
  store: Store,
  feedId: number,
  page: { limit?: number; offset?: number } = {},
): Promise<{ runs: FeedRun[]; count: number }> {
  const row = await findFeedForRun(store.db, feedId)
  if (!row) throw notFound(`Feed ${feedId} not found`)
  const limit = page.limit ?? 20
  const offset = page.offset ?? 0
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw invalid('limit must be a whole number from 1 to 100')
  if (!Number.isInteger(offset) || offset < 0) throw invalid('offset must be a whole number from 0')
  const rows = await listFeedRuns(store.db, feedId, { limit, offset })
  return { runs: rows.map((r) => toFeedRun(r, row.name)), count: await countFeedRuns(store.db, feedId) }
}

/**
 * Observations a batch job records (the `observation` array, read only for jobs whose internal
 * option `observations` is set: importers of sources that publish sightings, never a v2 job
 * definition): `{type, summary, count, dateObserved, sourceId, externalLastModified}`, each an
 * observation of one Indicator by the job's account, as POST …/observations records one, keyed by
 * the sighting's id so a second import of it records nothing and a newer version replaces its count.
 */
import type { Kysely } from 'kysely'
import {
  findSourcedObservations,
  recordSourcedObservations,
} from '../../store/repositories/indicator-activity.repository.js'
import type { Database } from '../../store/database.js'
import { parseApiTime } from '../../core/time.js'
import type { AssociationRef } from './association-input.js'
import { BATCH_CODES, type BatchIssue, batchError } from './codes.js'
import type { BatchEnvironment } from './environment.js'
import { readIndicatorKey } from './input.js'
import type { WriteOutcome } from './progress.js'
import { resolveReferences } from './write-associations.js'
import { haltAtFirst } from './write-groups.js'

const MAX_COUNT = 2_147_483_647
const MAX_SOURCE_ID = 255

export interface ObservationDraft {
  index: number
  indicator: Extract<AssociationRef, { summary: string }>
  count: number
  dateObserved: string
  sourceId: string
  sourceModified: string | null
}

/** One item of the observation array, or the issue naming it. */
export function readObservationDraft(item: unknown, index: number): ObservationDraft | BatchIssue {
  const source = `observation[${index}]`
  try {
    if (!item || typeof item !== 'object' || Array.isArray(item))
      throw new Error('each observation must be a JSON object')
    const o = item as Record<string, unknown>
    const key = readIndicatorKey(o)
    const count = o.count === undefined || o.count === null ? 1 : Number(o.count)
    if (!Number.isInteger(count) || count < 1 || count > MAX_COUNT)
      throw new Error(`count must be a whole number of at least 1, not '${String(o.count)}'`)
    const dateObserved = parseApiTime(o.dateObserved)
    if (!dateObserved) throw new Error(`dateObserved must be an ISO 8601 time, not '${String(o.dateObserved)}'`)
    if (typeof o.sourceId !== 'string' || !o.sourceId || o.sourceId.length > MAX_SOURCE_ID)
      throw new Error(`sourceId (the sighting's id) is required, at most ${MAX_SOURCE_ID} characters`)
    const modified = o.externalLastModified === undefined ? null : parseApiTime(o.externalLastModified)
    if (o.externalLastModified !== undefined && !modified)
      throw new Error(`externalLastModified must be an ISO 8601 time, not '${String(o.externalLastModified)}'`)
    return {
      index,
      indicator: { kind: 'indicator', def: key.def, summary: key.summary, values: key.values },
      count,
      dateObserved,
      sourceId: o.sourceId,
      sourceModified: modified,
    }
  } catch (error) {
    const message = (error as Error).message
    return batchError(BATCH_CODES.general, source, `Observation: ${message}`, `${source}: ${message}`)
  }
}

/**
 * Records the chunk's observations: each of an Indicator of the owner, by the job's account
 * (which must be allowed to report observations there, and included in observations).
 */
export async function writeObservationChunk(
  db: Kysely<Database>,
  env: BatchEnvironment,
  drafts: ObservationDraft[],
): Promise<{ consumed: number; written: number; issues: BatchIssue[]; outcome: WriteOutcome }> {
  const resolve = await resolveReferences(
    db,
    env,
    drafts.map((d) => d.indicator),
  )
  const refusal = !env.may.observe
    ? `You do not have permission to report observations in ${env.ownerName}`
    : !env.ctx.caller.account.observationsEnabled
      ? `The account ${env.ctx.caller.account.userName} is not set to be included in observations`
      : undefined
  const results = drafts.map((draft) => {
    if (refusal) return { draft, error: refusal, code: BATCH_CODES.permission }
    const found = resolve(draft.indicator)
    if (!found)
      return {
        draft,
        error: `${draft.indicator.def.name} Indicator '${draft.indicator.summary}' was not found in ${env.ownerName}`,
        code: BATCH_CODES.notFound,
      }
    return { draft, indicatorId: found.id }
  })
  haltAtFirst(env, results, (r) => 'error' in r)
  const ok = results.filter((r): r is { draft: ObservationDraft; indicatorId: number } => 'indicatorId' in r)
  const held = await findSourcedObservations(
    db,
    ok.map((r) => r.indicatorId),
    ok.map((r) => r.draft.sourceId),
  )
  const heldOf = new Map(held.map((h) => [`${h.indicator_id}|${h.source_ref}`, h]))
  // Two items of one chunk naming the same sighting and Indicator: the later version wins, once.
  const latest = new Map<string, (typeof ok)[number]>()
  for (const r of ok) {
    const key = `${r.indicatorId}|${r.draft.sourceId}`
    const before = latest.get(key)
    if (!before || (r.draft.sourceModified ?? '') > (before.draft.sourceModified ?? '')) latest.set(key, r)
  }
  const outcome: WriteOutcome = { created: 0, updated: 0, unchanged: ok.length - latest.size }
  const writes = []
  for (const [key, r] of latest) {
    const stored = heldOf.get(key)
    if (stored && (r.draft.sourceModified === null || (stored.source_modified ?? '') >= r.draft.sourceModified)) {
      outcome.unchanged++
      continue
    }
    if (stored) outcome.updated++
    else outcome.created++
    writes.push({
      indicatorId: r.indicatorId,
      userId: env.ctx.caller.account.id,
      count: r.draft.count,
      dateObserved: r.draft.dateObserved,
      sourceRef: r.draft.sourceId,
      sourceModified: r.draft.sourceModified,
      held: stored,
    })
  }
  await recordSourcedObservations(db, writes)
  return {
    consumed: results.length,
    written: ok.length,
    outcome,
    issues: results.flatMap((r) =>
      'error' in r && r.error
        ? [
            batchError(
              r.code!,
              `observation[${r.draft.index}]`,
              `Observation: ${r.error}`,
              `observation[${r.draft.index}]: ${r.error}`,
            ),
          ]
        : [],
    ),
  }
}

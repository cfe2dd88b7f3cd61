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
  findSightingAttributes,
  recordSourcedObservations,
  updateAttributeValue,
  widenGroupSeen,
} from '../../store/repositories/indicator-activity.repository.js'
import { insertRows } from '../../store/repositories/batch-write.repository.js'
import type { Database } from '../../store/database.js'
import { parseApiTime } from '../../core/time.js'
import type { AssociationRef } from './association-input.js'
import { BATCH_CODES, type BatchCode, type BatchIssue, batchError } from './codes.js'
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

/**
 * A sighting of a Group (`{groupXid, count, dateObserved, firstSeen, lastSeen, sourceId,
 * externalLastModified}`): the platform has observations of Indicators only, so it widens the
 * Group's firstSeen / lastSeen (its `sightings` fields) and is kept as an attribute naming the
 * sighting, its count and window (docs/decisions.md).
 */
export interface GroupSightingDraft {
  index: number
  group: Extract<AssociationRef, { xid: string }>
  count: number
  firstSeen: string
  lastSeen: string
  sourceId: string
  sourceModified: string | null
}

const isGroupSighting = (d: ObservationDraft | GroupSightingDraft): d is GroupSightingDraft => 'group' in d

/** One item of the observation array, or the issue naming it. */
export function readObservationDraft(item: unknown, index: number): ObservationDraft | GroupSightingDraft | BatchIssue {
  const source = `observation[${index}]`
  try {
    if (!item || typeof item !== 'object' || Array.isArray(item))
      throw new Error('each observation must be a JSON object')
    const o = item as Record<string, unknown>
    if (o.groupXid !== undefined) return readGroupSighting(o, index)
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

function readGroupSighting(o: Record<string, unknown>, index: number): GroupSightingDraft {
  if (typeof o.groupXid !== 'string' || !o.groupXid.trim()) throw new Error('groupXid must be a Group xid')
  const count = o.count === undefined || o.count === null ? 1 : Number(o.count)
  if (!Number.isInteger(count) || count < 1 || count > MAX_COUNT)
    throw new Error(`count must be a whole number of at least 1, not '${String(o.count)}'`)
  const time = (value: unknown, name: string) => {
    const parsed = parseApiTime(value)
    if (!parsed) throw new Error(`${name} must be an ISO 8601 time, not '${String(value)}'`)
    return parsed
  }
  const dateObserved = time(o.dateObserved, 'dateObserved')
  const firstSeen = o.firstSeen === undefined ? dateObserved : time(o.firstSeen, 'firstSeen')
  const lastSeen = o.lastSeen === undefined ? dateObserved : time(o.lastSeen, 'lastSeen')
  if (typeof o.sourceId !== 'string' || !o.sourceId || o.sourceId.length > MAX_SOURCE_ID)
    throw new Error(`sourceId (the sighting's id) is required, at most ${MAX_SOURCE_ID} characters`)
  const modified = o.externalLastModified === undefined ? null : time(o.externalLastModified, 'externalLastModified')
  return {
    index,
    group: { kind: 'group', xid: o.groupXid.trim() },
    count,
    firstSeen: firstSeen < lastSeen ? firstSeen : lastSeen,
    lastSeen: firstSeen < lastSeen ? lastSeen : firstSeen,
    sourceId: o.sourceId,
    sourceModified: modified,
  }
}

/**
 * Records the chunk's observations: each of an Indicator of the owner, by the job's account
 * (which must be allowed to report observations there, and included in observations).
 */
export async function writeObservationChunk(
  db: Kysely<Database>,
  env: BatchEnvironment,
  all: (ObservationDraft | GroupSightingDraft)[],
): Promise<ChunkOutcome> {
  // A chunk is of one kind, from its first draft: so a halt stops at the first failure in file order.
  const kind = all.length && isGroupSighting(all[0])
  const cut = all.findIndex((d) => isGroupSighting(d) !== kind)
  const chunk = cut < 0 ? all : all.slice(0, cut)
  if (kind) return writeGroupSightings(db, env, chunk as GroupSightingDraft[])
  const drafts = chunk as ObservationDraft[]
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
  return chunkOutcome(results, ok.length, outcome)
}

/** What a Group sighting's attribute says: `sighting: <id>: count <n>, seen <first> to <last> (version <modified>)`. */
const SIGHTING_PREFIX = 'sighting: '
/** Where an import keeps what a Group has no field for (formats/stix2/stix.ts STIX_EXTRA_ATTRIBUTE). */
const SIGHTING_ATTRIBUTE = 'Additional Analysis and Context'
function sightingValue(d: GroupSightingDraft): string {
  const window = d.firstSeen === d.lastSeen ? `seen ${d.firstSeen}` : `seen ${d.firstSeen} to ${d.lastSeen}`
  return `${SIGHTING_PREFIX}${d.sourceId}: count ${d.count}, ${window}${d.sourceModified ? ` (version ${d.sourceModified})` : ''}`
}
const versionOf = (value: string) => /\(version (\S+)\)$/.exec(value)?.[1] ?? null

/**
 * Sightings of Groups: each widens its Group's firstSeen / lastSeen to the sighting's window
 * (whatever version: the widest window seen stands, so re-reading one changes nothing) and is
 * kept as one `Additional Analysis and Context` attribute per sighting, replaced by a later
 * version (`modified`) and left as it is otherwise. Writing a Group's dates and attributes is an
 * edit: the job's account needs the update permission in the owner.
 */
async function writeGroupSightings(
  db: Kysely<Database>,
  env: BatchEnvironment,
  drafts: GroupSightingDraft[],
): Promise<ChunkOutcome> {
  const resolve = await resolveReferences(
    db,
    env,
    drafts.map((d) => d.group),
  )
  const typeId = env.attributeTypes.get(SIGHTING_ATTRIBUTE)?.id
  const results = drafts.map((draft) => {
    if (!env.may.update)
      return {
        draft,
        error: `You do not have permission to modify Groups in ${env.ownerName}`,
        code: BATCH_CODES.permission,
      }
    if (typeId === undefined)
      return {
        draft,
        error: `The attribute type ${SIGHTING_ATTRIBUTE} is not available in ${env.ownerName}`,
        code: BATCH_CODES.general,
      }
    const found = resolve(draft.group)
    if (!found)
      return {
        draft,
        error: `Group with xid '${draft.group.xid}' was not found in ${env.ownerName}`,
        code: BATCH_CODES.notFound,
      }
    return { draft, groupId: found.id }
  })
  haltAtFirst(env, results, (r) => 'error' in r)
  const ok = results.filter((r): r is { draft: GroupSightingDraft; groupId: number } => 'groupId' in r)
  const outcome: WriteOutcome = { created: 0, updated: 0, unchanged: 0 }
  if (ok.length) {
    const groupIds = [...new Set(ok.map((r) => r.groupId))]
    const held = await findSightingAttributes(db, groupIds, typeId!, SIGHTING_PREFIX)
    const heldOf = new Map<string, { id: number; value: string }>()
    for (const a of held) {
      const rest = a.value.slice(SIGHTING_PREFIX.length)
      heldOf.set(`${a.item_id}|${rest.slice(0, rest.indexOf(': '))}`, a)
    }
    const now = env.ctx.now
    const added: { groupId: number; value: string }[] = []
    for (const r of ok) {
      const key = `${r.groupId}|${r.draft.sourceId}`
      const stored = heldOf.get(key)
      const value = sightingValue(r.draft)
      if (stored) {
        const version = versionOf(stored.value)
        const later = r.draft.sourceModified !== null && (version === null || r.draft.sourceModified > version)
        if (!later || stored.value === value) {
          outcome.unchanged++
          continue
        }
        await updateAttributeValue(db, stored.id, value, now)
        stored.value = value
        outcome.updated++
      } else {
        added.push({ groupId: r.groupId, value })
        heldOf.set(key, { id: -1, value })
        outcome.created++
      }
    }
    await insertRows(
      db,
      'attribute',
      added.map((a) => ({
        owner_id: env.ownerId,
        item_kind: 'group',
        item_id: a.groupId,
        type_id: typeId!,
        value: a.value,
        displayed: 0,
        pinned: 0,
        source: null,
        created_by: env.ctx.caller.account.id,
        date_added: now,
        last_modified: now,
      })),
    )
    const windows = new Map<number, { first: string; last: string }>()
    for (const { groupId, draft } of ok) {
      const w = windows.get(groupId)
      windows.set(groupId, {
        first: w && w.first < draft.firstSeen ? w.first : draft.firstSeen,
        last: w && w.last > draft.lastSeen ? w.last : draft.lastSeen,
      })
    }
    await widenGroupSeen(db, windows, now)
  }
  return chunkOutcome(results, ok.length, outcome)
}

type ChunkOutcome = { consumed: number; written: number; issues: BatchIssue[]; outcome: WriteOutcome }

/** A chunk of observations or Group sightings as the batch job counts it: each refused draft an issue at its place. */
function chunkOutcome(
  results: ({ draft: { index: number } } & ({ error: string; code: BatchCode } | object))[],
  written: number,
  outcome: WriteOutcome,
): ChunkOutcome {
  return {
    consumed: results.length,
    written,
    outcome,
    issues: results.flatMap((r) =>
      'error' in r && r.error
        ? [
            batchError(
              r.code,
              `observation[${r.draft.index}]`,
              `Observation: ${r.error}`,
              `observation[${r.draft.index}]: ${r.error}`,
            ),
          ]
        : [],
    ),
  }
}

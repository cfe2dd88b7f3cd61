/**
 * Writes one chunk of validated Indicators, set-based: the existing ones are found with one
 * IN query per key column, new rows go in with multi-row INSERTs, changed rows with one
 * CASE-per-column UPDATE, metadata with bulk inserts. Runs inside the chunk's transaction.
 * When two items of the chunk would touch the same row, the chunk is cut before the second
 * so items are applied in file order; the rest waits for the next chunk.
 */
import type { Kysely } from 'kysely'
import { composeSummary } from '../../model/indicator-types.js'
import {
  type ExistingIndicator,
  type RowUpdate,
  drawIndicatorIds,
  findFilesByHashes,
  findIndicatorsBySummaries,
  findIndicatorsByStixIds,
  insertRows,
  mergeFilesInto,
  updateRowsById,
} from '../../store/repositories/batch-write.repository.js'
import { markIndicatorsSighted } from '../../store/repositories/lifecycle.repository.js'
import type { Database } from '../../store/database.js'
import { removeIndicators } from '../indicators/indicators.js'
import { INDICATOR_COLUMN_TYPES, insertIndicators, updateIndicators } from '../indicators/write.js'
import { type FilePlan, fileMatch, filesSharingHashes, planFile } from '../indicators/file-hashes.js'
import type { RequestContext } from '../context.js'
import { contextIn } from '../transaction.js'
import { BATCH_CODES, type BatchIssue, batchWarning } from './codes.js'
import type { BatchEnvironment } from './environment.js'
import type { IndicatorDraft } from './input.js'
import type { WriteOutcome } from './progress.js'
import { type CreatedLabels, type MetadataTarget, writeMetadata } from './write-metadata.js'

export interface ChunkOutcome {
  /** How many drafts, from the start of the list, this chunk handled. */
  consumed: number
  written: number
  issues: BatchIssue[]
  createdLabels: CreatedLabels
  /** Of the written items: how many made a row, changed one, or found their version held already. */
  outcome?: WriteOutcome
}

type Plan = { draft: IndicatorDraft } & (
  | FilePlan
  | { kind: 'insert'; hashes: (string | null)[]; deleteFirst: number[] }
  | { kind: 'update'; ids: number[]; deleteFirst: number[]; hashes?: (string | null)[] }
  | { kind: 'unchanged'; ids: number[] }
)

async function findExisting(db: Kysely<Database>, env: BatchEnvironment, drafts: IndicatorDraft[]) {
  const files = drafts.filter((d) => d.def.name === 'File')
  const others = drafts.filter((d) => d.def.name !== 'File')
  const bySummary = new Map<string, ExistingIndicator>()
  for (const row of await findIndicatorsBySummaries(
    db,
    env.ownerId,
    others.map((d) => ({ type: d.def.name, summary: d.summary })),
  ))
    bySummary.set(`${row.type}|${row.summary}`, row)
  const fileRows = files.length
    ? await findFilesByHashes(db, env.ownerId, {
        md5: files.flatMap((d) => (d.values[0] ? [d.values[0]] : [])),
        sha1: files.flatMap((d) => (d.values[1] ? [d.values[1]] : [])),
        sha256: files.flatMap((d) => (d.values[2] ? [d.values[2]] : [])),
      })
    : []
  return { bySummary, fileRows }
}

type Existing = Awaited<ReturnType<typeof findExisting>>

function plan(env: BatchEnvironment, draft: IndicatorDraft, existing: Existing): Plan {
  if (draft.def.name !== 'File') {
    const row = existing.bySummary.get(`${draft.def.name}|${draft.summary}`)
    return row
      ? { draft, kind: 'update', ids: [row.id], deleteFirst: [] }
      : { draft, kind: 'insert', hashes: draft.values, deleteFirst: [] }
  }
  const matches = filesSharingHashes(existing.fileRows, draft.values)
    .sort((a, b) => (a.last_modified < b.last_modified ? 1 : a.last_modified > b.last_modified ? -1 : b.id - a.id))
    .map(fileMatch)
  return { draft, ...planFile(draft.values, matches, env.options) }
}

/**
 * Whether an update would write a version of its source the row holds already (job option
 * sourceVersions): one row, no hash it lacks, and an externalLastModified not later than the
 * stored one, or no field at all to change (an SCO: a value, no dates). Any other item without
 * that date is always written.
 */
function heldAlready(p: Plan, existing: Existing): boolean {
  if (p.kind !== 'update' || p.ids.length !== 1 || p.deleteFirst.length) return false
  const row =
    p.draft.def.name === 'File'
      ? existing.fileRows.find((r) => r.id === p.ids[0])
      : existing.bySummary.get(`${p.draft.def.name}|${p.draft.summary}`)
  if (!row) return false
  const sameHashes = !p.hashes || p.hashes.every((h, i) => h === [row.value1, row.value2, row.value3][i])
  if (Object.keys(p.draft.changes).length === 0) return sameHashes
  const incoming = p.draft.changes.external_last_modified
  if (typeof incoming !== 'string') return false
  if (!row.external_last_modified || row.external_last_modified < incoming) return false
  return sameHashes
}

/** What the chunk does with a draft, given the rows its look-ups found. */
function decide(env: BatchEnvironment, draft: IndicatorDraft, existing: Existing): Plan {
  const planned = plan(env, draft, existing)
  return env.options.sourceVersions && heldAlready(planned, existing)
    ? { draft, kind: 'unchanged', ids: planned.kind === 'update' ? planned.ids : [] }
    : planned
}

const keyOf = (p: Plan & { kind: 'insert' }) => `${p.draft.def.name}|${composeSummary(p.draft.def, p.hashes)}`

/**
 * Inserts the chunk's new Indicators and returns their ids by key. A value that another writer (a node, or a job
 * beside this one) committed since the look-up is skipped by the insert and found again: its plan turns into the
 * update a later chunk would have made, in `plans` and `existing`, rather than failing the whole chunk on a unique
 * violation and running it again (docs/batch.md). Only a plain update of one row is taken this way; a File whose
 * hashes now match several rows (a merge), or an item taking a source STIX id, fails the chunk as a race. On
 * PostgreSQL the rows go in in the order of their keys, so two such inserts never each wait for a row the other
 * holds, with ids drawn beforehand in the file's order, so that the ids follow the file as on SQLite.
 */
async function insertNew(
  ctx: RequestContext,
  env: BatchEnvironment,
  plans: Plan[],
  taken: Map<Plan, string>,
  existing: Existing,
): Promise<Map<string, number>> {
  let inserts: { p: Plan & { kind: 'insert' }; key: string; id?: number }[] = plans
    .filter((p): p is Plan & { kind: 'insert' } => p.kind === 'insert')
    .map((p) => ({ p, key: keyOf(p) }))
  if (ctx.store.dialect === 'postgres' && inserts.length > 1) {
    // Numbered in the file's order, written in the keys' order.
    const ids = await drawIndicatorIds(ctx.store.db, inserts.length)
    inserts = inserts
      .map((insert, k) => ({ ...insert, id: ids[k] }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  }
  const newIds = await insertIndicators(
    ctx,
    inserts.map(({ p, id }) => ({
      def: p.draft.def,
      values: p.hashes,
      changes: p.draft.changes,
      stixId: taken.get(p),
      id,
    })),
    { skipExisting: true },
  )
  const lost = inserts.filter(({ key }) => !newIds.has(key)).map(({ p }) => p)
  if (lost.length === 0) return newIds
  const found = await findExisting(
    ctx.store.db,
    env,
    lost.map((p) => p.draft),
  )
  for (const p of lost) {
    const again = decide(env, p.draft, found)
    const plain =
      again.kind === 'unchanged' || (again.kind === 'update' && again.ids.length === 1 && !again.deleteFirst.length)
    if (!plain || taken.has(p)) throw new WriteRaceError()
    plans[plans.indexOf(p)] = again
  }
  for (const [key, row] of found.bySummary) existing.bySummary.set(key, row)
  existing.fileRows.push(...found.fileRows.filter((row) => !existing.fileRows.some((known) => known.id === row.id)))
  return newIds
}

/** A write that lost to another writer in a way only running the chunk again resolves (run-job.ts retries it). */
class WriteRaceError extends Error {
  readonly code = '40001'
  constructor() {
    super('An Indicator of this chunk was created concurrently in a way that is merged by running the chunk again')
  }
}

/** Row ids and keys a plan touches; two plans of one chunk must not share any. */
function claims(p: Plan): string[] {
  // Only Files are found by their values (hashes); any other Indicator's row is its type and summary.
  if (p.kind === 'insert' && p.draft.def.name !== 'File')
    return [`s:${p.draft.def.name}|${p.draft.summary}`, ...(p.draft.stixId ? [`x:${p.draft.stixId}`] : [])]
  const keys = [`s:${p.draft.def.name}|${p.draft.summary}`, ...p.draft.values.filter(Boolean).map((h) => `h:${h}`)]
  if (p.kind === 'insert' || p.kind === 'update' || p.kind === 'merge')
    keys.push(...(p.hashes ?? []).filter(Boolean).map((h) => `h:${h}`))
  // Two versions of one source object with different values: the second waits, so the newer one's id lands last.
  if (p.draft.stixId) keys.push(`x:${p.draft.stixId}`)
  const ids =
    p.kind === 'update' || p.kind === 'unchanged' ? p.ids : p.kind === 'merge' ? [p.primary, ...p.secondaries] : []
  return [...keys, ...ids.map((id) => `i:${id}`), ...('deleteFirst' in p ? p.deleteFirst.map((id) => `i:${id}`) : [])]
}

/** Deletes Indicators of the job's owner the API's way (removeIndicators), inside the chunk's transaction. */
export async function deleteIndicators(
  db: Kysely<Database>,
  env: BatchEnvironment,
  rows: { id: number; type: string; summary: string }[],
) {
  await removeIndicators(
    contextIn(env.ctx, db),
    rows.map((r) => ({ ...r, ownerId: env.ownerId })),
  )
}

/** Creates or updates the chunk's Indicators (action Create). */
export async function writeIndicatorChunk(
  db: Kysely<Database>,
  env: BatchEnvironment,
  drafts: IndicatorDraft[],
): Promise<ChunkOutcome> {
  const existing = await findExisting(db, env, drafts)
  const plans: Plan[] = []
  const claimed = new Set<string>()
  for (const draft of drafts) {
    const p = decide(env, draft, existing)
    const keys = claims(p)
    if (plans.length > 0 && keys.some((k) => claimed.has(k))) break
    for (const k of keys) claimed.add(k)
    plans.push(p)
  }
  const issues: BatchIssue[] = []
  for (const p of plans) {
    if (p.kind === 'unchanged') continue
    if (p.kind === 'skip') {
      issues.push(
        batchWarning(
          BATCH_CODES.fileHashMerge,
          `indicator[${p.draft.index}]`,
          `File Hash Merge: ${p.draft.summary}: ${p.reason}`,
        ),
      )
      continue
    }
    if (p.deleteFirst.length) {
      const doomed = existing.fileRows.filter((r) => p.deleteFirst.includes(r.id))
      await deleteIndicators(db, env, doomed)
      issues.push(
        batchWarning(
          BATCH_CODES.fileHashMerge,
          `indicator[${p.draft.index}]`,
          `File Hash Merge: deleted conflicting Files ${doomed.map((r) => r.summary).join(', ')} (hashCollisionMode IgnoreExisting)`,
        ),
      )
    }
    if (p.kind === 'merge') await mergeFilesInto(db, p.primary, p.secondaries)
  }

  const taken = await takeStixIds(db, env, plans)
  const ctx = contextIn(env.ctx, db)
  const newIds = await insertNew(ctx, env, plans, taken, existing)
  const inserts = plans.filter((p): p is Plan & { kind: 'insert' } => p.kind === 'insert')

  const updates: RowUpdate[] = []
  const sighted: number[] = []
  const targets: (MetadataTarget & { draft: IndicatorDraft })[] = []
  const rowOf = existingRows(existing)
  for (const p of plans) {
    if (p.kind === 'unchanged') {
      const row = rowOf.get(p.ids[0])
      if (row) resighted(row, p.draft, env.ctx.now, updates, sighted)
      continue
    }
    if (p.kind === 'insert') {
      targets.push({
        draft: p.draft,
        ids: [newIds.get(`${p.draft.def.name}|${composeSummary(p.draft.def, p.hashes)}`)!],
        existing: false,
      })
    } else if (p.kind === 'update' || p.kind === 'merge') {
      const ids = p.kind === 'update' ? p.ids : [p.primary]
      const hashes = p.hashes
      for (const id of ids) {
        const changes: Record<string, unknown> = { ...p.draft.changes }
        if (taken.has(p) && id === (p.kind === 'update' ? p.ids[0] : p.primary)) changes.stix_id = taken.get(p)
        const row = rowOf.get(id)
        if (row) automatedActive(row, changes)
        if (hashes)
          Object.assign(changes, {
            value1: hashes[0],
            value2: hashes[1],
            value3: hashes[2],
            summary: composeSummary(p.draft.def, hashes),
          })
        updates.push({ id, changes })
      }
      targets.push({ draft: p.draft, ids, existing: true })
    }
  }
  await updateIndicators(ctx, updates)
  await markIndicatorsSighted(db, sighted, env.ctx.now)
  const createdLabels = await writeMetadata(db, env, 'indicator', targets)
  await insertRows(
    db,
    'file_occurrence',
    targets.flatMap((t) => t.ids.flatMap((id) => t.draft.occurrences.map((o) => ({ indicator_id: id, ...o })))),
  )
  const updated = plans.filter((p) => p.kind === 'update' || p.kind === 'merge').length
  return {
    consumed: plans.length,
    written: plans.length,
    issues,
    createdLabels,
    outcome: { created: inserts.length, updated, unchanged: plans.length - inserts.length - updated },
  }
}

/**
 * The source STIX id each written Indicator is to be served under (migration 0139), written with
 * its row: one Indicator per id in an owner. An id held by another Indicator moves to this one only
 * from a later version of its object (`modified`, or one without it), so the newest version's value
 * carries it and an older file imported again does not take it back; the one it leaves is served
 * under its derived id again, a change (last_modified) a TAXII client polling by date added sees.
 * Those holders lose it here, before the chunk's rows are written.
 */
async function takeStixIds(db: Kysely<Database>, env: BatchEnvironment, plans: Plan[]): Promise<Map<Plan, string>> {
  const taken = new Map<Plan, string>()
  const wanting = plans.filter(
    (p) => p.draft.stixId && (p.kind === 'insert' || p.kind === 'merge' || (p.kind === 'update' && p.ids.length === 1)),
  )
  if (wanting.length === 0) return taken
  const holders = new Map(
    (await findIndicatorsByStixIds(db, env.ownerId, [...new Set(wanting.map((p) => p.draft.stixId!))])).map((r) => [
      r.stix_id!,
      r,
    ]),
  )
  const cleared: number[] = []
  for (const p of wanting) {
    const stixId = p.draft.stixId!
    const target = p.kind === 'update' ? p.ids[0] : p.kind === 'merge' ? p.primary : undefined
    const holder = holders.get(stixId)
    if (holder && holder.id === target) continue
    if (holder) {
      const incoming = p.draft.changes.external_last_modified
      const later =
        typeof incoming !== 'string' || !holder.external_last_modified || incoming > holder.external_last_modified
      if (!later) continue
      cleared.push(holder.id)
    }
    taken.set(p, stixId)
  }
  await updateRowsById(
    db,
    'indicator',
    cleared.map((id) => ({ id, changes: { stix_id: null, last_modified: env.ctx.now } })),
    INDICATOR_COLUMN_TYPES,
  )
  return taken
}

function existingRows(existing: Existing): Map<number, ExistingIndicator> {
  const rows = new Map<number, ExistingIndicator>()
  for (const row of existing.bySummary.values()) rows.set(row.id, row)
  for (const row of existing.fileRows) rows.set(row.id, row)
  return rows
}

/** How long an Indicator met again unchanged goes without its last_sighted being written again. */
const SIGHTING_RESOLUTION_MS = 86_400_000

/**
 * A batch is automation (an import, a feed): it leaves a locked Indicator's active flag alone, and an
 * Indicator the lifecycle turned inactive (domain/lifecycle) comes back when it is seen again, unless
 * the item itself says it is inactive.
 */
function automatedActive(row: ExistingIndicator, changes: Record<string, unknown>) {
  if (row.active_locked) delete changes.active
  else if (row.stale_since && changes.active === undefined) changes.active = 1
}

/** An item whose source version is held already still renews its Indicator (domain/lifecycle). */
function resighted(
  row: ExistingIndicator,
  draft: IndicatorDraft,
  now: string,
  updates: RowUpdate[],
  sighted: number[],
) {
  const inactive = draft.changes.active === 0
  if (row.stale_since && !row.active_locked && !inactive) updates.push({ id: row.id, changes: { active: 1 } })
  else if ((row.last_sighted ?? row.last_modified) < new Date(Date.parse(now) - SIGHTING_RESOLUTION_MS).toISOString())
    sighted.push(row.id)
}

/**
 * Writes one chunk of validated Groups, keyed by xid within the owner: one IN query finds
 * the existing ones, new rows go in with a multi-row INSERT, existing ones are updated with
 * one CASE-per-column UPDATE, and metadata in bulk. Deletes (action Delete) for both kinds
 * live here too.
 */
import type { Kysely } from 'kysely'
import {
  findFilesByHashes,
  findGroupsByXids,
  findIndicatorsBySummaries,
} from '../../store/repositories/batch-write.repository.js'
import type { Database } from '../../store/database.js'
import { deleteGroupRows } from '../../store/repositories/group.repository.js'
import { deleteItemMetadata } from '../metadata/item-metadata.js'
import { filesSharingHashes } from '../indicators/file-hashes.js'
import { insertGroups, updateGroups } from '../groups/write.js'
import { contextIn } from '../transaction.js'
import { BATCH_CODES, type BatchIssue, batchError } from './codes.js'
import type { BatchEnvironment } from './environment.js'
import type { GroupDraft, IndicatorDraft } from './input.js'
import { type ChunkOutcome, deleteIndicators } from './write-indicators.js'
import { type MetadataTarget, writeMetadata } from './write-metadata.js'

/** With haltOnError, drops every draft after the first that fails at write time (in place). */
export function haltAtFirst<T>(env: BatchEnvironment, drafts: T[], fails: (d: T) => boolean) {
  if (!env.options.haltOnError) return
  const first = drafts.findIndex(fails)
  if (first >= 0) drafts.splice(first + 1)
}

/** Creates or updates the chunk's Groups (action Create). */
export async function writeGroupChunk(
  db: Kysely<Database>,
  env: BatchEnvironment,
  drafts: GroupDraft[],
): Promise<ChunkOutcome> {
  const existing = new Map(
    (
      await findGroupsByXids(
        db,
        env.ownerId,
        drafts.map((d) => d.xid),
      )
    ).map((g) => [g.xid!, g]),
  )
  const seen = new Set<string>()
  const accepted: GroupDraft[] = []
  for (const d of drafts) {
    if (accepted.length > 0 && seen.has(d.xid)) break
    seen.add(d.xid)
    accepted.push(d)
  }
  const wrongType = (d: GroupDraft) => {
    const found = existing.get(d.xid)
    return !!found && found.type !== d.def.name
  }
  haltAtFirst(env, accepted, wrongType)
  const issues: BatchIssue[] = accepted
    .filter(wrongType)
    .map((d) =>
      batchError(
        BATCH_CODES.invalidGroup,
        `group[${d.index}]`,
        `Invalid Group: xid '${d.xid}' belongs to a ${existing.get(d.xid)!.type} Group, not a ${d.def.name}`,
      ),
    )
  // A version of its source the Group holds already (job option sourceVersions) is left as it is, metadata too.
  const held = (d: GroupDraft) => {
    const stored = existing.get(d.xid)?.external_last_modified
    const incoming = d.columns.external_last_modified
    return !!env.options.sourceVersions && !!stored && typeof incoming === 'string' && stored >= incoming
  }
  const valid = accepted.filter((d) => !wrongType(d))
  const unchanged = valid.filter(held).length
  const written = valid.filter((d) => !held(d))
  const inserts = written.filter((d) => !existing.has(d.xid))
  const ctx = contextIn(env.ctx, db)
  const newIds = await insertGroups(
    ctx,
    inserts.map((d) => ({ def: d.def, xid: d.xid, columns: d.columns })),
  )
  const updates = written.filter((d) => existing.has(d.xid))
  await updateGroups(
    ctx,
    updates.map((d) => ({ id: existing.get(d.xid)!.id, columns: d.columns })),
  )
  const targets: MetadataTarget[] = written.map((d) => ({
    draft: d,
    ids: [existing.get(d.xid)?.id ?? newIds.get(d.xid)!],
    existing: existing.has(d.xid),
  }))
  const createdLabels = await writeMetadata(db, env, 'group', targets)
  return {
    consumed: accepted.length,
    written: valid.length,
    issues,
    createdLabels,
    outcome: { created: inserts.length, updated: updates.length, unchanged },
  }
}

export async function deleteGroupChunk(
  db: Kysely<Database>,
  env: BatchEnvironment,
  all: GroupDraft[],
): Promise<ChunkOutcome> {
  const found = new Map(
    (
      await findGroupsByXids(
        db,
        env.ownerId,
        all.map((d) => d.xid),
      )
    ).map((g) => [g.xid!, g.id]),
  )
  const drafts = [...all]
  haltAtFirst(env, drafts, (d) => !found.has(d.xid))
  const issues = drafts
    .filter((d) => !found.has(d.xid))
    .map((d) =>
      batchError(
        BATCH_CODES.notFound,
        `group[${d.index}]`,
        `Item Not Found: no Group with xid '${d.xid}' in ${env.ownerName}`,
      ),
    )
  const ids = [...new Set(drafts.flatMap((d) => (found.has(d.xid) ? [found.get(d.xid)!] : [])))]
  await deleteItemMetadata(db, 'group', ids)
  await deleteGroupRows(db, ids)
  return { consumed: drafts.length, written: drafts.length - issues.length, issues, createdLabels: [] }
}

/** Deletes the listed Indicators; a File is found by any of its hashes. */
export async function deleteIndicatorChunk(
  db: Kysely<Database>,
  env: BatchEnvironment,
  all: IndicatorDraft[],
): Promise<ChunkOutcome> {
  const drafts = [...all]
  const others = await findIndicatorsBySummaries(
    db,
    env.ownerId,
    drafts.filter((d) => d.def.name !== 'File').map((d) => ({ type: d.def.name, summary: d.summary })),
  )
  const files = drafts.filter((d) => d.def.name === 'File')
  const fileRows = files.length
    ? await findFilesByHashes(db, env.ownerId, {
        md5: files.flatMap((d) => (d.values[0] ? [d.values[0]] : [])),
        sha1: files.flatMap((d) => (d.values[1] ? [d.values[1]] : [])),
        sha256: files.flatMap((d) => (d.values[2] ? [d.values[2]] : [])),
      })
    : []
  const rowsOf = (d: IndicatorDraft) =>
    d.def.name === 'File'
      ? filesSharingHashes(fileRows, d.values)
      : others.filter((r) => r.type === d.def.name && r.summary === d.summary)
  haltAtFirst(env, drafts, (d) => rowsOf(d).length === 0)
  const doomed = new Map<number, { id: number; type: string; summary: string }>()
  const issues: BatchIssue[] = []
  for (const d of drafts) {
    const rows = rowsOf(d)
    if (rows.length === 0)
      issues.push(
        batchError(
          BATCH_CODES.notFound,
          `indicator[${d.index}]`,
          `Item Not Found: no ${d.def.name} Indicator '${d.summary}' in ${env.ownerName}`,
        ),
      )
    for (const r of rows) doomed.set(r.id, r)
  }
  await deleteIndicators(db, env, [...doomed.values()])
  return { consumed: drafts.length, written: drafts.length - issues.length, issues, createdLabels: [] }
}

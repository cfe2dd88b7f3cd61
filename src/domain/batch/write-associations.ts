/**
 * Resolves and writes a chunk of associations: references are looked up with one IN query
 * per kind of reference, the pair rules are checked in memory (Indicator-Group, Group-Group,
 * and Indicator-Indicator only with a fitting association type; never across owners), and
 * the rows go in both directions with one multi-row INSERT.
 */
import type { Kysely } from 'kysely'
import {
  findFilesByHashes,
  findGroupsByXids,
  findIndicatorsBySummaries,
  findItemIdsInOwner,
  insertRows,
} from '../../store/repositories/batch-write.repository.js'
import { listAssociationTypeRows } from '../../store/repositories/association.repository.js'
import type { Database } from '../../store/database.js'
import { BATCH_CODES, type BatchIssue, batchError } from './codes.js'
import type { AssociationEntry, AssociationRef } from './association-input.js'
import type { BatchEnvironment } from './environment.js'
import { haltAtFirst } from './write-groups.js'
import type { WriteOutcome } from './progress.js'

export interface AssociationOutcome {
  written: number
  issues: BatchIssue[]
  /** Entries handled (written, failed or skipped). */
  consumed: number
  /** Of the written entries (inline ones aside): new associations, and those the items had already. */
  outcome: WriteOutcome
}

type Resolved = { kind: 'indicator' | 'group'; id: number; type: string } | undefined

/** Finds the references' Groups and Indicators in the job's owner (a few IN queries); the function answers per reference. */
export async function resolveReferences(db: Kysely<Database>, env: BatchEnvironment, refs: AssociationRef[]) {
  const indicators = refs.filter((r) => r.kind === 'indicator')
  const bySummary = indicators.filter((r) => 'summary' in r && r.def.name !== 'File') as Extract<
    AssociationRef,
    { summary: string }
  >[]
  const files = indicators.filter((r) => 'summary' in r && r.def.name === 'File') as Extract<
    AssociationRef,
    { summary: string }
  >[]
  const summaryRows = await findIndicatorsBySummaries(
    db,
    env.ownerId,
    bySummary.map((r) => ({ type: r.def.name, summary: r.summary })),
  )
  const fileRows = files.length
    ? await findFilesByHashes(db, env.ownerId, {
        md5: files.flatMap((r) => (r.values[0] ? [r.values[0]] : [])),
        sha1: files.flatMap((r) => (r.values[1] ? [r.values[1]] : [])),
        sha256: files.flatMap((r) => (r.values[2] ? [r.values[2]] : [])),
      })
    : []
  const indicatorIds = await findItemIdsInOwner(
    db,
    'indicator',
    env.ownerId,
    indicators.flatMap((r) => ('id' in r ? [r.id] : [])),
  )
  const groups = refs.filter((r) => r.kind === 'group')
  const xidRows = await findGroupsByXids(
    db,
    env.ownerId,
    groups.flatMap((r) => ('xid' in r ? [r.xid] : [])),
  )
  const groupIds = await findItemIdsInOwner(
    db,
    'intel_group',
    env.ownerId,
    groups.flatMap((r) => ('id' in r ? [r.id] : [])),
  )
  return (ref: AssociationRef): Resolved => {
    if (ref.kind === 'group') {
      const row = 'xid' in ref ? xidRows.find((g) => g.xid === ref.xid) : groupIds.find((g) => g.id === ref.id)
      return row && { kind: 'group', id: row.id, type: row.type }
    }
    if ('id' in ref) {
      const row = indicatorIds.find((r) => r.id === ref.id)
      return row && { kind: 'indicator', id: row.id, type: row.type }
    }
    const row =
      ref.def.name === 'File'
        ? fileRows.find((r) => [r.value1, r.value2, r.value3].some((h, i) => !!h && h === ref.values[i]))
        : summaryRows.find((r) => r.type === ref.def.name && r.summary === ref.summary)
    return row && { kind: 'indicator', id: row.id, type: row.type }
  }
}

function describe(ref: AssociationRef): string {
  if (ref.kind === 'group') return 'xid' in ref ? `Group with xid '${ref.xid}'` : `Group ${ref.id}`
  return 'id' in ref ? `${ref.def.name} Indicator ${ref.id}` : `${ref.def.name} Indicator '${ref.summary}'`
}

/** Writes the entries in order; with haltOnError, stops after the first that fails. */
export async function writeAssociationChunk(
  db: Kysely<Database>,
  env: BatchEnvironment,
  entries: AssociationEntry[],
): Promise<AssociationOutcome> {
  const resolve = await resolveReferences(
    db,
    env,
    entries.flatMap((e) => [e.a, e.b]),
  )
  const types = entries.some((e) => e.associationType) ? await listAssociationTypeRows(db) : []
  type Result = {
    entry: AssociationEntry
    row?: { a: NonNullable<Resolved>; b: NonNullable<Resolved>; typeId: number }
    error?: string
    skip?: boolean
  }
  const results: Result[] = entries.map((entry) => {
    const a = resolve(entry.a)
    const b = resolve(entry.b)
    if (!a && entry.inline) return { entry, skip: true }
    if (!env.may.associate)
      return { entry, error: `You do not have permission to create associations in ${env.ownerName}` }
    if (!a || !b) return { entry, error: `${describe(!a ? entry.a : entry.b)} was not found in ${env.ownerName}` }
    if (a.kind === b.kind && a.id === b.id) return { entry, error: 'An item cannot be associated with itself' }
    if (a.kind === 'indicator' && b.kind === 'indicator') {
      if (!entry.associationType) return { entry, error: 'associationType is required to associate two Indicators' }
      const type = types.find(
        (t) =>
          t.name.toLowerCase() === entry.associationType!.toLowerCase() ||
          t.api_branch.toLowerCase() === entry.associationType!.toLowerCase(),
      )
      if (!type) return { entry, error: `Unknown associationType '${entry.associationType}'` }
      const fits = (x: string, y: string) =>
        type.from_type.split(',').includes(x) && type.to_type.split(',').includes(y)
      if (!fits(a.type, b.type) && !fits(b.type, a.type))
        return {
          entry,
          error: `'${type.name}' links ${type.from_type} to ${type.to_type}, not ${a.type} and ${b.type}`,
        }
      return { entry, row: { a, b, typeId: type.id } }
    }
    return { entry, row: { a, b, typeId: 0 } }
  })
  haltAtFirst(env, results, (r) => !!r.error)
  const now = env.ctx.now
  const inserted = await insertRows<{ from_kind: string; from_id: number; to_kind: string; to_id: number }>(
    db,
    'association',
    results.flatMap((r) =>
      r.row
        ? [
            {
              from_kind: r.row.a.kind,
              from_id: r.row.a.id,
              to_kind: r.row.b.kind,
              to_id: r.row.b.id,
              association_type_id: r.row.typeId,
              source: 'API',
              date_added: now,
            },
            {
              from_kind: r.row.b.kind,
              from_id: r.row.b.id,
              to_kind: r.row.a.kind,
              to_id: r.row.a.id,
              association_type_id: r.row.typeId,
              source: 'API',
              date_added: now,
            },
          ]
        : [],
    ),
    ['from_kind', 'from_id', 'to_kind', 'to_id'],
    { ignoreConflicts: true },
  )
  // A conflict inserts nothing and returns no row: that pair was associated already (or earlier in this chunk).
  const fresh = new Set(inserted.map((r) => `${r.from_kind}|${r.from_id}|${r.to_kind}|${r.to_id}`))
  const written = results.filter((r) => r.row && !r.entry.inline)
  const created = written.filter(({ row }) =>
    fresh.delete(`${row!.a.kind}|${row!.a.id}|${row!.b.kind}|${row!.b.id}`),
  ).length
  return {
    consumed: results.length,
    written: written.length,
    outcome: { created, updated: 0, unchanged: written.length - created },
    issues: results
      .filter((r) => r.error)
      .map((r) =>
        batchError(BATCH_CODES.association, r.entry.source, `Association: ${r.error}`, `${r.entry.source}: ${r.error}`),
      ),
  }
}

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
import {
  findRelationshipsOfPairs,
  listAssociationTypeRows,
  setRelationship,
} from '../../store/repositories/association.repository.js'
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
  /** Entries that failed because an Indicator or Group they name was not found. */
  unresolved: number
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
    unresolved?: boolean
  }
  const results: Result[] = entries.map((entry) => {
    const a = resolve(entry.a)
    const b = resolve(entry.b)
    if (!a && entry.inline) return { entry, skip: true }
    if (!env.may.associate)
      return { entry, error: `You do not have permission to create associations in ${env.ownerName}` }
    if (!a || !b)
      return {
        entry,
        error: `${describe(!a ? entry.a : entry.b)} was not found in ${env.ownerName}`,
        unresolved: true,
      }
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
  const rowsOf = (r: Result) => {
    const { a, b, typeId } = r.row!
    const kept = r.entry.relationship
    const relationship = (fromSource: number) => ({
      relationship_type: kept?.type ?? null,
      relationship_from_source: kept ? fromSource : null,
      relationship_modified: kept?.modified ?? null,
      last_modified: null,
    })
    const row = (x: Resolved & object, y: Resolved & object, fromSource: number) => ({
      from_kind: x.kind,
      from_id: x.id,
      to_kind: y.kind,
      to_id: y.id,
      association_type_id: typeId,
      source: 'API',
      date_added: now,
      ...relationship(fromSource),
    })
    return [row(a, b, 1), row(b, a, 0)]
  }
  const inserted = await insertRows<{ from_kind: string; from_id: number; to_kind: string; to_id: number }>(
    db,
    'association',
    results.flatMap((r) => (r.row ? rowsOf(r) : [])),
    ['from_kind', 'from_id', 'to_kind', 'to_id'],
    { ignoreConflicts: true },
  )
  // A conflict inserts nothing and returns no row: that pair was associated already (or earlier in this chunk).
  const fresh = new Set(inserted.map((r) => `${r.from_kind}|${r.from_id}|${r.to_kind}|${r.to_id}`))
  const written = results.filter((r) => r.row && !r.entry.inline)
  // Both rows of a pair are one association: a later entry naming it the other way round found it made.
  const isFresh = written.map(
    ({ row }) =>
      fresh.delete(`${row!.a.kind}|${row!.a.id}|${row!.b.kind}|${row!.b.id}`) &&
      fresh.delete(`${row!.b.kind}|${row!.b.id}|${row!.a.kind}|${row!.a.id}`),
  )
  const created = isFresh.filter(Boolean).length
  const updated = await keepRelationships(
    db,
    written.filter((r, i) => r.entry.relationship && !isFresh[i] && r.row!.typeId === 0),
    now,
  )
  return {
    consumed: results.length,
    written: written.length,
    outcome: { created, updated, unchanged: written.length - created - updated },
    unresolved: results.filter((r) => r.unresolved).length,
    issues: results
      .filter((r) => r.error)
      .map((r) =>
        batchError(BATCH_CODES.association, r.entry.source, `Association: ${r.error}`, `${r.entry.source}: ${r.error}`),
      ),
  }
}

type End = { kind: 'indicator' | 'group'; id: number }
interface Kept {
  type: string | null
  /** The source end, `kind|id`. */
  source: string | null
  modified: string | null
}

const endKey = (e: End) => `${e.kind}|${e.id}`
const pairKey = (a: End, b: End) => (endKey(a) < endKey(b) ? `${endKey(a)}>${endKey(b)}` : `${endKey(b)}>${endKey(a)}`)

/**
 * The relationship type of pairs associated already (docs/import.md "Associations"): an untyped
 * association takes the relationship's type; a typed one takes another type, or the other end as
 * source, only from a later version (`modified`; a relationship without one is always written),
 * so re-importing changes nothing and of two relationships naming one pair the newest wins. A
 * changed type stamps last_modified (the relationship's served version). Returns how many of the
 * entries changed a type.
 */
async function keepRelationships(
  db: Kysely<Database>,
  entries: { entry: AssociationEntry; row?: { a: End; b: End } }[],
  now: string,
): Promise<number> {
  if (entries.length === 0) return 0
  // Each pair as stored (read below) and as the entries leave it; a pair not found (deleted since) is left alone.
  const pairs = new Map<string, { a: End; b: End; stored?: Kept; kept?: Kept }>()
  for (const { row } of entries) pairs.set(pairKey(row!.a, row!.b), { a: row!.a, b: row!.b })
  const list = [...pairs.values()]
  for (let i = 0; i < list.length; i += 200) {
    const part = list.slice(i, i + 200)
    const rows = await findRelationshipsOfPairs(db, part)
    for (const r of rows) {
      const from = { kind: r.from_kind as End['kind'], id: r.from_id }
      const to = { kind: r.to_kind as End['kind'], id: r.to_id }
      const stored: Kept = {
        type: r.relationship_type,
        source: r.relationship_type === null ? null : endKey(r.relationship_from_source ? from : to),
        modified: r.relationship_modified,
      }
      const pair = pairs.get(pairKey(from, to))!
      pair.stored = stored
      pair.kept = { ...stored }
    }
  }
  let changed = 0
  for (const { entry, row } of entries) {
    const pair = pairs.get(pairKey(row!.a, row!.b))
    if (!pair?.kept) continue
    const incoming: Kept = {
      type: entry.relationship!.type,
      source: endKey(row!.a),
      modified: entry.relationship!.modified ?? null,
    }
    const k = pair.kept
    const newer = k.type === null || !incoming.modified || !k.modified || incoming.modified > k.modified
    if (!newer) continue
    if (k.type !== incoming.type || k.source !== incoming.source) changed++
    pair.kept = incoming
  }
  for (const { a, b, stored, kept } of pairs.values()) {
    if (
      !stored ||
      !kept ||
      (stored.type === kept.type && stored.source === kept.source && stored.modified === kept.modified)
    )
      continue
    const retyped = stored.type !== kept.type || stored.source !== kept.source
    for (const [x, y] of [
      [a, b],
      [b, a],
    ])
      await setRelationship(db, x, y, {
        relationship_type: kept.type,
        relationship_from_source: endKey(x) === kept.source ? 1 : 0,
        relationship_modified: kept.modified,
        ...(retyped ? { last_modified: now } : {}),
      })
  }
  return changed
}

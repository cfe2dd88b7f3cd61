/**
 * Files by their hashes, the one rule for the API and the batch. A File is one file whatever
 * hash it is given by, so any shared MD5, SHA-1 or SHA-256 (slots value1, value2, value3) is a
 * match; the store's hash queries only narrow the candidates. Two Files conflict when one slot
 * holds a different hash in each.
 *
 * What a write does when an incoming File meets stored Files is planned here, once, and the
 * caller carries the plan out. The choice is a policy of two modes (docs/decisions.md,
 * "File hash merging"): the batch takes them from the job's fileMergeMode and hashCollisionMode,
 * the API uses REFUSE_FILE_MERGES because a single request cannot say how to merge.
 *
 * - No conflict, one match: the match gains the incoming hashes (a superset).
 * - No conflict, several matches: Merge folds them into the first (most recently modified)
 *   one, metadata moved over; Distribute leaves hashes alone and applies the metadata to each;
 *   Refuse refuses (also when they conflict).
 * - Conflict, by hashCollisionMode:
 *   FavorIncoming: the incoming hash wins its slot; other slots keep the most recent existing hash.
 *   FavorExisting: the existing hash keeps its slot; the incoming one fills only empty slots.
 *     (Both then merge the matches, or with Distribute and several matches apply metadata only.)
 *   IgnoreExisting: Files that conflict with each other are deleted; Files that conflict with the
 *     incoming one are left alone and their hashes removed from it; what remains is imported
 *     (nothing, with a warning, when no hash remains).
 *   IgnoreIncoming: the incoming File is not imported and nothing changes (a warning).
 *   Split: hashes stay as they are; the metadata is applied to every matching File.
 *   Refuse: the write is refused, naming the File and the hash it already has.
 */
export type Hashes = readonly (string | null | undefined)[]

export interface StoredHashes {
  value1: string | null
  value2: string | null
  value3: string | null
}

const SLOTS = [0, 1, 2]
const SLOT_LABELS = ['MD5', 'SHA-1', 'SHA-256']

function slotsOf(row: StoredHashes): (string | null)[] {
  return [row.value1, row.value2, row.value3]
}

function shareHash(a: Hashes, b: Hashes): boolean {
  return SLOTS.some((s) => !!a[s] && a[s] === b[s])
}

/** @example sharesHash({ value1: 'A', value2: null, value3: 'C' }, [null, null, 'C']) === true */
export function sharesHash(row: StoredHashes, hashes: Hashes): boolean {
  return shareHash(slotsOf(row), hashes)
}

/** The candidates that share a hash with `hashes`, each once, in their given order. */
export function filesSharingHashes<R extends StoredHashes & { id: number }>(
  candidates: readonly R[],
  hashes: Hashes,
): R[] {
  return [...new Map(candidates.filter((r) => sharesHash(r, hashes)).map((r) => [r.id, r])).values()]
}

export type FileMergeMode = 'Merge' | 'Distribute' | 'Refuse'
export type HashCollisionMode =
  'FavorIncoming' | 'FavorExisting' | 'IgnoreExisting' | 'IgnoreIncoming' | 'Split' | 'Refuse'

export interface FileMergePolicy {
  fileMergeMode: FileMergeMode
  hashCollisionMode: HashCollisionMode
}

/** A policy without Refuse (the batch's): its plans never refuse. */
type AcceptingPolicy = {
  fileMergeMode: Exclude<FileMergeMode, 'Refuse'>
  hashCollisionMode: Exclude<HashCollisionMode, 'Refuse'>
}

/** The API's policy: a File that would merge stored Files, or change a hash one has, is a 400. */
export const REFUSE_FILE_MERGES: FileMergePolicy = { fileMergeMode: 'Refuse', hashCollisionMode: 'Refuse' }

export interface FileMatch {
  id: number
  hashes: (string | null)[]
  /** For refusals: how the File is named to the caller. */
  summary?: string
}

export type FilePlan =
  | { kind: 'insert'; hashes: (string | null)[]; deleteFirst: number[] }
  | { kind: 'update'; ids: number[]; hashes?: (string | null)[]; deleteFirst: number[] }
  | { kind: 'merge'; primary: number; secondaries: number[]; hashes: (string | null)[]; deleteFirst: number[] }
  | { kind: 'skip'; reason: string }

/** Only a policy with Refuse in it plans this. */
export interface FileRefusal {
  kind: 'refuse'
  reason: string
}

/** A stored File as a match: its id, its three hash slots and its summary. */
export function fileMatch(row: StoredHashes & { id: number; summary?: string }): FileMatch {
  return { id: row.id, hashes: slotsOf(row), summary: row.summary }
}

function conflicts(a: Hashes, b: Hashes): boolean {
  return SLOTS.some((s) => !!a[s] && !!b[s] && a[s] !== b[s])
}

function union(first: Hashes, ...rest: Hashes[]): (string | null)[] {
  return SLOTS.map((s) => first[s] ?? rest.find((h) => h[s])?.[s] ?? null)
}

const nameOf = (m: FileMatch) => m.summary ?? `File ${m.id}`

function refuseSeveral(matches: FileMatch[]): FileRefusal {
  return {
    kind: 'refuse',
    reason:
      `These hashes belong to ${matches.length} different File Indicators (${matches.map(nameOf).join('; ')}); ` +
      'merging existing Files is not supported',
  }
}

function refuseConflict(incoming: Hashes, match: FileMatch): FileRefusal {
  const slot = SLOTS.find((s) => !!incoming[s] && !!match.hashes[s] && incoming[s] !== match.hashes[s])!
  return {
    kind: 'refuse',
    reason: `File ${nameOf(match)} already has the ${SLOT_LABELS[slot]} ${match.hashes[slot]}; a File has one ${SLOT_LABELS[slot]}`,
  }
}

function combine(
  matches: FileMatch[],
  mergeMode: FileMergeMode,
  hashes: (string | null)[],
  deleteFirst: number[],
): FilePlan {
  if (matches.length === 1) return { kind: 'update', ids: [matches[0].id], hashes, deleteFirst }
  if (mergeMode === 'Distribute') return { kind: 'update', ids: matches.map((m) => m.id), deleteFirst }
  return { kind: 'merge', primary: matches[0].id, secondaries: matches.slice(1).map((m) => m.id), hashes, deleteFirst }
}

/**
 * What to do with an incoming File given the stored Files sharing a hash with it (most
 * recently modified first; for an update of one File, that File first). Pure.
 * @example planFile(['A'.repeat(32), null, null], [], { fileMergeMode: 'Merge', hashCollisionMode: 'FavorIncoming' }) // → insert
 */
export function planFile(
  incoming: Hashes,
  matches: FileMatch[],
  policy: AcceptingPolicy,
  deleteFirst?: number[],
): FilePlan
export function planFile(
  incoming: Hashes,
  matches: FileMatch[],
  policy: FileMergePolicy,
  deleteFirst?: number[],
): FilePlan | FileRefusal
export function planFile(
  incoming: Hashes,
  matches: FileMatch[],
  policy: FileMergePolicy,
  deleteFirst: number[] = [],
): FilePlan | FileRefusal {
  const { fileMergeMode, hashCollisionMode } = policy
  if (matches.length === 0) return { kind: 'insert', hashes: union(incoming), deleteFirst }
  if (matches.length > 1 && fileMergeMode === 'Refuse') return refuseSeveral(matches)
  const withIncoming = matches.filter((m) => conflicts(m.hashes, incoming))
  const amongExisting = matches.filter((m) => matches.some((o) => o !== m && conflicts(m.hashes, o.hashes)))
  if (withIncoming.length === 0 && amongExisting.length === 0) {
    return combine(matches, fileMergeMode, union(incoming, ...matches.map((m) => m.hashes)), deleteFirst)
  }
  switch (hashCollisionMode) {
    case 'Refuse':
      return withIncoming.length ? refuseConflict(incoming, withIncoming[0]) : refuseSeveral(matches)
    case 'IgnoreIncoming':
      return {
        kind: 'skip',
        reason: 'its hashes conflict with existing Files; it was not imported (hashCollisionMode IgnoreIncoming)',
      }
    case 'Split':
      return { kind: 'update', ids: matches.map((m) => m.id), deleteFirst }
    case 'FavorIncoming':
      return combine(matches, fileMergeMode, union(incoming, ...matches.map((m) => m.hashes)), deleteFirst)
    case 'FavorExisting':
      return combine(
        matches,
        fileMergeMode,
        union(matches[0].hashes, ...matches.slice(1).map((m) => m.hashes), incoming),
        deleteFirst,
      )
    case 'IgnoreExisting': {
      if (amongExisting.length > 0) {
        const remaining = matches.filter((m) => !amongExisting.includes(m))
        return planFile(incoming, remaining, policy, [...deleteFirst, ...amongExisting.map((m) => m.id)])
      }
      const taken = new Set(withIncoming.flatMap((m) => m.hashes.filter((h): h is string => !!h)))
      const stripped = incoming.map((h) => (h && !taken.has(h) ? h : null))
      if (!stripped.some(Boolean))
        return {
          kind: 'skip',
          reason:
            'every hash belongs to a conflicting existing File; no File was created (hashCollisionMode IgnoreExisting)',
        }
      const remaining = matches.filter((m) => !withIncoming.includes(m) && shareHash(m.hashes, stripped))
      return planFile(stripped, remaining, policy, deleteFirst)
    }
  }
}

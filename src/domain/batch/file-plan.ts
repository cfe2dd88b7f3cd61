/**
 * What happens when an incoming File meets existing Files of the owner that share a hash.
 * Pure: given the incoming hashes and the matching Files (most recently modified first), it
 * returns a plan the writer carries out. Slots are [MD5, SHA-1, SHA-256]; two Files conflict
 * when one slot holds a different hash in each.
 *
 * - No conflict, one match: the match gains the incoming hashes (a superset).
 * - No conflict, several matches: Merge folds them into the most recently modified one
 *   (metadata moved over); Distribute leaves hashes alone and applies the metadata to each.
 * - Conflict, by hashCollisionMode:
 *   FavorIncoming: the incoming hash wins its slot; other slots keep the most recent existing hash.
 *   FavorExisting: the existing hash keeps its slot; the incoming one fills only empty slots.
 *     (Both then merge the matches, or with Distribute and several matches apply metadata only.)
 *   IgnoreExisting: Files that conflict with each other are deleted; Files that conflict with the
 *     incoming one are left alone and their hashes removed from it; what remains is imported
 *     (nothing, with a warning, when no hash remains).
 *   IgnoreIncoming: the incoming File is not imported and nothing changes (a warning).
 *   Split: hashes stay as they are; the metadata is applied to every matching File.
 */
import type { BatchOptions } from './definition.js'

export type Hashes = (string | null)[]

export interface FileMatch {
  id: number
  hashes: Hashes
}

export type FilePlan =
  | { kind: 'insert'; hashes: Hashes; deleteFirst: number[] }
  | { kind: 'update'; ids: number[]; hashes?: Hashes; deleteFirst: number[] }
  | { kind: 'merge'; primary: number; secondaries: number[]; hashes: Hashes; deleteFirst: number[] }
  | { kind: 'skip'; reason: string }

const SLOTS = [0, 1, 2]

function conflicts(a: Hashes, b: Hashes): boolean {
  return SLOTS.some((s) => !!a[s] && !!b[s] && a[s] !== b[s])
}

function sharesHash(a: Hashes, b: Hashes): boolean {
  return SLOTS.some((s) => !!a[s] && a[s] === b[s])
}

function union(first: Hashes, ...rest: Hashes[]): Hashes {
  return SLOTS.map((s) => first[s] ?? rest.find((h) => h[s])?.[s] ?? null)
}

function combine(incoming: Hashes, matches: FileMatch[], mergeMode: BatchOptions['fileMergeMode'], hashes: Hashes, deleteFirst: number[]): FilePlan {
  if (matches.length === 1) return { kind: 'update', ids: [matches[0].id], hashes, deleteFirst }
  if (mergeMode === 'Distribute') return { kind: 'update', ids: matches.map((m) => m.id), deleteFirst }
  return { kind: 'merge', primary: matches[0].id, secondaries: matches.slice(1).map((m) => m.id), hashes, deleteFirst }
}

/** @example planFile(['A'.repeat(32), null, null], [], 'Merge', 'FavorIncoming') // → insert */
export function planFile(incoming: Hashes, matches: FileMatch[], mergeMode: BatchOptions['fileMergeMode'],
  collisionMode: BatchOptions['hashCollisionMode'], deleteFirst: number[] = []): FilePlan {
  if (matches.length === 0) return { kind: 'insert', hashes: incoming, deleteFirst }
  const withIncoming = matches.filter((m) => conflicts(m.hashes, incoming))
  const amongExisting = matches.filter((m) => matches.some((o) => o !== m && conflicts(m.hashes, o.hashes)))
  if (withIncoming.length === 0 && amongExisting.length === 0) {
    return combine(incoming, matches, mergeMode, union(incoming, ...matches.map((m) => m.hashes)), deleteFirst)
  }
  switch (collisionMode) {
    case 'IgnoreIncoming':
      return { kind: 'skip', reason: 'its hashes conflict with existing Files; it was not imported (hashCollisionMode IgnoreIncoming)' }
    case 'Split':
      return { kind: 'update', ids: matches.map((m) => m.id), deleteFirst }
    case 'FavorIncoming':
      return combine(incoming, matches, mergeMode, union(incoming, ...matches.map((m) => m.hashes)), deleteFirst)
    case 'FavorExisting':
      return combine(incoming, matches, mergeMode, union(matches[0].hashes, ...matches.slice(1).map((m) => m.hashes), incoming), deleteFirst)
    case 'IgnoreExisting': {
      if (amongExisting.length > 0) {
        const remaining = matches.filter((m) => !amongExisting.includes(m))
        return planFile(incoming, remaining, mergeMode, collisionMode, [...deleteFirst, ...amongExisting.map((m) => m.id)])
      }
      const taken = new Set(withIncoming.flatMap((m) => m.hashes.filter((h): h is string => !!h)))
      const stripped = incoming.map((h) => (h && !taken.has(h) ? h : null))
      if (!stripped.some(Boolean)) return { kind: 'skip', reason: 'every hash belongs to a conflicting existing File; no File was created (hashCollisionMode IgnoreExisting)' }
      const remaining = matches.filter((m) => !withIncoming.includes(m) && sharesHash(m.hashes, stripped))
      return planFile(stripped, remaining, mergeMode, collisionMode, deleteFirst)
    }
  }
}

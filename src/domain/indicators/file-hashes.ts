/**
 * Which stored Files a set of hashes names. A File is one file whatever hash it is given by,
 * so any shared MD5, SHA-1 or SHA-256 (slots value1, value2, value3) is a match. The one
 * matcher of the API's create-or-update, the batch writer and batch deletions; the store's
 * hash queries only narrow the candidates.
 */
export interface StoredHashes {
  value1: string | null
  value2: string | null
  value3: string | null
}

/** @example sharesHash({ value1: 'A', value2: null, value3: 'C' }, [null, null, 'C']) === true */
export function sharesHash(row: StoredHashes, hashes: readonly (string | null | undefined)[]): boolean {
  return [row.value1, row.value2, row.value3].some((stored, i) => !!stored && stored === hashes[i])
}

/** The candidates that share a hash with `hashes`, each once, in their given order. */
export function filesSharingHashes<R extends StoredHashes & { id: number }>(candidates: readonly R[], hashes: readonly (string | null | undefined)[]): R[] {
  return [...new Map(candidates.filter((r) => sharesHash(r, hashes)).map((r) => [r.id, r])).values()]
}

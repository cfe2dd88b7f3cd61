/**
 * STIX ids back to Indicator ids, for `objects/{id}`, its `versions` and `match[id]`. An
 * Indicator's STIX id is a UUIDv5 of its owner and id (formats/stix2/stix.ts StixIds): one-way, so the only
 * way back is hashing the owner's Indicator ids. Hashing them all on every request cost a
 * second at 700,000 Indicators; this keeps, per owner and per process, the first 32 bits of
 * each UUID beside the Indicator id (12 bytes an Indicator), hashes an owner's Indicators once,
 * and afterwards only those added since.
 *
 * Nothing here is authoritative: a key only proposes Indicator ids, each confirmed by hashing
 * it again, and the caller then reads the Indicator with the caller's own access. An Indicator
 * deleted since is simply not found by that read. One committed after a later id was already
 * indexed (concurrent writers) is found by the full re-index a miss triggers once the index is
 * older than REINDEX_AFTER_MS; until then a miss only indexes the ids added since.
 */
import type { StixIds } from '../../formats/stix2/stix.js'

const REINDEX_AFTER_MS = 60_000
/**
 * Indicators hashed between two looks at the event loop. Hashing is most of a build (about 1.5 µs
 * an Indicator): in one go, a million would hold every other request of the process for a second
 * and a half; in slices of this size none waits more than about 30 ms.
 */
const HASH_SLICE = 20_000
/** Keys added since the sorted part was built are searched linearly until there are this many. */
const TAIL_LIMIT = 4096
/** Positions packed beside a 32-bit key in a float (merge). */
const POSITION_SPAN = 2 ** 21

/** `ids` lists the owner's Indicator ids in ascending order, those above `afterId` when given. */
export type ListIds = (afterId?: number) => Promise<number[]>

class OwnerKeys {
  keys = new Uint32Array(0)
  ids = new Float64Array(0)
  tailKeys: number[] = []
  tailIds: number[] = []
  /** The highest Indicator id indexed. */
  through = 0

  constructor(readonly builtAt: number) {}

  add(entries: { key: number; id: number }[]): void {
    for (const { key, id } of entries) {
      this.tailKeys.push(key)
      this.tailIds.push(id)
      if (id > this.through) this.through = id
    }
    if (this.tailKeys.length > TAIL_LIMIT) this.merge()
  }

  /** Indicator ids whose UUID starts with `key`. */
  candidates(key: number): number[] {
    const found: number[] = []
    let low = 0
    let high = this.keys.length
    while (low < high) {
      const mid = (low + high) >>> 1
      if (this.keys[mid] < key) low = mid + 1
      else high = mid
    }
    for (let i = low; i < this.keys.length && this.keys[i] === key; i++) found.push(this.ids[i])
    for (let i = 0; i < this.tailKeys.length; i++) if (this.tailKeys[i] === key) found.push(this.tailIds[i])
    return found
  }

  /**
   * Sorts the tail into the keys. Each (key, position) pair is packed into one float, key × 2^21
   * + position, exact below 2^53, so a typed-array sort with no comparator orders them (a
   * comparator called 14 million times cost a second at 700,000 Indicators); owners of 2^21
   * Indicators or more pack into 64-bit integers instead.
   */
  private merge(): void {
    const total = this.keys.length + this.tailKeys.length
    const keyAt = (i: number) => (i < this.keys.length ? this.keys[i] : this.tailKeys[i - this.keys.length])
    const idAt = (i: number) => (i < this.keys.length ? this.ids[i] : this.tailIds[i - this.keys.length])
    const order = positionsByKey(total, keyAt)
    const keys = new Uint32Array(total)
    const ids = new Float64Array(total)
    for (let to = 0; to < total; to++) {
      keys[to] = keyAt(order[to])
      ids[to] = idAt(order[to])
    }
    this.keys = keys
    this.ids = ids
    this.tailKeys = []
    this.tailIds = []
  }
}

/** Positions 0…total-1 ordered by their keys, through a typed-array sort of packed (key, position) pairs (OwnerKeys.merge). */
function positionsByKey(total: number, keyAt: (i: number) => number): Uint32Array {
  const order = new Uint32Array(total)
  if (total <= POSITION_SPAN) {
    const packed = new Float64Array(total)
    for (let i = 0; i < total; i++) packed[i] = keyAt(i) * POSITION_SPAN + i
    packed.sort()
    for (let i = 0; i < total; i++) order[i] = packed[i] % POSITION_SPAN
  } else {
    const packed = new BigUint64Array(total)
    for (let i = 0; i < total; i++) packed[i] = (BigInt(keyAt(i)) << 32n) | BigInt(i)
    packed.sort()
    for (let i = 0; i < total; i++) order[i] = Number(packed[i] & 0xffffffffn)
  }
  return order
}

/** The first 32 bits of an id's UUID (`indicator--xxxxxxxx-…`). */
function keyOf(stixId: string): number {
  const uuid = stixId.indexOf('--') + 2
  return parseInt(stixId.slice(uuid, uuid + 8), 16)
}

export class StixIdIndex {
  private readonly owners = new Map<number, Promise<OwnerKeys>>()

  constructor(
    private readonly ids: StixIds,
    private readonly now: () => number = Date.now,
  ) {}

  /** The Indicator ids of those of `stixIds` that name an Indicator of the owner (as far as this process has seen it). */
  async resolve(ownerId: number, stixIds: readonly string[], listIds: ListIds): Promise<number[]> {
    const wanted = [...new Set(stixIds)]
    let owner = await this.ownerKeys(ownerId, listIds)
    let { found, missing } = this.lookUp(owner, ownerId, wanted)
    if (missing.length) {
      owner = await this.refresh(ownerId, owner, listIds)
      const again = this.lookUp(owner, ownerId, missing)
      found = [...found, ...again.found]
    }
    return found
  }

  private lookUp(owner: OwnerKeys, ownerId: number, wanted: string[]): { found: number[]; missing: string[] } {
    const found: number[] = []
    const missing: string[] = []
    for (const stixId of wanted) {
      const id = owner.candidates(keyOf(stixId)).find((candidate) => this.ids.indicator(ownerId, candidate) === stixId)
      if (id === undefined) missing.push(stixId)
      else found.push(id)
    }
    return { found, missing }
  }

  private ownerKeys(ownerId: number, listIds: ListIds): Promise<OwnerKeys> {
    let owner = this.owners.get(ownerId)
    if (!owner) {
      owner = this.build(ownerId, listIds)
      this.owners.set(ownerId, owner)
      // A failed build is forgotten, so the next request tries again.
      owner.catch(() => this.owners.delete(ownerId))
    }
    return owner
  }

  /** After a miss: a full re-index when the index is old (see the top), else the ids added since. */
  private async refresh(ownerId: number, owner: OwnerKeys, listIds: ListIds): Promise<OwnerKeys> {
    if (this.now() - owner.builtAt >= REINDEX_AFTER_MS) {
      this.owners.delete(ownerId)
      return this.ownerKeys(ownerId, listIds)
    }
    owner.add(await this.entries(ownerId, await listIds(owner.through)))
    return owner
  }

  private async build(ownerId: number, listIds: ListIds): Promise<OwnerKeys> {
    const owner = new OwnerKeys(this.now())
    owner.add(await this.entries(ownerId, await listIds()))
    return owner
  }

  private async entries(ownerId: number, ids: number[]): Promise<{ key: number; id: number }[]> {
    const entries: { key: number; id: number }[] = new Array(ids.length)
    for (let start = 0; start < ids.length; start += HASH_SLICE) {
      if (start > 0) await new Promise((resolve) => setImmediate(resolve))
      const end = Math.min(ids.length, start + HASH_SLICE)
      for (let i = start; i < end; i++) entries[i] = { key: this.ids.indicatorKey(ownerId, ids[i]!), id: ids[i]! }
    }
    return entries
  }
}

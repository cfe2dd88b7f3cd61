import { describe, expect, it } from 'vitest'
import { StixIdIndex } from './stix-id-index.js'
import { StixIds } from '../../formats/stix2/stix.js'

const ids = new StixIds('6f1c1b0e-2f57-4c1a-9d3e-0a4b5c6d7e8f')
const OWNER = 7

/** An owner's Indicator ids as the store lists them, counting the calls and what each asked for. */
function store(initial: number[]) {
  const rows = [...initial]
  const calls: (number | undefined)[] = []
  return {
    rows,
    calls,
    list: async (afterId?: number) => {
      calls.push(afterId)
      return rows.filter((id) => afterId === undefined || id > afterId).sort((a, b) => a - b)
    },
  }
}

/**
 * Ids whose keys (first 32 bits) are the Indicator id modulo 1,000, so that thousands share a
 * key and an index can be filled past 2^21 entries without hashing.
 */
const colliding = {
  indicatorKey: (_owner: number, id: number) => id % 1000,
  indicator: (owner: number, id: number) =>
    `indicator--${(id % 1000).toString(16).padStart(8, '0')}-0000-5000-8000-${String(owner * 1e7 + id).padStart(12, '0')}`,
} as unknown as StixIds

describe('StixIdIndex', () => {
  it("keys each Indicator by the first 32 bits of its STIX id's UUID", () => {
    for (const id of [1, 77, 123_456_789])
      expect(ids.indicatorKey(OWNER, id)).toBe(parseInt(ids.indicator(OWNER, id).slice('indicator--'.length, 19), 16))
  })

  it('tells apart Indicators sharing a key, in an index of more than 2^21 Indicators too', async () => {
    for (const size of [50_000, 2 ** 21 + 5]) {
      const s = store(Array.from({ length: size }, (_, i) => i + 1))
      const index = new StixIdIndex(colliding)
      const wanted = [size, 1, 1001, size - 1000, 4242]
      expect(
        await index.resolve(
          OWNER,
          wanted.map((id) => colliding.indicator(OWNER, id)),
          s.list,
        ),
      ).toEqual(wanted)
      expect(await index.resolve(OWNER, [colliding.indicator(OWNER, size + 1)], s.list)).toEqual([])
    }
  }, 60_000)

  it('hashes a large owner in slices, letting the rest of the process run between them', async () => {
    let hashed = 0
    const counting = {
      indicatorKey: (_owner: number, id: number) => {
        hashed++
        return id % 1000
      },
      indicator: colliding.indicator,
    } as unknown as StixIds
    const s = store(Array.from({ length: 100_000 }, (_, i) => i + 1))
    const seen: number[] = []
    let building = true
    const look = () => {
      seen.push(hashed)
      if (building) setImmediate(look)
    }
    setImmediate(look)
    const found = await new StixIdIndex(counting).resolve(OWNER, [colliding.indicator(OWNER, 99_999)], s.list)
    building = false
    expect(found).toEqual([99_999])
    expect(seen.some((n) => n > 0 && n < 100_000)).toBe(true)
  })

  it('finds Indicators among many from their STIX ids, listing the owner once', async () => {
    const s = store(Array.from({ length: 10_000 }, (_, i) => i + 1))
    const index = new StixIdIndex(ids)
    expect(await index.resolve(OWNER, [ids.indicator(OWNER, 4321), ids.indicator(OWNER, 1)], s.list)).toEqual([4321, 1])
    expect(await index.resolve(OWNER, [ids.indicator(OWNER, 10_000)], s.list)).toEqual([10_000])
    expect(s.calls).toEqual([undefined])
  })

  it('names nothing for an id of another owner or one no Indicator has', async () => {
    const s = store([1, 2, 3])
    const index = new StixIdIndex(ids)
    expect(
      await index.resolve(
        OWNER,
        [ids.indicator(OWNER + 1, 2), 'indicator--00000000-0000-5000-8000-000000000000'],
        s.list,
      ),
    ).toEqual([])
  })

  it('after a miss lists only the Indicators added since, many of them included', async () => {
    const s = store([1, 2, 3])
    const index = new StixIdIndex(ids)
    await index.resolve(OWNER, [ids.indicator(OWNER, 2)], s.list)
    s.rows.push(...Array.from({ length: 5000 }, (_, i) => 100 + i))
    expect(await index.resolve(OWNER, [ids.indicator(OWNER, 4000), ids.indicator(OWNER, 3)], s.list)).toEqual([3, 4000])
    s.rows.push(9000)
    expect(await index.resolve(OWNER, [ids.indicator(OWNER, 9000), ids.indicator(OWNER, 150)], s.list)).toEqual([
      150, 9000,
    ])
    expect(s.calls).toEqual([undefined, 3, 5099])
  })

  it('finds an Indicator committed below ids already indexed once the index is old enough to be rebuilt', async () => {
    let now = 1_000_000
    const s = store([1, 2, 10])
    const index = new StixIdIndex(ids, () => now)
    await index.resolve(OWNER, [ids.indicator(OWNER, 10)], s.list)
    s.rows.push(5)
    expect(await index.resolve(OWNER, [ids.indicator(OWNER, 5)], s.list)).toEqual([])
    now += 60_000
    expect(await index.resolve(OWNER, [ids.indicator(OWNER, 5)], s.list)).toEqual([5])
    expect(s.calls).toEqual([undefined, 10, undefined])
  })

  it('forgets a failed listing, so the next request lists again', async () => {
    const index = new StixIdIndex(ids)
    await expect(
      index.resolve(OWNER, [ids.indicator(OWNER, 1)], async () => {
        throw new Error('database gone')
      }),
    ).rejects.toThrow('database gone')
    expect(await index.resolve(OWNER, [ids.indicator(OWNER, 1)], store([1]).list)).toEqual([1])
  })
})

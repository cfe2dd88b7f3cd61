import { describe, expect, it } from 'vitest'
import { StixIdIndex } from './stix-id-index.js'
import { StixIds } from './stix.js'

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

describe('StixIdIndex', () => {
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
    expect(await index.resolve(OWNER, [ids.indicator(OWNER + 1, 2), 'indicator--00000000-0000-5000-8000-000000000000'], s.list)).toEqual([])
  })

  it('after a miss lists only the Indicators added since, many of them included', async () => {
    const s = store([1, 2, 3])
    const index = new StixIdIndex(ids)
    await index.resolve(OWNER, [ids.indicator(OWNER, 2)], s.list)
    s.rows.push(...Array.from({ length: 5000 }, (_, i) => 100 + i))
    expect(await index.resolve(OWNER, [ids.indicator(OWNER, 4000), ids.indicator(OWNER, 3)], s.list)).toEqual([3, 4000])
    s.rows.push(9000)
    expect(await index.resolve(OWNER, [ids.indicator(OWNER, 9000), ids.indicator(OWNER, 150)], s.list)).toEqual([150, 9000])
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
    await expect(index.resolve(OWNER, [ids.indicator(OWNER, 1)], async () => { throw new Error('database gone') })).rejects.toThrow('database gone')
    expect(await index.resolve(OWNER, [ids.indicator(OWNER, 1)], store([1]).list)).toEqual([1])
  })
})

import { describe, expect, it } from 'vitest'
import { flatness } from './flatness.js'

describe('flatness of a load', () => {
  it('reports every tenth of the jobs in order, and the last tenth over the first per job and per item', () => {
    // Twenty jobs: two a tenth, each tenth slower than the one before.
    const seconds = Array.from({ length: 20 }, (_, k) => 1 + Math.floor(k / 2) * 0.1)
    const items = Array.from({ length: 20 }, (_, k) => (k < 2 ? 4_000 : 5_000))
    const f = flatness(seconds, items)
    expect(f.tenths.map((t) => t.jobs)).toEqual(Array.from({ length: 10 }, () => 2))
    expect(f.tenths.map((t) => t.secondsPerJob)).toEqual([1, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9])
    expect(f.tenths[0]!.microsPerItem).toBe(250)
    expect(f.tenths[9]!.microsPerItem).toBe(380)
    expect(f.ratio).toBe(1.9)
    expect(f.ratioPerItem).toBe(1.52)
  })

  it('lets a job stand for more than one tenth when there are fewer than ten', () => {
    const f = flatness([2, 4, 6])
    expect(f.tenths.map((t) => t.secondsPerJob)).toEqual([2, 2, 2, 2, 4, 4, 4, 6, 6, 6])
    expect(f.tenths.every((t) => t.jobs === 1)).toBe(true)
    expect(f.ratio).toBe(3)
    expect(f.ratioPerItem).toBeUndefined()
  })

  it('spreads an uneven count over the tenths without dropping a job', () => {
    const f = flatness(Array.from({ length: 25 }, () => 1))
    expect(f.tenths.reduce((n, t) => n + t.jobs, 0)).toBe(25)
  })
})

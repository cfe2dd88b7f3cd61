import { describe, expect, it } from 'vitest'
import { CHUNK_SIZE, SQLITE_CHUNK_MS, chunkSizer } from './chunk-size.js'

describe('the size of a batch chunk', () => {
  it('is CHUNK_SIZE on PostgreSQL, whatever a chunk took', () => {
    const sizer = chunkSizer('postgres')
    sizer.took(CHUNK_SIZE, 900)
    expect(sizer.size).toBe(CHUNK_SIZE)
  })

  it(`on SQLite, follows the items a chunk writes in about ${SQLITE_CHUNK_MS} ms, by at most a doubling or a halving`, () => {
    const sizer = chunkSizer('sqlite')
    expect(sizer.size).toBe(250)
    sizer.took(250, 5) // 50 items a ms: 1,000 would take 20 ms, but a chunk grows at most twofold
    expect(sizer.size).toBe(500)
    sizer.took(500, 10)
    expect(sizer.size).toBe(1000)
    sizer.took(1000, 50) // 20 items a ms
    expect(sizer.size).toBe(500)
    sizer.took(500, 25)
    expect(sizer.size).toBe(400)
    sizer.took(400, 4000) // a checkpoint: halved, not cut to 2
    expect(sizer.size).toBe(200)
  })

  it('on SQLite, stays within 50 and CHUNK_SIZE items', () => {
    const fast = chunkSizer('sqlite')
    for (let i = 0; i < 10; i++) fast.took(fast.size, 1)
    expect(fast.size).toBe(CHUNK_SIZE)
    const slow = chunkSizer('sqlite')
    for (let i = 0; i < 10; i++) slow.took(slow.size, 10_000)
    expect(slow.size).toBe(50)
  })

  it('on SQLite, learns nothing from a chunk cut short (the end of a phase, an error)', () => {
    const sizer = chunkSizer('sqlite')
    sizer.took(3, 100)
    expect(sizer.size).toBe(250)
  })
})

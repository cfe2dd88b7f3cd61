import { describe, expect, it } from 'vitest'
import { CHUNK_SIZE, SQLITE_CHUNK_MS, chunkSizer } from './chunk-size.js'

describe('the size of a batch chunk', () => {
  it('is CHUNK_SIZE on PostgreSQL, whatever a chunk took', () => {
    const sizer = chunkSizer('postgres')
    sizer.took(CHUNK_SIZE, 900)
    expect(sizer.size).toBe(CHUNK_SIZE)
  })

  it(`on SQLite, follows the items a chunk writes in about ${SQLITE_CHUNK_MS} ms, a power of two at a time`, () => {
    const sizer = chunkSizer('sqlite')
    expect(sizer.size).toBe(256)
    sizer.took(256, 2) // 128 items a ms: 2,560 would take 20 ms, but a chunk grows one step at a time
    expect(sizer.size).toBe(512)
    sizer.took(512, 4)
    expect(sizer.size).toBe(1024)
    sizer.took(1024, 15) // 20 ms would write 1,365: not yet two steps' worth, and more than this one
    expect(sizer.size).toBe(1024)
    sizer.took(1024, 50) // 20 items a ms
    expect(sizer.size).toBe(512)
    sizer.took(512, 4000) // a checkpoint: one step down, not to the smallest
    expect(sizer.size).toBe(256)
  })

  it('on SQLite, stays within 64 and CHUNK_SIZE items', () => {
    const fast = chunkSizer('sqlite')
    for (let i = 0; i < 10; i++) fast.took(fast.size, 1)
    expect(fast.size).toBe(CHUNK_SIZE)
    const slow = chunkSizer('sqlite')
    for (let i = 0; i < 10; i++) slow.took(slow.size, 10_000)
    expect(slow.size).toBe(64)
  })

  it('on SQLite, learns nothing from a chunk cut short (the end of a phase, an error)', () => {
    const sizer = chunkSizer('sqlite')
    sizer.took(3, 100)
    expect(sizer.size).toBe(256)
  })
})

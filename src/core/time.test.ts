import { describe, expect, it } from 'vitest'
import { parseApiTime, toApiTime } from './time.js'

describe('API times', () => {
  it('shows stored times with seconds precision in UTC', () => {
    expect(toApiTime('2026-11-23T15:48:49.123Z')).toBe('2026-11-23T15:48:49Z')
    expect(toApiTime(null)).toBeUndefined()
  })

  it('reads ISO-8601 with offsets, without zone, and dates alone', () => {
    expect(parseApiTime('2026-01-02T03:04:05+02:00')).toBe('2026-01-02T01:04:05.000Z')
    expect(parseApiTime('2026-01-02T03:04:05-0500')).toBe('2026-01-02T08:04:05.000Z')
    expect(parseApiTime('2026-01-02T03:04:05')).toBe('2026-01-02T03:04:05.000Z')
    expect(parseApiTime('2026-01-02')).toBe('2026-01-02T00:00:00.000Z')
    expect(parseApiTime(1_700_000_000)).toBe('2023-11-14T22:13:20.000Z')
  })

  it('rejects text that is not a time', () => {
    expect(parseApiTime('yesterday')).toBeNull()
    expect(parseApiTime('2026-13-45')).toBeNull()
    expect(parseApiTime('')).toBeNull()
    expect(parseApiTime({})).toBeNull()
  })
})

/**
 * WAL positions as the replicas' routing reads and writes them (`pg_lsn` text: two hexadecimal words).
 * The routing itself runs against real clusters in src/read-replicas.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { formatLsn, parseLsn } from './replicas.js'

describe('WAL positions', () => {
  it('order as PostgreSQL orders them, across the high word', () => {
    expect(parseLsn('16/B374D848')).toBe(0x16b374d848n)
    expect(parseLsn('0/FFFFFFFF') < parseLsn('1/0')).toBe(true)
    expect(parseLsn('0/3000060') > parseLsn('0/3000028')).toBe(true)
  })

  it('print as PostgreSQL prints them, so that a position a node names reads back the same on another', () => {
    expect(formatLsn(0x16b374d848n)).toBe('16/B374D848')
    expect(formatLsn(parseLsn('0/3000060'))).toBe('0/3000060')
    expect(formatLsn(parseLsn('1/0'))).toBe('1/0')
  })
})

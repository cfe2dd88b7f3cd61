import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { TEST_DB } from '../test/harness.js'
import SqliteDatabase from 'better-sqlite3'
import { openStore, reusingStatements } from './connect.js'

const dir = mkdtempSync(join(tmpdir(), 'bulwark-connect-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe.runIf(TEST_DB === 'sqlite')('a SQLite store', () => {
  it('writes ahead to a log, synchronises at checkpoints only, checkpoints every 10,000 pages and caches 16 MB of pages', async () => {
    const store = openStore(`sqlite:${join(dir, 'bulwark.db')}`)
    try {
      const pragma = (name: string) => store.sqlite!.pragma(name, { simple: true })
      expect(pragma('journal_mode')).toBe('wal')
      expect(pragma('synchronous')).toBe(1)
      expect(pragma('foreign_keys')).toBe(1)
      expect(pragma('wal_autocheckpoint')).toBe(10_000)
      expect(pragma('journal_size_limit')).toBe(64 * 1024 * 1024)
      expect(pragma('cache_size')).toBe(-16 * 1024)
    } finally {
      await store.close()
    }
  })
})

describe.runIf(TEST_DB === 'sqlite')('the compiled statements a SQLite store keeps', () => {
  const inList = (n: number) => `select ${n} as n where 1 in (${Array.from({ length: n }, () => '?').join(',')})`

  it('reuses a statement by its text, and keeps statements up to a budget of text, oldest dropped first', () => {
    const sqlite = new SqliteDatabase(':memory:')
    const cache = reusingStatements(sqlite, 8_000)
    try {
      const first = cache.prepare(inList(100))
      expect(cache.prepare(inList(100))).toBe(first)
      // IN lists of every length from 100 to 400: over 400,000 characters of text asked for.
      for (let n = 100; n <= 400; n++) cache.prepare(inList(n))
      expect(cache.cachedChars()).toBeLessThanOrEqual(8_000)
      expect(cache.cachedChars()).toBeGreaterThan(8_000 - inList(400).length)
      expect(cache.prepare(inList(400))).toBe(cache.prepare(inList(400)))
      expect(cache.prepare(inList(100))).not.toBe(first)
    } finally {
      sqlite.close()
    }
  })

  it('compiles a statement too long to keep for each use, keeping what is cached', () => {
    const sqlite = new SqliteDatabase(':memory:')
    const cache = reusingStatements(sqlite, 8_000)
    try {
      const kept = cache.prepare(inList(10))
      const long = inList(1_400)
      expect(cache.prepare(long)).not.toBe(cache.prepare(long))
      expect(cache.prepare(inList(10))).toBe(kept)
      expect(cache.prepare(long).all(...Array.from({ length: 1_400 }, () => 1))).toEqual([{ n: 1_400 }])
    } finally {
      sqlite.close()
    }
  })
})

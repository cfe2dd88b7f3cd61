import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { TEST_DB } from '../test/harness.js'
import { openStore } from './connect.js'

const dir = mkdtempSync(join(tmpdir(), 'bulwark-connect-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe.runIf(TEST_DB === 'sqlite')('a SQLite store', () => {
  it('writes ahead to a log, synchronises at checkpoints only, and checkpoints every 10,000 pages', async () => {
    const store = openStore(`sqlite:${join(dir, 'bulwark.db')}`)
    try {
      const pragma = (name: string) => store.sqlite!.pragma(name, { simple: true })
      expect(pragma('journal_mode')).toBe('wal')
      expect(pragma('synchronous')).toBe(1)
      expect(pragma('foreign_keys')).toBe(1)
      expect(pragma('wal_autocheckpoint')).toBe(10_000)
      expect(pragma('journal_size_limit')).toBe(64 * 1024 * 1024)
    } finally {
      await store.close()
    }
  })
})

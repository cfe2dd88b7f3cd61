/**
 * `bulwark backup` and `bulwark restore` through the real executable: a round trip brings back
 * exactly what the backup held, on SQLite while another connection keeps writing.
 */
import { statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOwner } from '../../domain/access/accounts.js'
import { isoNow } from '../../core/time.js'
import { type Store, openStore } from '../../store/connect.js'
import { type CliSandbox, createCliSandbox } from '../../test/cli-sandbox.js'
import { TEST_DB } from '../../test/harness.js'

let cli: CliSandbox
let dir: string

beforeAll(async () => {
  cli = await createCliSandbox('bulwark-backup-', { dataDir: 'data' })
  dir = cli.root
})
afterAll(() => cli.close())

function bulwark(...args: string[]) {
  const run = cli.run([...args, '--json'], { timeoutMs: 60_000 })
  return { status: run.status, result: run.stdout ? JSON.parse(run.stdout) : undefined, stderr: run.stderr }
}

const ownerNames = () => (bulwark('owners', 'list').result.owners as { name: string }[]).map((o) => o.name).sort()

describe('backup and restore', () => {
  it('round-trips the database: what was written after the backup is gone, what was in it is back', async () => {
    expect(bulwark('owners', 'create', 'Kept Org').status).toBe(0)
    // On SQLite, a second connection holds the database open with writes still in its write-ahead log,
    // as a serving node would.
    let writer: Store | undefined
    if (TEST_DB === 'sqlite') {
      writer = openStore(`sqlite:${join(dir, 'data', 'bulwark.db')}`)
      await createOwner(writer.db, { name: 'Written While Serving', type: 'Community' }, isoNow())
    }
    const file = join(dir, 'bulwark.backup')
    const backup = bulwark('backup', file)
    expect(backup.status, backup.stderr).toBe(0)
    expect(backup.result).toEqual({ database: TEST_DB, file, bytes: statSync(file).size })
    expect(backup.result.bytes).toBeGreaterThan(10_000)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    await writer?.close()

    expect(bulwark('owners', 'create', 'After Backup').status).toBe(0)
    const before = ownerNames()
    expect(before).toContain('After Backup')

    const restore = bulwark('restore', file)
    expect(restore.status, JSON.stringify(restore.result)).toBe(0)
    expect(restore.result).toMatchObject({ database: TEST_DB, file })
    expect(ownerNames()).toEqual(before.filter((name) => name !== 'After Backup'))
    expect(ownerNames()).toEqual([
      'Default Organization',
      'Kept Org',
      ...(TEST_DB === 'sqlite' ? ['Written While Serving'] : []),
    ])
  }, 180_000)

  it('refuses to overwrite a file, and refuses to restore what is not a backup, leaving the database as it was', () => {
    const existing = join(dir, 'bulwark.backup')
    expect(bulwark('backup', existing)).toMatchObject({
      status: 1,
      result: { error: `${existing} exists already; choose a new file` },
    })
    const junk = join(dir, 'junk.backup')
    writeFileSync(junk, 'not a database at all, but long enough to look like a file of some sort')
    const restore = bulwark('restore', junk)
    expect(restore.status).toBe(1)
    expect(restore.result.error).toMatch(TEST_DB === 'sqlite' ? /is not a Bulwark SQLite backup/ : /^pg_restore failed/)
    expect(ownerNames()).toContain('Kept Org')
  }, 180_000)
})

/**
 * The data directory through the real CLI executable: created private, a loose one tightened,
 * an unusable one refused with a message that says why.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sql } from 'kysely'
import { openStore } from './store/connect.js'
import { type CliSandbox, createCliSandbox } from './test/cli-sandbox.js'
import { TEST_DB } from './test/harness.js'

let cli: CliSandbox
let root: string

beforeAll(async () => {
  cli = await createCliSandbox('bulwark-perm-')
  root = cli.root
})
afterAll(() => cli.close())

function status(dataDir: string) {
  return cli.run(['status', '--json'], { env: { BULWARK_DATA_DIR: dataDir }, timeoutMs: 20_000 })
}

const mode = (path: string) => statSync(path).mode & 0o777

describe('data directory permissions', () => {
  it('creates the directory 0700 and every file it writes 0600', () => {
    const dir = join(root, 'fresh', 'data')
    const run = status(dir)
    expect(run.status, run.stderr).toBe(0)
    expect(mode(dir)).toBe(0o700)
    const files = readdirSync(dir)
    const expected = ['admin-credentials.json', 'server.key', ...(TEST_DB === 'sqlite' ? ['bulwark.db'] : [])]
    expect(files.sort()).toEqual(expected.sort())
    for (const file of files) expect(mode(join(dir, file)), file).toBe(0o600)
  })

  it.runIf(TEST_DB === 'sqlite')(
    'keeps the WAL and shared-memory files of an open SQLite database private, even from a loose database file',
    async () => {
      const dir = join(root, 'open')
      expect(status(dir).status).toBe(0)
      const path = join(dir, 'bulwark.db')
      chmodSync(path, 0o644)
      const store = openStore(`sqlite:${path}`)
      await sql`create table t (x integer)`.execute(store.db)
      await sql`insert into t values (1)`.execute(store.db)
      for (const file of ['bulwark.db', 'bulwark.db-wal', 'bulwark.db-shm'])
        expect(mode(join(dir, file)), file).toBe(0o600)
      await store.close()
    },
  )

  it('tightens a world-readable directory and its data files, keeps a certificate readable, and says so', () => {
    const dir = join(root, 'loose')
    expect(status(dir).status).toBe(0)
    mkdirSync(join(dir, 'tls'))
    writeFileSync(join(dir, 'tls', 'self-signed.crt'), 'certificate')
    writeFileSync(join(dir, 'tls', 'self-signed.key'), 'key')
    for (const path of [dir, join(dir, 'tls')]) chmodSync(path, 0o755)
    for (const file of [...readdirSync(dir).filter((f) => f !== 'tls'), 'tls/self-signed.crt', 'tls/self-signed.key'])
      chmodSync(join(dir, file), 0o644)

    const run = status(dir)
    expect(run.status, run.stderr).toBe(0)
    expect(run.stderr).toContain(`Made private (was readable by others): ${dir} (0755)`)
    expect(mode(dir)).toBe(0o700)
    expect(mode(join(dir, 'tls'))).toBe(0o700)
    expect(mode(join(dir, 'server.key'))).toBe(0o600)
    expect(mode(join(dir, 'tls', 'self-signed.key'))).toBe(0o600)
    expect(mode(join(dir, 'tls', 'self-signed.crt'))).toBe(0o644)
    if (TEST_DB === 'sqlite') expect(mode(join(dir, 'bulwark.db'))).toBe(0o600)
    expect(JSON.parse(run.stdout).migrationsPending).toEqual([])
  })

  it('refuses a data directory that is not a directory, with exit code 1 and the reason', () => {
    const file = join(root, 'not-a-dir')
    writeFileSync(file, '')
    const run = status(file)
    expect(run.status).toBe(1)
    expect(JSON.parse(run.stdout)).toEqual({ error: `The data directory ${file} is not a directory` })
    expect(existsSync(`${file}/bulwark.db`)).toBe(false)
  })
})

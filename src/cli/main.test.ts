import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_DB, createDatabase } from '../test/harness.js'

const BIN = join(import.meta.dirname, '../../bin/bulwark.mjs')
let dataDir: string
let env: NodeJS.ProcessEnv
let dropDatabase = async () => {}

/** Runs the real executable the way an administrator would. */
function bulwark(args: string[], input?: string) {
  const result = spawnSync(process.execPath, [BIN, ...args], { env, input, encoding: 'utf8', timeout: 20_000 })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'bulwark-cli-'))
  env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BULWARK_')))
  env.BULWARK_DATA_DIR = dataDir
  if (TEST_DB === 'postgres') {
    const database = await createDatabase()
    env.BULWARK_DATABASE_URL = database.url
    dropDatabase = database.drop
  }
})
afterAll(async () => {
  await dropDatabase()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('bin/bulwark.mjs', () => {
  it('prepares a new database on first use and prints exactly one JSON object', () => {
    const run = bulwark(['--json', 'owners', 'list'])
    expect(run.status).toBe(0)
    expect(run.stdout.trim().split('\n')).toHaveLength(1)
    expect(JSON.parse(run.stdout)).toEqual({
      owners: [{ id: 1, name: 'Default Organization', type: 'Organization', description: null, dateAdded: expect.any(String) }],
    })
    expect(run.stderr).toContain("First start: created 'Default Organization' and its administrator 'admin-api'")
    expect(statSync(join(dataDir, 'admin-credentials.json')).mode & 0o777).toBe(0o600)
  })

  it('reads a password from standard input and never echoes it', () => {
    const run = bulwark(['users', 'create', 'feed-reader', '--kind', 'taxii', '--password-stdin', '--json'], 'a long password\n')
    expect(run.status).toBe(0)
    expect(JSON.parse(run.stdout)).toMatchObject({ userName: 'feed-reader', kind: 'taxii', role: 'Standard User' })
    expect(run.stdout + run.stderr).not.toContain('a long password')
  })

  it('answers errors with {"error"} and a non-zero exit code', () => {
    const refused = bulwark(['tokens', 'create', 'feed-reader', '--json'])
    expect(refused.status).toBe(1)
    expect(JSON.parse(refused.stdout)).toEqual({ error: 'TAXII accounts use Basic authentication, not API tokens', code: 'invalid' })
    const usage = bulwark(['memberships', 'set', 'feed-reader', '--json'])
    expect(usage.status).toBe(2)
    expect(JSON.parse(usage.stdout)).toEqual({ error: "missing required argument 'owner'" })
  })
})

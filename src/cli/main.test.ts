import { spawnSync } from 'node:child_process'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BIN, type CliSandbox, createCliSandbox } from '../test/cli-sandbox.js'

let cli: CliSandbox
let dataDir: string

/** Runs the real executable the way an administrator would. */
function bulwark(args: string[], input?: string) {
  return cli.run(args, { input, timeoutMs: 20_000 })
}

beforeAll(async () => {
  cli = await createCliSandbox('bulwark-cli-', { dataDir: '.' })
  dataDir = cli.root
})
afterAll(() => cli.close())

describe('bin/bulwark.mjs', () => {
  it('runs with a V8 heap limit of 128 MB when started as an executable, as npx starts it', () => {
    // Left to itself V8 sizes the heap by the machine's memory (4 GB here) and lets garbage grow toward it.
    const report = `data:text/javascript,${encodeURIComponent(
      'import v8 from "node:v8"; process.on("exit", () => process.stderr.write(`heap limit ${v8.getHeapStatistics().heap_size_limit}\\n`))',
    )}`
    // --help opens no database: the test below sees this sandbox's first start.
    const run = spawnSync(BIN, ['--help'], {
      env: { ...cli.env, NODE_OPTIONS: `--import=${report}` },
      encoding: 'utf8',
      timeout: 20_000,
    })
    expect(run.status).toBe(0)
    const limit = Number(/heap limit (\d+)/.exec(run.stderr)?.[1])
    expect(limit).toBeGreaterThan(128 * 2 ** 20)
    expect(limit).toBeLessThan(256 * 2 ** 20)
  })

  it('prepares a new database on first use and prints exactly one JSON object', () => {
    const run = bulwark(['--json', 'owners', 'list'])
    expect(run.status).toBe(0)
    expect(run.stdout.trim().split('\n')).toHaveLength(1)
    expect(JSON.parse(run.stdout)).toEqual({
      owners: [
        { id: 1, name: 'Default Organization', type: 'Organization', description: null, dateAdded: expect.any(String) },
      ],
    })
    expect(run.stderr).toContain("First start: created 'Default Organization' and its administrator 'admin-api'")
    expect(statSync(join(dataDir, 'admin-credentials.json')).mode & 0o777).toBe(0o600)
  })

  it('reads a password from standard input and never echoes it', () => {
    const run = bulwark(
      ['users', 'create', 'feed-reader', '--kind', 'taxii', '--password-stdin', '--json'],
      'a long password\n',
    )
    expect(run.status).toBe(0)
    expect(JSON.parse(run.stdout)).toMatchObject({ userName: 'feed-reader', kind: 'taxii', role: 'Standard User' })
    expect(run.stdout + run.stderr).not.toContain('a long password')
  })

  it('creates a person who signs in to the console with the password given on standard input', () => {
    const run = bulwark(
      ['users', 'create', 'analyst', '--kind', 'human', '--role', 'Read Only User', '--password-stdin', '--json'],
      'analyst password\n',
    )
    expect(run.status).toBe(0)
    expect(JSON.parse(run.stdout)).toMatchObject({ userName: 'analyst', kind: 'human', role: 'Read Only User' })
    expect(run.stdout + run.stderr).not.toContain('analyst password')
  })

  it('answers errors with {"error"} and a non-zero exit code', () => {
    const refused = bulwark(['tokens', 'create', 'feed-reader', '--json'])
    expect(refused.status).toBe(1)
    expect(JSON.parse(refused.stdout)).toEqual({
      error: 'TAXII accounts use Basic authentication, not API tokens',
      code: 'invalid',
    })
    const usage = bulwark(['memberships', 'set', 'feed-reader', '--json'])
    expect(usage.status).toBe(2)
    expect(JSON.parse(usage.stdout)).toEqual({ error: "missing required argument 'owner'" })
  })
})

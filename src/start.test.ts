/**
 * `npm start` serves compiled JavaScript: the start script runs dist/main.mjs (built by
 * scripts/build.mjs when src/ is newer), with no TypeScript transpiler in the serving process,
 * and that build answers like the source does — a first start makes its certificate, its
 * Organization and administrator, and answers authenticated v2 and v3 calls.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { request } from 'node:https'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ensureBuilt } from '../scripts/build.mjs'
import { generateAccessId, generateSecretKey } from './domain/access/credentials.js'
import { TEST_DB, createDatabase, freeLoopbackPort as freePort } from './test/harness.js'

const ROOT = join(import.meta.dirname, '..')
const TOKEN = 'compiled-start-admin-token-0123456789abcdef'
let dataDir: string
let child: ChildProcess
let port: number
let stderr = ''
let dropDatabase = async () => {}

/** One HTTPS call to the child (its certificate is self-signed); resolves to the status and the parsed body. */
function call(
  path: string,
  init: { method?: string; body?: unknown; token?: boolean } = {},
): Promise<{ status: number; body: any }> {
  const payload = init.body === undefined ? undefined : JSON.stringify(init.body)
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: init.method ?? 'GET',
        rejectUnauthorized: false,
        headers: {
          ...(init.token === false ? {} : { authorization: `TC-Token ${TOKEN}` }),
          ...(payload ? { 'content-type': 'application/json' } : {}),
        },
      },
      (res) => {
        let text = ''
        res
          .setEncoding('utf8')
          .on('data', (chunk) => {
            text += chunk
          })
          .on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }))
      },
    )
    req.on('error', reject).end(payload)
  })
}

beforeAll(async () => {
  // Both test projects may get here at once; the build takes turns through its lock.
  ensureBuilt({ quiet: true })
  dataDir = mkdtempSync(join(tmpdir(), 'bulwark-start-'))
  let databaseUrl = `sqlite:${join(dataDir, 'bulwark.db')}`
  if (TEST_DB === 'postgres') {
    const database = await createDatabase()
    databaseUrl = database.url
    dropDatabase = database.drop
  }
  port = await freePort()
  const env = {
    ...Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.startsWith('BULWARK_') && k !== 'NODE_OPTIONS'),
    ),
    BULWARK_DATA_DIR: dataDir,
    BULWARK_DATABASE_URL: databaseUrl,
    BULWARK_PORT: String(port),
    BULWARK_HOST: '127.0.0.1',
    BULWARK_ADMIN_ACCESS_ID: generateAccessId(),
    BULWARK_ADMIN_SECRET_KEY: generateSecretKey(),
    BULWARK_ADMIN_TOKEN: TOKEN,
    BULWARK_LOG_LEVEL: 'warn',
  }
  const script = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.start as string
  child = spawn(process.execPath, script.replace(/^node /, '').split(' '), {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  child.stderr!.on('data', (chunk) => {
    stderr += chunk
  })
  for (let i = 0; i < 300 && child.exitCode === null; i++) {
    const { status } = await call('/api/health', { token: false }).catch(() => ({ status: 0 }))
    if (status === 200) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`npm start did not answer: ${stderr}`)
}, 120_000)

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGTERM')
    await exited
  }
  await dropDatabase()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('npm start', () => {
  it('runs the compiled bundle with node alone, no TypeScript loader', () => {
    const script = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.start as string
    // A young generation of 4 MB semi-spaces instead of 16 (docs/decisions.md, "Memory and the event loop…").
    expect(script).toBe('node --max-semi-space-size=4 scripts/start.mjs')
    expect(readFileSync(join(ROOT, 'scripts', 'start.mjs'), 'utf8')).toContain("import('../dist/main.mjs')")
    // What the serving process was started with, and its environment: nothing names tsx.
    const cmdline = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0').filter(Boolean)
    expect(cmdline.slice(1)).toEqual(['--max-semi-space-size=4', 'scripts/start.mjs'])
    const environ = readFileSync(`/proc/${child.pid}/environ`, 'utf8')
    expect(environ).not.toMatch(/tsx/)
  })

  it('serves v2 and v3 from the build: create, read by id and by summary, list', async () => {
    expect(stderr).not.toMatch(/Error/)
    const created = await call('/api/v3/indicators', {
      method: 'POST',
      body: { type: 'Host', hostName: 'Compiled.Example', tags: { data: [{ name: 'built' }] } },
    })
    expect(created.status).toBe(201)
    const id = created.body.data.id as number
    const byId = await call(`/api/v3/indicators/${id}?fields=tags`)
    expect(byId.body.data).toMatchObject({
      id,
      type: 'Host',
      hostName: 'compiled.example',
      tags: { data: [{ name: 'built' }] },
    })
    expect((await call('/api/v3/indicators/compiled.example')).body.data.id).toBe(id)
    const v2 = await call('/api/v2/indicators/hosts/compiled.example')
    expect(v2.body.data.host.summary).toBe('compiled.example')
    expect((await call('/api/v3/indicators/999999')).status).toBe(404)
  })
})

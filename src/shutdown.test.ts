/**
 * Graceful shutdown of real server processes: a rolling restart of two nodes over one database
 * while clients keep writing. Every write a node answered with success is there at the end;
 * a node stopped with SIGTERM finishes what it accepted and exits 0.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_DB, createDatabase, freeLoopbackPort as freePort } from './test/harness.js'

const ROOT = join(import.meta.dirname, '..')
const TOKEN = 'rolling-restart-admin-token-0123456789abcdef'
let dataDir: string
let env: NodeJS.ProcessEnv
let cleanup = async () => {}

interface Node {
  port: number
  process: ChildProcess
  exited: Promise<number | null>
}

async function startNode(port: number): Promise<Node> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: { ...env, BULWARK_PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr!.on('data', (chunk) => {
    stderr += chunk
  })
  let gone = false
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      gone = true
      resolve(code)
    }),
  )
  for (let i = 0; i < 300 && !gone; i++) {
    const ready = await fetch(`http://127.0.0.1:${port}/api/ready`).then(
      (r) => r.status,
      () => 0,
    )
    if (ready === 200) return { port, process: child, exited }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  child.kill('SIGKILL')
  throw new Error(`node on port ${port} did not become ready: ${stderr}`)
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'bulwark-rolling-'))
  env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BULWARK_')))
  Object.assign(env, {
    BULWARK_DATA_DIR: dataDir,
    BULWARK_HOST: '127.0.0.1',
    BULWARK_TLS: 'off',
    BULWARK_TRUSTED_PROXIES: '127.0.0.1',
    BULWARK_SECRET_KEY: 'shared-node-key',
    BULWARK_LOG_LEVEL: 'warn',
    BULWARK_SHUTDOWN_TIMEOUT_MS: '5000',
    BULWARK_ADMIN_ACCESS_ID: '12345678901234567890',
    BULWARK_ADMIN_SECRET_KEY: 'rolling-restart-secret-key-0123456789',
    BULWARK_ADMIN_TOKEN: TOKEN,
  })
  if (TEST_DB === 'postgres') {
    const database = await createDatabase()
    env.BULWARK_DATABASE_URL = database.url
    cleanup = database.drop
  }
})
afterAll(async () => {
  await cleanup()
  rmSync(dataDir, { recursive: true, force: true })
})

const headers = { authorization: `TC-Token ${TOKEN}`, 'x-forwarded-proto': 'https', 'content-type': 'application/json' }

/** One write; true only when the node answered it with success. */
async function write(port: number, name: string): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/api/v2/indicators/hosts`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ hostName: name }),
    })
    await res.arrayBuffer()
    return res.status === 201
  } catch {
    return false
  }
}

describe('graceful shutdown', () => {
  it('loses no accepted write across a rolling restart of two nodes', async () => {
    const ports = [await freePort(), await freePort()]
    const nodes = [await startNode(ports[0]), await startNode(ports[1])]
    const accepted: string[] = []
    const refused: string[] = []
    let writing = true
    let n = 0
    // Four clients, each alternating between the nodes and moving to the other when one refuses.
    const clients = Array.from({ length: 4 }, async (_, c) => {
      while (writing) {
        const name = `w${c}-${n++}.rolling.example`
        const first = n % 2
        if ((await write(ports[first], name)) || (await write(ports[1 - first], name))) accepted.push(name)
        else refused.push(name)
      }
    })
    const exitCodes: (number | null)[] = []
    for (const i of [0, 1]) {
      await new Promise((resolve) => setTimeout(resolve, 700))
      const before = accepted.length
      nodes[i].process.kill('SIGTERM')
      exitCodes.push(await nodes[i].exited)
      expect(accepted.length, 'the other node kept accepting').toBeGreaterThan(before)
      nodes[i] = await startNode(ports[i])
    }
    await new Promise((resolve) => setTimeout(resolve, 500))
    writing = false
    await Promise.all(clients)

    expect(exitCodes).toEqual([0, 0])
    expect(accepted.length).toBeGreaterThan(20)
    const listed = await fetch(`http://127.0.0.1:${ports[0]}/api/v3/indicators?resultLimit=10000`, { headers }).then(
      (r) => r.json(),
    )
    expect(listed.status, JSON.stringify(listed)).toBe('Success')
    const stored = new Set((listed.data as { summary: string }[]).map((i) => i.summary))
    expect(accepted.filter((name) => !stored.has(name))).toEqual([])
    for (const node of nodes) {
      node.process.kill('SIGTERM')
      expect(await node.exited).toBe(0)
    }
  }, 120_000)
})

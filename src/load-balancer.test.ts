/**
 * Three nodes behind HAProxy over one database, as operators run them (docs/scale-out.md): requests
 * spread over the nodes; a node killed outright loses nothing but the requests it was answering; a
 * rolling restart loses no acknowledged write; a batch job whose node was killed completes on another
 * once its lease runs out.
 */
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openStore } from './store/connect.js'
import { freeLoopbackPort as freePort } from './test/harness.js'
import { type LoadBalancer, haproxyMissing, startHaproxy } from './test/haproxy.js'
import { type Deployment, NODE_HEADERS as headers, type NodeProcess, createDeployment } from './test/nodes.js'

const missing = haproxyMissing()
if (missing) console.warn(`load balancer tests skipped: ${missing}`)

let deployment: Deployment
let balancer: LoadBalancer
let ports: number[]
const nodes: NodeProcess[] = []

beforeAll(async () => {
  if (missing) return
  // A short lease, so a killed node's batch job moves on within the test.
  deployment = await createDeployment({ BULWARK_BATCH_LEASE_MS: '2000' })
  ports = [await freePort(), await freePort(), await freePort()]
  for (const port of ports) nodes.push(await deployment.start(port))
  balancer = await startHaproxy(await freePort(), await freePort(), ports)
  await balancer.waitForUp(3)
}, 180_000)
afterAll(async () => {
  await balancer?.stop()
  await deployment?.close()
})

const through = (path: string, init: RequestInit = {}) =>
  fetch(`http://127.0.0.1:${balancer.port}${path}`, { ...init, headers: { ...headers, ...init.headers } })

/** One write through the balancer; true only when it was answered with success. */
async function write(name: string): Promise<boolean> {
  try {
    const res = await through('/api/v2/indicators/hosts', { method: 'POST', body: JSON.stringify({ hostName: name }) })
    await res.arrayBuffer()
    return res.status === 201
  } catch {
    return false
  }
}

/** Four clients writing through the balancer until stopped; what was acknowledged and what was not. */
function writers(prefix: string) {
  const accepted: string[] = []
  const failed: string[] = []
  let writing = true
  let n = 0
  const clients = Array.from({ length: 4 }, async (_, c) => {
    while (writing) {
      const name = `${prefix}-${c}-${n++}.lb.example`
      ;((await write(name)) ? accepted : failed).push(name)
    }
  })
  return {
    accepted,
    failed,
    async stop() {
      writing = false
      await Promise.all(clients)
    },
  }
}

async function stored(): Promise<Set<string>> {
  const listed = await through('/api/v3/indicators?resultLimit=10000').then((r) => r.json())
  expect(listed.status, JSON.stringify(listed)).toBe('Success')
  return new Set((listed.data as { summary: string }[]).map((i) => i.summary))
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe.skipIf(!!missing)('three nodes behind HAProxy', () => {
  it('spread requests over every node', async () => {
    const servedBy = new Map<string, number>()
    for (let i = 0; i < 30; i++) {
      const res = await through('/api/v2/owners')
      expect(res.status).toBe(200)
      await res.arrayBuffer()
      const node = res.headers.get('x-served-by') ?? '?'
      servedBy.set(node, (servedBy.get(node) ?? 0) + 1)
    }
    expect([...servedBy.keys()].sort()).toEqual(['node1', 'node2', 'node3'])
    expect(Math.min(...servedBy.values())).toBeGreaterThanOrEqual(5)
  })

  it('lose nothing acknowledged when a node is killed, and keep accepting on the others', async () => {
    const load = writers('kill')
    await pause(800)
    nodes[0].process.kill('SIGKILL')
    await nodes[0].exited
    const atKill = load.accepted.length
    await pause(1500)
    await load.stop()
    expect(load.accepted.length, 'writes went on after the kill').toBeGreaterThan(atKill + 5)
    const present = await stored()
    expect(load.accepted.filter((name) => !present.has(name))).toEqual([])
    nodes[0] = await deployment.start(ports[0])
    await balancer.waitForUp(3)
  }, 120_000)

  it('lose no acknowledged write across a rolling restart of all three', async () => {
    const load = writers('rolling')
    const exitCodes: (number | null)[] = []
    for (const i of [0, 1, 2]) {
      await pause(500)
      nodes[i].process.kill('SIGTERM')
      exitCodes.push(await nodes[i].exited)
      nodes[i] = await deployment.start(ports[i])
      await balancer.waitForUp(3)
    }
    await pause(500)
    await load.stop()
    expect(exitCodes).toEqual([0, 0, 0])
    expect(load.accepted.length).toBeGreaterThan(20)
    const present = await stored()
    expect(load.accepted.filter((name) => !present.has(name))).toEqual([])
  }, 180_000)

  it('complete on another node a batch job whose node was killed', async () => {
    const created = await through('/api/v2/batch', {
      method: 'POST',
      body: JSON.stringify({
        version: 'V2',
        owner: 'Default Organization',
        haltOnError: false,
        action: 'Create',
        attributeWriteType: 'Append',
      }),
    }).then((r) => r.json())
    const id = created.data.batchId as number
    const indicator = Array.from({ length: 25_000 }, (_, i) => ({ type: 'Host', summary: `batch-${i}.lb.example` }))
    const uploaded = await through(`/api/v2/batch/${id}`, {
      method: 'POST',
      body: JSON.stringify({ indicator }),
      headers: { 'content-type': 'application/octet-stream' },
    })
    expect(uploaded.status).toBe(202)

    // The node whose worker claimed the job (worker ids are host:pid:…), killed as soon as it has it.
    const store = openStore(
      deployment.env.BULWARK_DATABASE_URL ?? `sqlite:${deployment.env.BULWARK_DATA_DIR}/bulwark.db`,
    )
    let holder: NodeProcess | undefined
    try {
      for (let i = 0; i < 400 && !holder; i++) {
        const job = await sql<{ lease_owner: string | null; status: string }>`
          select lease_owner, status from batch_job where id = ${id}`.execute(store.db)
        const pid = Number(job.rows[0]?.lease_owner?.split(':')[1])
        holder = nodes.find((n) => n.process.pid === pid)
        if (!holder) await pause(25)
      }
    } finally {
      await store.close()
    }
    expect(holder, 'a node claimed the job').toBeDefined()
    holder!.process.kill('SIGKILL')
    await holder!.exited
    const statusAtKill = (await through(`/api/v2/batch/${id}`).then((r) => r.json())).data.batchStatus
    expect(statusAtKill.status).toBe('Running')

    let status = statusAtKill
    for (let i = 0; i < 600 && status.status !== 'Completed'; i++) {
      await pause(100)
      status = (await through(`/api/v2/batch/${id}`).then((r) => r.json())).data.batchStatus
    }
    expect(status).toMatchObject({ status: 'Completed', successCount: 25_000, errorCount: 0 })
    const index = nodes.indexOf(holder!)
    nodes[index] = await deployment.start(ports[index])
  }, 180_000)
})

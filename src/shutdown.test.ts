/**
 * Graceful shutdown of real server processes: a rolling restart of two nodes over one database
 * while clients keep writing. Every write a node answered with success is there at the end;
 * a node stopped with SIGTERM finishes what it accepted and exits 0.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freeLoopbackPort as freePort } from './test/harness.js'
import { type Deployment, NODE_HEADERS as headers, createDeployment } from './test/nodes.js'

let deployment: Deployment
beforeAll(async () => {
  deployment = await createDeployment()
})
afterAll(() => deployment.close())

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
    const nodes = [await deployment.start(ports[0]), await deployment.start(ports[1])]
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
      nodes[i] = await deployment.start(ports[i])
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

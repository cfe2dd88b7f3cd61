/**
 * A feed between two real Bulwarks, each a server process over its own database: the puller's
 * scheduler pulls the source's TAXII 2.1 collection through a loopback proxy that slows each page.
 * Killed with SIGKILL in the middle of the pull, the puller's node is started again: its scheduler
 * takes the feed once the dead node's lease has run out, records the cut run as Interrupted and
 * resumes from the cursor stored with the last stored page. Every Indicator of the source arrives,
 * none twice, and the resumed pull does not start over. The same source's TAXII 1.1 poll service, run
 * now through the API, brings the same Indicators back through the STIX 1 reader.
 */
import { spawnSync } from 'node:child_process'
import { type Server, createServer, request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BIN } from '../test/cli-sandbox.js'
import { freeLoopbackPort } from '../test/harness.js'
import { type Deployment, NODE_HEADERS, NODE_TOKEN, type NodeProcess, createDeployment } from '../test/nodes.js'

const INDICATORS = 5_000
const SOURCE_ORG = 'Default Organization'
const PAGE_DELAY_MS = 400

let source: Deployment
let puller: Deployment
let sourceNode: NodeProcess
let proxy: Server
let proxyPort: number
/** The `added_after` of each objects request the proxy passed on, in order ('' for none). */
const objectRequests: string[] = []
let taxii11Requests = 0

async function api(port: number, method: string, path: string, body?: unknown) {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: NODE_HEADERS,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  })
  const text = await res.text()
  return { status: res.status, json: text ? JSON.parse(text) : undefined }
}

/** `bulwark …` against the puller's database, as its operator would run it. */
function bulwark(args: string[]) {
  const run = spawnSync(process.execPath, [BIN, ...args, '--json'], { env: puller.env, encoding: 'utf8' })
  expect(run.status, `${args.join(' ')}: ${run.stdout}${run.stderr}`).toBe(0)
  return JSON.parse(run.stdout)
}

async function loadSource(port: number) {
  const indicators = Array.from({ length: INDICATORS }, (_, i) =>
    i % 2 === 0
      ? { type: 'Address', summary: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, rating: 3 }
      : { type: 'Host', summary: `h${i}.feed-source.example`, rating: 2 },
  )
  const created = await api(port, 'POST', '/api/v2/batch', {
    version: 'V2',
    owner: SOURCE_ORG,
    haltOnError: false,
    action: 'Create',
    attributeWriteType: 'Append',
  })
  expect(created.status).toBe(201)
  const id = created.json.data.batchId
  const res = await fetch(`http://127.0.0.1:${port}/api/v2/batch/${id}`, {
    method: 'POST',
    headers: { ...NODE_HEADERS, 'content-type': 'application/octet-stream' },
    body: JSON.stringify({ indicator: indicators }),
  })
  expect(res.status).toBe(202)
  await until(async () => (await api(port, 'GET', `/api/v2/batch/${id}`)).json.data.batchStatus.status === 'Completed')
}

/** A loopback proxy to the source that says the request came over TLS (the source trusts it) and slows each objects page. */
function startProxy(target: number, port: number): Promise<Server> {
  const server = createServer((req, res) => {
    const url = new URL(req.url!, 'http://proxy')
    if (url.pathname.startsWith('/api/taxii/')) taxii11Requests++
    const isObjects = /\/objects\/?$/.test(url.pathname)
    if (isObjects) objectRequests.push(url.searchParams.get('added_after') ?? '')
    setTimeout(
      () => {
        const upstream = request(
          {
            host: '127.0.0.1',
            port: target,
            path: req.url,
            method: req.method,
            headers: { ...req.headers, host: `127.0.0.1:${target}`, 'x-forwarded-proto': 'https' },
          },
          (answer) => {
            res.writeHead(answer.statusCode!, answer.headers)
            answer.pipe(res)
          },
        )
        upstream.on('error', () => res.destroy())
        req.pipe(upstream)
      },
      isObjects ? PAGE_DELAY_MS : 0,
    )
  })
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)))
}

async function until(check: () => Promise<boolean>, timeoutMs = 90_000) {
  const end = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out waiting')
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

beforeAll(async () => {
  source = await createDeployment()
  sourceNode = await source.start(await freeLoopbackPort())
  await loadSource(sourceNode.port)
  proxyPort = await freeLoopbackPort()
  proxy = await startProxy(sourceNode.port, proxyPort)
  // A short lease, so a killed node's feed is taken over in seconds; a quick poll, so it is seen at once.
  puller = await createDeployment({ BULWARK_FEED_LEASE_MS: '3000', BULWARK_FEED_POLL_MS: '300' })
}, 120_000)

afterAll(async () => {
  await new Promise((resolve) => proxy?.close(resolve))
  await puller?.close()
  await source?.close()
})

describe('a TAXII 2.1 feed from another Bulwark, its node killed in the middle of the pull', () => {
  it('resumes on the restarted node from the stored cursor: every Indicator once, the cut run Interrupted', async () => {
    const port = await freeLoopbackPort()
    let node = await puller.start(port)
    bulwark(['owners', 'create', 'Upstream', '--type', 'Source'])
    bulwark(['memberships', 'set', 'admin-api', 'Upstream', 'Editor'])
    // The source is on loopback: a test's server, which only this setting lets a feed reach.
    bulwark(['settings', 'set', 'feedsAllowPrivateNetworks', 'true'])
    await new Promise((resolve) => setTimeout(resolve, 1100))

    const added = await api(port, 'POST', '/api/v3/feeds', {
      name: 'upstream',
      kind: 'taxii21',
      url: `http://127.0.0.1:${proxyPort}/api/services/taxii/v2/taxii/svc_taxii/`,
      owner: 'Upstream',
      settings: { collection: SOURCE_ORG },
      credentials: { kind: 'bearer', token: NODE_TOKEN },
      intervalSeconds: 3600,
    })
    expect(added.status, JSON.stringify(added.json)).toBe(201)
    const feedId = added.json.data.id

    // The puller asks for a page only once the one before is stored: at the third request, two are.
    await until(async () => {
      if (objectRequests.length >= 3) return true
      const seen = (await api(port, 'GET', `/api/v3/feeds/${feedId}/runs`)).json.data
      if (seen.some((r: { status: string }) => r.status === 'Failed')) throw new Error(JSON.stringify(seen))
      return false
    })
    node.process.kill('SIGKILL')
    await node.exited
    const requestsBeforeKill = objectRequests.length

    node = await puller.start(port)
    let runs: { status: string; created: number }[] = []
    await until(async () => {
      runs = (await api(port, 'GET', `/api/v3/feeds/${feedId}/runs`)).json.data ?? []
      return runs[0]?.status === 'Succeeded'
    })
    expect(runs.map((r) => r.status)).toEqual(['Succeeded', 'Interrupted'])

    // Resumed, not started over: the first request after the restart asks for what came after the cursor.
    expect(objectRequests[requestsBeforeKill]).not.toBe('')
    const count = await api(port, 'GET', `/api/v2/indicators?owner=Upstream&resultLimit=1`)
    expect(count.json.data.resultCount).toBe(INDICATORS)
    // The resumed run made only what the cut one had not stored.
    expect(runs[0].created).toBeLessThan(INDICATORS)
    expect(runs[0].created).toBeGreaterThan(0)
    node.process.kill('SIGTERM')
    await node.exited
  }, 180_000)

  it('pulls the same source over TAXII 1.1, run now and waited for: its STIX 1.1.1 packages read back to the same Indicators', async () => {
    const port = await freeLoopbackPort()
    const node = await puller.start(port)
    bulwark(['owners', 'create', 'Upstream 1.1', '--type', 'Source'])
    bulwark(['memberships', 'set', 'admin-api', 'Upstream 1.1', 'Editor'])
    const password = 'taxii-feed-reader-pa55'
    const reader = spawnSync(
      process.execPath,
      [BIN, 'users', 'create', 'feed-reader', '--kind', 'taxii', '--password-stdin', '--json'],
      { env: source.env, input: `${password}\n`, encoding: 'utf8' },
    )
    expect(reader.status, reader.stdout + reader.stderr).toBe(0)

    const added = await api(port, 'POST', '/api/v3/feeds', {
      name: 'upstream-taxii11',
      kind: 'taxii11',
      url: `http://127.0.0.1:${proxyPort}/api/taxii/discovery/`,
      owner: 'Upstream 1.1',
      // The source's own service addresses are its public URL's; a feed behind a proxy names the poll service.
      settings: { collection: SOURCE_ORG, pollUrl: `http://127.0.0.1:${proxyPort}/api/taxii/poll/` },
      credentials: { kind: 'basic', user: 'feed-reader', password },
      intervalSeconds: 3600,
      enabled: false,
    })
    expect(added.status, JSON.stringify(added.json)).toBe(201)
    const run = await api(port, 'POST', `/api/v3/feeds/${added.json.data.id}/run?wait=true`)
    expect(run.status, JSON.stringify(run.json)).toBe(200)
    expect(run.json.data).toMatchObject({ status: 'Succeeded', created: INDICATORS, refused: 0 })
    expect(taxii11Requests).toBeGreaterThan(0)
    const count = await api(port, 'GET', `/api/v2/indicators?owner=${encodeURIComponent('Upstream 1.1')}&resultLimit=1`)
    expect(count.json.data.resultCount).toBe(INDICATORS)
    node.process.kill('SIGTERM')
    await node.exited
  }, 180_000)
})

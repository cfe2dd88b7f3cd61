/**
 * Several nodes over one database behave as one service: what one node writes, another
 * serves; credentials, settings and account state are shared through the database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createAccessKey,
  createAccount,
  createOwner,
  issueApiToken,
  setAccountDisabled,
} from './domain/access/accounts.js'
import { signRequest } from './domain/access/credentials.js'
import { isoNow } from './core/time.js'
import { CREDENTIAL_CACHE_MS } from './store/engine/credential-cache.js'
import { runPendingJobs } from './worker/batch-worker.js'
import { type SharedNode as Node, startSharedNodes } from './test/harness.js'

let nodes: Node[] = []
let close: () => Promise<void>
let token: string
let key: { accessId: string; secretKey: string }

function call(node: Node, method: 'GET' | 'POST', url: string, payload?: object, auth = `TC-Token ${token}`) {
  return node.app.inject({ method, url, payload, headers: { 'x-forwarded-proto': 'https', authorization: auth } })
}

beforeAll(async () => {
  ;({ nodes, close } = await startSharedNodes(2))
  const db = nodes[0].store.db
  await createOwner(db, { name: 'Shared Org', type: 'Organization' }, isoNow())
  await createAccount(
    db,
    { userName: 'analyst', kind: 'api', organization: 'Shared Org', role: 'Standard User' },
    isoNow(),
  )
  token = (await issueApiToken(db, 'analyst', {}, Date.now())).token
  key = await createAccessKey(db, nodes[0].services.secretBox, 'analyst', isoNow())
})

afterAll(async () => {
  await close?.()
})

describe('two nodes over one database', () => {
  it('serve from one node what the other wrote', async () => {
    const created = await call(nodes[0], 'POST', '/api/v2/indicators/hosts', { hostName: 'shared.example', rating: 3 })
    expect(created.statusCode).toBe(201)
    const read = await call(nodes[1], 'GET', '/api/v2/indicators/hosts/shared.example')
    expect(read.statusCode).toBe(200)
    expect(read.json().data.host).toMatchObject({ summary: 'shared.example', rating: 3 })
  })

  it('verify on one node a signature made with a key created through the other', async () => {
    const ts = String(Math.floor(Date.now() / 1000))
    const auth = `TC ${key.accessId}:${signRequest(key.secretKey, '/api/v2/owners', 'GET', ts)}`
    const res = await nodes[1].app.inject({
      method: 'GET',
      url: '/api/v2/owners',
      headers: { 'x-forwarded-proto': 'https', authorization: auth, timestamp: ts },
    })
    expect(res.statusCode).toBe(200)
  })

  it('see a setting changed through the other node within a second', async () => {
    expect(await nodes[1].services.settings.get('bulkDeleteEnabled')).toBe(false)
    await nodes[0].services.settings.set('bulkDeleteEnabled', 'true')
    await new Promise((resolve) => setTimeout(resolve, 1100))
    expect(await nodes[1].services.settings.get('bulkDeleteEnabled')).toBe(true)
  })

  it('refuse an account disabled through the other node at once when the write is made in this process', async () => {
    expect((await call(nodes[1], 'GET', '/api/v2/owners')).statusCode).toBe(200)
    await setAccountDisabled(nodes[0].store.db, 'analyst', true, isoNow())
    expect((await call(nodes[1], 'GET', '/api/v2/owners')).statusCode).toBe(401)
    await setAccountDisabled(nodes[0].store.db, 'analyst', false, isoNow())
  })

  it('refuse an account disabled by another process within the cache bound of one second, not before the cache says so', async () => {
    expect((await call(nodes[1], 'GET', '/api/v2/owners')).statusCode).toBe(200)
    // A handle without the cache-emptying plugin writes as another process would: unseen here.
    const elsewhere = nodes[0].store.db.withoutPlugins()
    await setAccountDisabled(elsewhere, 'analyst', true, isoNow())
    try {
      expect((await call(nodes[1], 'GET', '/api/v2/owners')).statusCode).toBe(200)
      await new Promise((resolve) => setTimeout(resolve, CREDENTIAL_CACHE_MS + 100))
      expect((await call(nodes[1], 'GET', '/api/v2/owners')).statusCode).toBe(401)
    } finally {
      await setAccountDisabled(nodes[0].store.db, 'analyst', false, isoNow())
    }
  })
})

describe('two nodes creating one Indicator at once', () => {
  // One copy per owner: of simultaneous POSTs of a value the owner does not hold, one creates it and every other
  // updates that copy (v2 answers those 200; v3 answers a POST 201 either way), whichever node and API each goes
  // through; none fails on the unique key.
  it('create it once and answer every request, through v2 and v3 alike', async () => {
    for (let round = 0; round < 5; round++) {
      const hostName = `race-${round}.example`
      const answers = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          i % 2
            ? call(nodes[i % 2]!, 'POST', '/api/v3/indicators', {
                type: 'Host',
                hostName,
                tags: { data: [{ name: `race-${round}` }] },
              })
            : call(nodes[i % 2]!, 'POST', '/api/v2/indicators/hosts', { hostName, rating: 3 }),
        ),
      )
      const v2 = answers.filter((_, i) => i % 2 === 0).map((a) => a.statusCode)
      const v3 = answers.filter((_, i) => i % 2 === 1).map((a) => a.statusCode)
      expect(v3).toEqual(Array(8).fill(201))
      expect(v2.filter((status) => status === 201).length).toBeLessThanOrEqual(1)
      expect(v2.filter((status) => status !== 201).every((status) => status === 200)).toBe(true)
      const listed = await call(
        nodes[1]!,
        'GET',
        `/api/v3/indicators?tql=${encodeURIComponent(`summary = "${hostName}"`)}`,
      )
      expect(listed.json().data).toHaveLength(1)
    }
  })
})

describe('two nodes loading one owner at once', () => {
  const JOBS = 4
  const PER_JOB = 3000
  // Each job shares half its values with the job before it, so concurrent chunks insert the same rows.
  const STEP = PER_JOB / 2
  const hex = (i: number, width: number) => i.toString(16).padStart(width, '0')
  function indicatorOf(i: number) {
    const common = {
      rating: 1 + (i % 5),
      tag: [{ name: `wave-${i % 7}` }],
      attribute: [{ type: 'Description', value: `item ${i}` }],
    }
    switch (i % 3) {
      case 0:
        return { ...common, type: 'Host', summary: `overlap-${i}.example` }
      case 1:
        return { ...common, type: 'Address', summary: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` }
      default:
        // A File named by MD5 in one job may be named by MD5 and SHA-256 in the next: the rows merge.
        return { ...common, type: 'File', summary: i % 2 ? hex(i, 32) : `${hex(i, 32)} : ${hex(i, 64)}` }
    }
  }

  async function queue(node: Node, from: number): Promise<number> {
    const created = await call(node, 'POST', '/api/v2/batch', {
      owner: 'Shared Org',
      haltOnError: false,
      action: 'Create',
      attributeWriteType: 'Append',
    })
    const id = created.json().data.batchId
    const indicator = Array.from({ length: PER_JOB }, (_, k) => indicatorOf(from + k))
    const uploaded = await node.app.inject({
      method: 'POST',
      url: `/api/v2/batch/${id}`,
      payload: JSON.stringify({ indicator }),
      headers: {
        'x-forwarded-proto': 'https',
        authorization: `TC-Token ${token}`,
        'content-type': 'application/octet-stream',
      },
    })
    expect(uploaded.statusCode).toBe(202)
    return id
  }

  it('store every value once and report no item errors, however their chunks interleave', async () => {
    const count = async () =>
      (await call(nodes[0], 'GET', '/api/v2/indicators?resultLimit=1')).json().data.resultCount as number
    const before = await count()
    const ids: number[] = []
    for (let k = 0; k < JOBS; k++) ids.push(await queue(nodes[k % 2], k * STEP))
    // Two workers a node, as a node runs jobs while more are queued.
    await Promise.all(nodes.flatMap((node) => [0, 1].map(() => runPendingJobs(node.store, node.services))))
    for (const id of ids) {
      const status = (await call(nodes[1], 'GET', `/api/v2/batch/${id}`)).json().data.batchStatus
      expect(status).toMatchObject({ status: 'Completed', errorCount: 0, successCount: PER_JOB })
    }
    const distinct = (JOBS - 1) * STEP + PER_JOB
    expect(await count()).toBe(before + distinct)
    const tags = await call(nodes[1], 'GET', '/api/v2/tags?resultLimit=100')
    expect(tags.json().data.tag.filter((t: { name: string }) => t.name.startsWith('wave-'))).toHaveLength(7)
  })
})

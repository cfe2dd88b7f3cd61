/**
 * /v3/graph (beyond the interface specification): an item's neighbours counted exactly by kind and type, a
 * bounded page of them with each one's own count, only what the caller reads, and refusals in the v3
 * envelope (404 for an item it cannot see, 400 for a page over the maximum or bad TQL).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isoNow } from '../../core/time.js'
import { setMembership } from '../../domain/access/accounts.js'
import { associate, requireAssociationType } from '../../domain/items/associations.js'
import { findReadableItem } from '../../domain/items/items.js'
import { type TestAccount, type TestApp, createTestApp } from '../../test/harness.js'

let t: TestApp
let analyst: TestAccount
let group: number
let incident: number
let closedHost: number
let url: number
const hosts: number[] = []
const addresses: number[] = []

async function post(url: string, payload: object) {
  const res = await t.request({ method: 'POST', url: `/api/v3${url}`, payload })
  expect(res.statusCode, res.body).toBe(201)
  return res.json().data.id as number
}

beforeAll(async () => {
  t = await createTestApp()
  analyst = await t.createAccount({ role: 'Standard User' })
  await t.createOwner('Closed Community', 'Community')
  await setMembership(t.store.db, t.admin.userName, 'Closed Community', 'Director', isoNow())
  for (let i = 0; i < 30; i++) {
    hosts.push(await post('/indicators', { type: 'Host', hostName: `node-${i}.example` }))
    addresses.push(await post('/indicators', { type: 'Address', ip: `10.0.0.${i + 1}` }))
  }
  closedHost = await post('/indicators?owner=Closed%20Community', { type: 'Host', hostName: 'closed.example' })
  const ids = [...hosts, ...addresses, closedHost].map((id) => ({ id }))
  group = await post('/groups', { type: 'Adversary', name: 'Root', associatedIndicators: { data: ids } })
  incident = await post('/groups', {
    type: 'Intrusion Set',
    name: 'Other',
    associatedGroups: { data: [{ id: group }] },
    associatedIndicators: { data: [{ id: hosts[0] }] },
  })
  // A custom association type between two Indicators: counted and paged apart from the plain association.
  url = await post('/indicators', { type: 'URL', text: 'http://node-1.example/x' })
  const ctx = await t.context()
  const type = await requireAssociationType(t.store.db, 'URL Host')
  await associate(
    ctx,
    await findReadableItem(ctx, 'indicator', url),
    await findReadableItem(ctx, 'indicator', hosts[1]!),
    {
      associationTypeId: type.id,
    },
  )
})
afterAll(() => t.close())

const get = (url: string, as?: TestAccount) => t.request({ method: 'GET', url: `/api/v3${url}`, ...(as ? { as } : {}) })

describe('GET /api/v3/graph/{kind}/{id}', () => {
  it('counts the readable neighbours by kind, type and association type', async () => {
    const res = await get(`/graph/groups/${group}`, analyst)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toEqual({
      data: {
        id: group,
        kind: 'groups',
        type: 'Adversary',
        summary: 'Root',
        owner: 'Test Organization',
        rating: null,
        neighbours: [
          { kind: 'groups', type: 'Intrusion Set', associationType: null, count: 1 },
          { kind: 'indicators', type: 'Address', associationType: null, count: 30 },
          { kind: 'indicators', type: 'Host', associationType: null, count: 30 },
        ],
        degree: 61,
      },
      status: 'Success',
    })
  })

  it('counts what a member of the other owner reads too', async () => {
    const neighbours = (await get(`/graph/groups/${group}`)).json().data.neighbours
    expect(neighbours).toContainEqual({ kind: 'indicators', type: 'Host', associationType: null, count: 31 })
  })

  it('answers 404 in the v3 envelope for an unknown or unreadable item and an unknown kind', async () => {
    for (const url of [`/graph/groups/999999`, `/graph/indicators/${closedHost}`, `/graph/owners/1`]) {
      const res = await get(url, analyst)
      expect(res.statusCode, url).toBe(404)
      expect(res.json()).toMatchObject({ status: 'Error' })
    }
  })
})

describe('GET /api/v3/graph/{kind}/{id}/neighbours', () => {
  it('returns one bounded page, 25 by default, each neighbour with its own count', async () => {
    const res = await get(`/graph/groups/${group}/neighbours?kind=indicators`, analyst)
    expect(res.statusCode, res.body).toBe(200)
    const body = res.json()
    expect(body.count).toBe(60)
    expect(body.data).toHaveLength(25)
    expect(body.resultLimit).toBe(25)
    const first = body.data.find((n: { id: number }) => n.id === hosts[0])
    expect(first).toEqual({
      id: hosts[0],
      kind: 'indicators',
      type: 'Host',
      summary: 'node-0.example',
      owner: 'Test Organization',
      rating: null,
      degree: 2,
      degreeCapped: false,
      associationType: null,
    })
    expect(body.data.find((n: { id: number }) => n.id === addresses[0]).degree).toBe(1)
  })

  it('pages through every readable neighbour and never the unreadable one', async () => {
    const seen: string[] = []
    for (let start = 0; start < 100; start += 25) {
      const body = (await get(`/graph/groups/${group}/neighbours?resultStart=${start}`, analyst)).json()
      expect(body.count).toBe(61)
      seen.push(...body.data.map((n: { kind: string; id: number }) => `${n.kind}:${n.id}`))
    }
    expect(seen).toHaveLength(61)
    expect(new Set(seen).size).toBe(61)
    expect(seen).toContain(`groups:${incident}`)
    expect(seen).not.toContain(`indicators:${closedHost}`)
    const admin = (await get(`/graph/groups/${group}/neighbours?kind=indicators&resultLimit=100`)).json()
    expect(admin.data.map((n: { id: number }) => n.id)).toContain(closedHost)
  })

  it('filters by type and by TQL', async () => {
    const typed = (await get(`/graph/groups/${group}/neighbours?kind=indicators&type=Address`, analyst)).json()
    expect(typed.count).toBe(30)
    const tql = encodeURIComponent('typeName = "Host" and summary startsWith "node-1"')
    const filtered = (await get(`/graph/groups/${group}/neighbours?tql=${tql}&resultLimit=100`, analyst)).json()
    expect(filtered.data.map((n: { summary: string }) => n.summary).sort()).toEqual(
      ['node-1', ...Array.from({ length: 10 }, (_, i) => `node-1${i}`)].map((s) => `${s}.example`),
    )
    expect(filtered.count).toBe(11)
  })

  it('returns only the neighbours named by ids, for a client rebuilding its graph', async () => {
    const ids = [hosts[3], addresses[7], closedHost, 999999].join(',')
    const body = (await get(`/graph/groups/${group}/neighbours?kind=indicators&ids=${ids}`, analyst)).json()
    expect(body.data.map((n: { summary: string }) => n.summary).sort()).toEqual(['10.0.0.8', 'node-3.example'])
    expect(body.count).toBe(2)
    expect((await get(`/graph/groups/${group}/neighbours?ids=${ids}`, analyst)).statusCode).toBe(400)
  })

  it('counts and pages a custom association type apart from the plain association', async () => {
    const counts = (await get(`/graph/indicators/${url}`, analyst)).json().data.neighbours
    expect(counts).toEqual([{ kind: 'indicators', type: 'Host', associationType: 'URL Host', count: 1 }])
    expect((await get(`/graph/indicators/${url}/neighbours`, analyst)).json().count).toBe(0)
    const typed = (await get(`/graph/indicators/${url}/neighbours?associationType=URL%20Host`, analyst)).json()
    expect(typed.data).toMatchObject([
      { id: hosts[1], summary: 'node-1.example', associationType: 'URL Host', degree: 2 },
    ])
    expect((await get(`/graph/indicators/${url}/neighbours?associationType=nope`, analyst)).statusCode).toBe(404)
  })

  it('refuses a page over the maximum and bad TQL with a 400 in the v3 envelope', async () => {
    const over = await get(`/graph/groups/${group}/neighbours?resultLimit=101`, analyst)
    expect(over.statusCode).toBe(400)
    expect(over.json()).toMatchObject({ status: 'Error', message: expect.stringContaining('100') })
    const bad = await get(`/graph/groups/${group}/neighbours?tql=${encodeURIComponent('rating >== 3')}`, analyst)
    expect(bad.statusCode).toBe(400)
    expect(bad.json()).toMatchObject({ status: 'Error', message: expect.stringContaining('TQL') })
    const kind = await get(`/graph/groups/${group}/neighbours?kind=owners`, analyst)
    expect(kind.statusCode).toBe(400)
    expect((await get(`/graph/groups/999999/neighbours`, analyst)).statusCode).toBe(404)
  })
})

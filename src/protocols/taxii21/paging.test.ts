/**
 * Paging across server processes while the collection changes: two apps over one database
 * (as src/scale-out.test.ts runs them) serve alternate pages of one walk, thousands of
 * Indicators share one timestamp, and Indicators are added and changed between pages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAccount, createOwner } from '../../domain/access/accounts.js'
import { isoNow } from '../../core/time.js'
import { type SharedNode as Node, startSharedNodes } from '../../test/harness.js'
import { authenticate } from '../../domain/access/authentication.js'
import { type Item, type TaxiiEnv, findCollection, openItemPage } from './content.js'
import { parseFilters } from './params.js'
import { StixIds } from '../../formats/stix2/stix.js'
import { StixIdIndex } from './stix-id-index.js'

const OBJECTS = '/api/services/taxii/v2/taxii/svc_taxii/collections/Paging%20Org/objects/'
const auth = `Basic ${Buffer.from('pager:pager-password').toString('base64')}`
const SHARED = '2026-05-05T05:05:05.555Z'

let nodes: Node[] = []
let close: () => Promise<void>
let ownerId: number

async function page(node: Node, query: string) {
  const res = await node.app.inject({
    method: 'GET',
    url: `${OBJECTS}?${query}`,
    headers: { 'x-forwarded-proto': 'https', authorization: auth, accept: 'application/taxii+json;version=2.1' },
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json() as {
    more: boolean
    next?: string
    objects?: { id: string; type: string; modified?: string; x_svc_id?: number }[]
  }
}

async function insert(summaries: string[], at: string) {
  const rows = summaries.map((summary) => ({
    owner_id: ownerId,
    type: 'Host',
    summary,
    value1: summary,
    date_added: at,
    last_modified: at,
  }))
  for (let i = 0; i < rows.length; i += 500)
    await nodes[0].store.db
      .insertInto('indicator')
      .values(rows.slice(i, i + 500))
      .execute()
}

beforeAll(async () => {
  ;({ nodes, close } = await startSharedNodes(2))
  const db = nodes[0].store.db
  ownerId = (await createOwner(db, { name: 'Paging Org', type: 'Organization' }, isoNow())).id
  await createAccount(
    db,
    { userName: 'pager', kind: 'taxii', organization: 'Paging Org', role: 'Standard User', password: 'pager-password' },
    isoNow(),
  )
  await insert(
    Array.from({ length: 3000 }, (_, i) => `shared-${i}.example`),
    SHARED,
  )
  await insert(
    Array.from({ length: 200 }, (_, i) => `later-${i}.example`),
    '2026-05-06T00:00:00.000Z',
  )
}, 120_000)

afterAll(async () => {
  await close?.()
})

describe('next across two server processes while the collection changes', () => {
  it('serves every Indicator, each version once, the last version of each at the end', async () => {
    const seen: string[] = []
    const lastSeen = new Map<number, string>()
    let next: string | undefined
    let pages = 0
    let added = 0
    const db = nodes[0].store.db
    const ids = (
      await db.selectFrom('indicator').select('id').where('owner_id', '=', ownerId).orderBy('id').execute()
    ).map((r) => r.id)
    for (;;) {
      const body = await page(nodes[pages % 2], `limit=250${next ? `&next=${next}` : ''}`)
      for (const o of body.objects ?? []) {
        if (o.type !== 'indicator') continue
        seen.push(`${o.id}@${o.modified}`)
        lastSeen.set(o.x_svc_id!, o.modified!)
      }
      pages++
      if (!body.more) break
      next = body.next
      // Between pages: new Indicators (some on the shared timestamp, behind the walk), one changed ahead and one behind.
      const now = new Date(Date.parse('2026-06-01T00:00:00.000Z') + pages * 1000).toISOString()
      await insert([`added-${added++}.example`], now)
      await insert([`late-shared-${added}.example`], SHARED)
      await db
        .updateTable('indicator')
        .set({ last_modified: now })
        .where('id', 'in', [ids[pages * 7], ids[ids.length - 1 - pages * 3]])
        .execute()
      expect(pages).toBeLessThan(100)
    }
    expect(new Set(seen).size).toBe(seen.length)
    // What exists now, apart from rows stamped behind the walk's position while it ran, was served at its current version.
    const current = await db
      .selectFrom('indicator')
      .select(['id', 'last_modified', 'summary'])
      .where('owner_id', '=', ownerId)
      .execute()
    const expected = current.filter((r) => !r.summary.startsWith('late-shared-'))
    expect(expected.length).toBe(3200 + added)
    for (const r of expected) expect(lastSeen.get(r.id), r.summary).toBe(r.last_modified)
    expect(pages).toBeGreaterThan(12)
  }, 120_000)

  it('serves pages larger than one read (500 Indicators) whole: every Indicator once, in order, the headers naming the first and last', async () => {
    const db = nodes[0].store.db
    const rows = await db
      .selectFrom('indicator')
      .select(['id', 'last_modified'])
      .where('owner_id', '=', ownerId)
      .orderBy('last_modified')
      .orderBy('id')
      .execute()
    const served: number[] = []
    let next: string | undefined
    for (let n = 0; ; n++) {
      const res = await nodes[n % 2].app.inject({
        method: 'GET',
        url: `${OBJECTS}?limit=2500${next ? `&next=${next}` : ''}`,
        headers: { 'x-forwarded-proto': 'https', authorization: auth, accept: 'application/taxii+json;version=2.1' },
      })
      const body = res.json() as {
        more: boolean
        next?: string
        objects: { type: string; x_svc_id?: number; modified?: string; created: string }[]
      }
      expect(body.objects.length).toBe(body.more ? 2500 : rows.length + 4 - 2500 * n)
      const indicators = body.objects.filter((o) => o.type === 'indicator')
      served.push(...indicators.map((o) => o.x_svc_id!))
      const lastAdded = body.objects.at(-1)!.modified ?? body.objects.at(-1)!.created
      expect(res.headers['x-taxii-date-added-last']).toBe(`${lastAdded.slice(0, 23)}000Z`)
      if (!body.more) break
      next = body.next
    }
    expect(served).toEqual(rows.map((r) => r.id))
  }, 60_000)

  it('settles a page before sending it: an Indicator of the page changed while it is sent leaves the page, and the next page ends with it', async () => {
    const node = nodes[0]
    const caller = await authenticate(
      node.services,
      { authorization: auth, timestamp: undefined, pathAndQuery: '/', method: 'GET', nowMs: Date.now() },
      ['basic'],
    )
    const ids = new StixIds(node.services.installationId)
    const env: TaxiiEnv = { store: node.store, caller, ids, index: new StixIdIndex(ids), version: '2.0' }
    const collection = findCollection(env, 'Paging Org')
    const filters = parseFilters({ limit: '3000' }, { id: true, type: true, version: true })
    const page = await openItemPage(env, collection, filters)
    const batches = (page.batches as AsyncIterable<Item[]>)[Symbol.asyncIterator]()
    const first = (await batches.next()).value as Item[]
    expect(first.map((item) => item.stixId().split('--')[0])).toEqual([
      'marking-definition',
      'marking-definition',
      'marking-definition',
      'marking-definition',
    ])
    const planned = await node.store.db
      .selectFrom('indicator')
      .select(['id', 'last_modified'])
      .where('owner_id', '=', ownerId)
      .orderBy('last_modified')
      .orderBy('id')
      .limit(2996)
      .execute()
    // One Indicator beyond the reads begun (two of 500), changed after the page was planned but before that part is read.
    const changed = planned[2500]
    const now = '2026-12-31T00:00:00.000Z'
    await node.store.db.updateTable('indicator').set({ last_modified: now }).where('id', '=', changed.id).execute()
    const rest: Item[] = []
    for (let step = await batches.next(); !step.done; step = await batches.next()) rest.push(...step.value)
    expect(rest.map((item) => item.stixId())).toEqual(
      planned.filter((r) => r.id !== changed.id).map((r) => env.ids.indicator(ownerId, r.id)),
    )
    expect(page).toMatchObject({
      firstAdded: first[0].dateAdded,
      lastAdded: planned.at(-1)!.last_modified,
      more: true,
      next: { phase: 'indicator', lastModified: planned.at(-1)!.last_modified, id: planned.at(-1)!.id },
    })
    const after = await openItemPage(env, collection, { ...filters, limit: 10_000, position: page.next })
    const items: Item[] = []
    for await (const batch of after.batches) items.push(...batch)
    expect(items.at(-1)!.stixId()).toBe(env.ids.indicator(ownerId, changed.id))
    expect(after.lastAdded).toBe(now)
  })

  it('gives the same collection and object ids on both processes', async () => {
    const [a, b] = await Promise.all(nodes.map((n) => page(n, 'limit=10')))
    expect(a.objects!.map((o) => o.id)).toEqual(b.objects!.map((o) => o.id))
    const collections = await Promise.all(
      nodes.map(
        async (n) =>
          (
            await n.app.inject({
              method: 'GET',
              url: '/api/services/taxii/v1/svc_taxii/collections/',
              headers: { 'x-forwarded-proto': 'https', authorization: auth },
            })
          ).json().collections,
      ),
    )
    expect(collections[0]).toHaveLength(1)
    expect(collections[0][0].id).toMatch(/^[0-9a-f-]{36}$/)
    expect(collections[1]).toEqual(collections[0])
  })
})

/**
 * The owner scope end to end: a member Banned in a Community reads nothing of it through any
 * endpoint — not its lists, its items, its type catalogue, its tags, nor partners of an item the
 * member can read — and cannot create there, nested or not. The last test walks every GET route
 * of v2 and v3 with the closed owner's ids, values and name, and finds none of it in any answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isoNow } from '../../core/time.js'
import { createTestApp, type TestAccount, type TestApp } from '../../test/harness.js'

const CLOSED = 'Closed Community'
let t: TestApp
let banned: TestAccount
let insider: TestAccount
let closedIndicator: number
let closedGroup: number
let closedVictim: number
let orgGroup: number

async function call(method: string, url: string, payload?: unknown, as: TestAccount = banned) {
  const res = await t.request({ method: method as 'GET', url, payload: payload as Record<string, unknown>, as })
  return { status: res.statusCode, body: JSON.parse(res.body) }
}

beforeAll(async () => {
  t = await createTestApp()
  const closedId = await t.createOwner(CLOSED, 'Community')
  insider = await t.createAccount({ role: 'Organization Administrator', memberships: { [CLOSED]: 'Director' } })
  banned = await t.createAccount({ role: 'Organization Administrator', memberships: { [CLOSED]: 'Banned' } })
  const created = async (url: string, body: Record<string, unknown>) => {
    const res = await call('POST', url, body, insider)
    expect(res.status).toBe(201)
    return res.body.data.id as number
  }
  closedIndicator = await created('/api/v3/indicators', {
    type: 'Host',
    hostName: 'closed.example',
    ownerName: CLOSED,
    tags: { data: [{ name: 'closed-tag' }] },
  })
  closedGroup = await created('/api/v3/groups', { type: 'Adversary', name: 'Closed adversary', ownerName: CLOSED })
  closedVictim = await created('/api/v3/victims', { name: 'Closed victim', ownerName: CLOSED })
  orgGroup = await created('/api/v3/groups', {
    type: 'Adversary',
    name: 'Org adversary',
    associatedIndicators: { data: [{ id: closedIndicator }] },
  })
  // Owners define attribute types only through the database today.
  await t.store.db
    .insertInto('attribute_type')
    .values({
      name: 'Closed Type',
      description: 'defined by the Community',
      owner_id: closedId,
      max_length: 100,
      allow_markdown: 0,
      error_message: null,
      validation_rule: null,
      applies_to: 'indicator,group',
      system: 0,
      date_added: isoNow(),
    })
    .execute()
})
afterAll(async () => {
  await t.close()
})

describe('a Banned member', () => {
  it('does not see the owner, by name or in owner lists', async () => {
    expect((await call('GET', `/api/v2/indicators?owner=${encodeURIComponent(CLOSED)}`)).status).toBe(403)
    expect((await call('GET', `/api/v3/indicators?owner=${encodeURIComponent(CLOSED)}`)).status).toBe(403)
    const owners = (await call('GET', '/api/v3/security/owners')).body.data.map((o: { name: string }) => o.name)
    expect(owners).not.toContain(CLOSED)
  })

  it("reads none of the owner's items through v3 lists, look-ups or TQL", async () => {
    for (const path of ['indicators', 'groups', 'victims']) {
      const list = await call('GET', `/api/v3/${path}?resultLimit=500`)
      expect(list.status).toBe(200)
      expect(list.body.data.filter((x: { ownerName?: string }) => x.ownerName === CLOSED)).toEqual([])
    }
    expect((await call('GET', `/api/v3/indicators/${closedIndicator}`)).status).toBe(404)
    const byTql = await call('GET', `/api/v3/indicators?tql=${encodeURIComponent('summary = "closed.example"')}`)
    expect(byTql.body.data).toEqual([])
    expect((await call('GET', `/api/v2/indicators/hosts/closed.example`)).status).toBe(404)
  })

  it("does not see the owner's items as partners of an item it can read", async () => {
    const v3 = await call('GET', `/api/v3/groups/${orgGroup}?fields=associatedIndicators`)
    expect(v3.body.data.associatedIndicators).toEqual({ data: [] })
    const v2 = await call('GET', `/api/v2/groups/adversaries/${orgGroup}/indicators`)
    expect(v2.status).toBe(200)
    expect(v2.body.data.resultCount).toBe(0)
    // The insider, a member, does see it: the association is there.
    const insiderView = await call('GET', `/api/v3/groups/${orgGroup}?fields=associatedIndicators`, undefined, insider)
    expect(insiderView.body.data.associatedIndicators.data.map((i: { id: number }) => i.id)).toEqual([closedIndicator])
  })

  it("reads none of the owner's tags or attribute types", async () => {
    const tags = (await call('GET', '/api/v3/tags?resultLimit=500')).body.data.map((x: { name: string }) => x.name)
    expect(tags).not.toContain('closed-tag')
    const v3Types = (await call('GET', '/api/v3/attributeTypes?resultLimit=500')).body.data.map(
      (x: { name: string }) => x.name,
    )
    expect(v3Types).not.toContain('Closed Type')
    const v2Types = await call('GET', '/api/v2/types/attributeTypes?resultLimit=500')
    expect(v2Types.status).toBe(200)
    expect(v2Types.body.data.attributeType.map((x: { name: string }) => x.name)).not.toContain('Closed Type')
    expect((await call('GET', '/api/v2/types/attributeTypes/Closed%20Type')).status).toBe(404)
    const filtered = await call('GET', `/api/v2/types/attributeTypes?filters=${encodeURIComponent(`owner=${CLOSED}`)}`)
    expect(filtered.status).toBe(400)
  })

  it('creates nothing in the owner, at the top level or nested', async () => {
    expect(
      (await call('POST', '/api/v3/groups', { type: 'Adversary', name: 'Sneaky', ownerName: CLOSED })).status,
    ).toBe(403)
    const nested = await call('POST', '/api/v3/groups', {
      type: 'Adversary',
      name: 'Carrier',
      associatedGroups: { data: [{ type: 'Adversary', name: 'Nested sneaky', ownerName: CLOSED }] },
    })
    expect(nested.status).toBe(403)
    const names = (await call('GET', '/api/v3/groups?resultLimit=500', undefined, t.admin)).body.data.map(
      (g: { name: string }) => g.name,
    )
    expect(names).not.toContain('Carrier')
  })
})

/** Text that appears in a response only if something of the closed owner leaked into it. */
const CLOSED_MARKERS = [
  CLOSED,
  'closed.example',
  'closed-tag',
  'Closed Type',
  'Closed adversary',
  'Closed victim',
  'Nested sneaky',
  'Sneaky',
]

/** Every way a GET route can name something of the closed owner: its items' ids, values, tag, owner. */
function closedUrls(route: string): string[] {
  const variants = [closedIndicator, closedGroup, closedVictim].map((id) =>
    route.replace(/:(\w+)/g, (_m, name: string) => {
      const value: Record<string, string> = {
        groupType: 'adversaries',
        type: 'hosts',
        assocType: 'hosts',
        targetType: 'hosts',
        assetType: 'webSites',
        indicator: 'closed.example',
        summary: 'closed.example',
        target: 'closed.example',
        name: 'closed-tag',
        tag: 'closed-tag',
        label: 'TLP:WHITE',
        format: 'json',
        action: 'observations',
      }
      return encodeURIComponent(value[name] ?? String(id))
    }),
  )
  return [...new Set(variants)]
}

describe('a Banned member, through every GET route of v2 and v3', () => {
  it('reads nothing of the owner, with or without owner= naming it', async () => {
    // The API documents are served to anyone and read no owner.
    const routes = t.app.routeTable
      .filter((r) => r.method === 'GET' && /^\/api\/v[23]\//.test(r.url) && !r.url.endsWith('/openApi'))
      .map((r) => r.url)
    expect(routes.length).toBeGreaterThan(150)
    const leaks: string[] = []
    const withOwner: string[] = []
    for (const url of [...new Set(routes)].flatMap(closedUrls)) {
      for (const query of ['', `${url.includes('?') ? '&' : '?'}owner=${encodeURIComponent(CLOSED)}`]) {
        const res = await t.request({ method: 'GET', url: `${url}${query}`, as: banned })
        if (query) withOwner.push(`${res.statusCode} ${url}`)
        if (res.statusCode < 300 && CLOSED_MARKERS.some((m) => res.body.includes(m)))
          leaks.push(`${res.statusCode} ${url}${query}`)
      }
    }
    expect(leaks).toEqual([])
    // Naming the owner is refused outright, on every route that reads owned data.
    expect(withOwner.filter((answer) => answer < '3')).toEqual([])
  })
})

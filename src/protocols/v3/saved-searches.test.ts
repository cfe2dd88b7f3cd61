/**
 * /v3/savedSearches and /v3/dashboard (beyond the interface specification): saving, sharing with an owner's
 * members, pinning, who may change and delete; the dashboard's figures held to the counts of the searches their
 * TQL names, its pinned cards bounded, and the per-day tally kept through inserts, moves and deletions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setMembership } from '../../domain/access/accounts.js'
import { isoNow } from '../../core/time.js'
import { ORG, type TestAccount, type TestApp, createTestApp } from '../../test/harness.js'

let t: TestApp
let author: TestAccount
let member: TestAccount
let outsider: TestAccount
let orgAdmin: TestAccount
const CIRCLE = 'Sharing Circle'

const call = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, as: TestAccount, payload?: unknown) =>
  t.request({ method, url, as, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) })

async function save(as: TestAccount, body: Record<string, unknown>) {
  const res = await call('POST', '/api/v3/savedSearches', as, body)
  expect(res.statusCode, res.body).toBe(201)
  return res.json().data
}

async function countOf(tql: string, as: TestAccount = t.admin) {
  const res = await t.request({
    url: `/api/v3/indicators?tql=${encodeURIComponent(tql)}&count=true&resultLimit=1`,
    as,
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().count as number
}

beforeAll(async () => {
  t = await createTestApp()
  await t.createOwner(CIRCLE, 'Community')
  await setMembership(t.store.db, t.admin.userName, CIRCLE, 'Director', isoNow())
  author = await t.createAccount({ role: 'Standard User', memberships: { [CIRCLE]: 'Subscriber' } })
  member = await t.createAccount({ role: 'Read Only User', memberships: { [CIRCLE]: 'Subscriber' } })
  outsider = await t.createAccount({ role: 'Standard User' })
  orgAdmin = await t.createAccount({ role: 'Organization Administrator' })
  const post = async (body: Record<string, unknown>, owner?: string) => {
    const res = await t.request({
      method: 'POST',
      url: `/api/v3/indicators${owner ? `?owner=${encodeURIComponent(owner)}` : ''}`,
      payload: body,
    })
    expect(res.statusCode, res.body).toBe(201)
  }
  for (let n = 0; n < 12; n++) await post({ type: 'Host', hostName: `h${n}.example`, rating: n % 6 })
  await post({ type: 'Address', ip: '192.0.2.1', rating: 5, active: false })
  await post({ type: 'Address', ip: '192.0.2.2' })
  for (let n = 0; n < 5; n++) await post({ type: 'Host', hostName: `c${n}.example`, rating: 3 }, CIRCLE)
  await t.request({ method: 'POST', url: '/api/v3/groups', payload: { type: 'Campaign', name: 'Dashboard campaign' } })
})
afterAll(() => t.close())

describe('saved searches', () => {
  it('saves a private search and shows it to its creator only', async () => {
    const saved = await save(author, { name: 'My hosts', tql: 'typeName = "Host"' })
    expect(saved).toMatchObject({
      name: 'My hosts',
      tql: 'typeName = "Host"',
      kind: 'indicators',
      shared: false,
      mine: true,
      pinned: false,
      editable: true,
    })
    expect(saved.owner).toBeUndefined()
    expect(saved.createdBy).toBe(author.userName)
    for (const other of [member, outsider, t.admin]) {
      const list = (await call('GET', '/api/v3/savedSearches', other)).json().data as { id: number }[]
      expect(list.map((s) => s.id)).not.toContain(saved.id)
      const one = await call('GET', `/api/v3/savedSearches/${saved.id}`, other)
      expect(one.statusCode).toBe(404)
      expect(one.json()).toEqual({ errCode: '0x1007', message: `Saved search ${saved.id} not found`, status: 'Error' })
    }
  })

  it("shares a search with an owner's members, who see and pin it; others do not see it", async () => {
    const shared = await save(author, { name: 'Circle rated', tql: 'rating >= 3', owner: CIRCLE })
    expect(shared).toMatchObject({ shared: true, owner: CIRCLE, mine: true })
    const seen = (await call('GET', '/api/v3/savedSearches', member)).json()
    expect(seen.status).toBe('Success')
    expect(seen.data.find((s: { id: number }) => s.id === shared.id)).toMatchObject({
      id: shared.id,
      name: 'Circle rated',
      tql: 'rating >= 3',
      kind: 'indicators',
      shared: true,
      owner: CIRCLE,
      createdBy: author.userName,
      mine: false,
      pinned: false,
      editable: false,
    })
    expect((await call('GET', `/api/v3/savedSearches/${shared.id}`, outsider)).statusCode).toBe(404)
    // Pinning is the member's own: the author's view stays unpinned.
    const pinned = await call('PUT', `/api/v3/savedSearches/${shared.id}`, member, { pinned: true })
    expect(pinned.statusCode, pinned.body).toBe(200)
    expect(pinned.json().data.pinned).toBe(true)
    expect((await call('GET', `/api/v3/savedSearches/${shared.id}`, author)).json().data.pinned).toBe(false)
    // Changing or deleting it is the author's (or an administrator's).
    const renamed = await call('PUT', `/api/v3/savedSearches/${shared.id}`, member, { name: 'Mine now' })
    expect(renamed.statusCode).toBe(403)
    expect(renamed.json().message).toContain(`Only the creator of saved search ${shared.id}`)
    expect((await call('DELETE', `/api/v3/savedSearches/${shared.id}`, member)).statusCode).toBe(403)
  })

  it('refuses sharing with an owner the creator is not a member of, bad TQL, a bad kind and a blank name', async () => {
    const notMember = await call('POST', '/api/v3/savedSearches', outsider, { name: 'x', tql: '', owner: CIRCLE })
    expect(notMember.statusCode).toBe(403)
    expect(notMember.json().message).toBe(
      `A search can be shared only with an owner you are a member of; '${CIRCLE}' is not one`,
    )
    const badTql = await call('POST', '/api/v3/savedSearches', author, { name: 'x', tql: 'rating >== 3' })
    expect(badTql.statusCode).toBe(400)
    expect(badTql.json().message).toMatch(/^The saved search's TQL: TQL error at column \d+/)
    const badKind = await call('POST', '/api/v3/savedSearches', author, { name: 'x', tql: '', kind: 'victims' })
    expect(badKind.statusCode).toBe(400)
    expect(badKind.json().message).toBe('kind must be one of indicators, groups')
    expect((await call('POST', '/api/v3/savedSearches', author, { name: '  ', tql: '' })).statusCode).toBe(400)
    // A Group search compiles against the Groups' keywords.
    expect((await save(author, { name: 'Campaigns', tql: 'typeName = "Campaign"', kind: 'groups' })).kind).toBe(
      'groups',
    )
    expect(
      (await call('POST', '/api/v3/savedSearches', author, { name: 'x', tql: 'rating > 1', kind: 'groups' }))
        .statusCode,
    ).toBe(400)
  })

  it("lets the author rename and delete, and an Organization Administrator of the author's Organization change a shared one", async () => {
    const s = await save(author, { name: 'Temporary', tql: 'rating = 1', owner: ORG })
    const renamed = await call('PUT', `/api/v3/savedSearches/${s.id}`, author, { name: 'Renamed', tql: 'rating = 2' })
    expect(renamed.json().data).toMatchObject({ name: 'Renamed', tql: 'rating = 2' })
    const byAdmin = await call('PUT', `/api/v3/savedSearches/${s.id}`, orgAdmin, { name: 'Set by the admin' })
    expect(byAdmin.statusCode, byAdmin.body).toBe(200)
    expect(byAdmin.json().data).toMatchObject({ name: 'Set by the admin', mine: false, editable: true })
    expect((await call('DELETE', `/api/v3/savedSearches/${s.id}`, author)).json()).toEqual({
      message: 'Deleted',
      status: 'Success',
    })
    expect((await call('GET', `/api/v3/savedSearches/${s.id}`, author)).statusCode).toBe(404)
    expect((await call('GET', '/api/v3/savedSearches/abc', author)).statusCode).toBe(404)
  })
})

describe('GET /v3/dashboard', () => {
  it("answers counts equal to the counts of the searches each names, in the caller's owners", async () => {
    const res = await call('GET', '/api/v3/dashboard', t.admin)
    expect(res.statusCode, res.body).toBe(200)
    const d = res.json().data
    expect(d.total).toBe(19)
    expect(d.byOwner).toEqual([
      { label: ORG, count: 14, tql: `ownerName = "${ORG}"` },
      { label: CIRCLE, count: 5, tql: `ownerName = "${CIRCLE}"` },
    ])
    expect(d.byType).toEqual([
      { label: 'Host', count: 17, tql: 'typeName = "Host"' },
      { label: 'Address', count: 2, tql: 'typeName = "Address"' },
    ])
    expect(d.byActive).toEqual([
      { label: 'active', count: 18, tql: 'indicatorActive = true' },
      { label: 'inactive', count: 1, tql: 'indicatorActive = false' },
    ])
    expect(d.byRating.map((b: { label: string; count: number }) => [b.label, b.count])).toEqual([
      ['5', 3],
      ['4', 2],
      ['3', 7],
      ['2', 2],
      ['1', 2],
      ['0', 2],
      ['unrated', 1],
    ])
    const today = isoNow().slice(0, 10)
    expect(d.addedPerDay).toHaveLength(30)
    expect(d.addedPerDay.at(-1)).toEqual({ label: today, count: 19, tql: `dateAdded = "${today}"` })
    for (const bucket of [...d.byOwner, ...d.byType, ...d.byActive, ...d.byRating, d.addedPerDay.at(-1)])
      expect(await countOf(bucket.tql), bucket.tql).toBe(bucket.count)
    expect(d.newestIndicators).toHaveLength(10)
    expect(d.newestIndicators[0]).toMatchObject({ type: 'Host', summary: 'c4.example', ownerName: CIRCLE })
    expect(d.highestRatedIndicators.slice(0, 3).map((i: { rating: number }) => i.rating)).toEqual([5, 5, 5])
    expect(d.highestRatedIndicators.map((i: { rating: number }) => i.rating)).toEqual(
      [...d.highestRatedIndicators.map((i: { rating: number }) => i.rating)].sort((a, b) => b - a),
    )
    expect(d.highestRatedSkipped).toEqual([])
    expect(d.newestGroups[0]).toMatchObject({ type: 'Campaign', name: 'Dashboard campaign', ownerName: ORG })
  })

  it("scopes every figure to the caller's owners", async () => {
    const d = (await call('GET', '/api/v3/dashboard', outsider)).json().data
    expect(d.total).toBe(14)
    expect(d.byOwner.map((b: { label: string }) => b.label)).toEqual([ORG])
    expect(d.newestIndicators.every((i: { ownerName: string }) => i.ownerName === ORG)).toBe(true)
  })

  it('shows a card for each pinned search, counted and bounded', async () => {
    const s = await save(member, { name: 'Rated three', tql: 'rating = 3', pinned: true })
    const d = (await call('GET', '/api/v3/dashboard', member)).json().data
    expect(d.countBound).toBe(10_000)
    expect(d.pinned).toContainEqual({
      id: s.id,
      name: 'Rated three',
      tql: 'rating = 3',
      kind: 'indicators',
      count: 7,
      more: false,
    })
    // The shared search the member pinned earlier is there too.
    expect(d.pinned.map((c: { name: string }) => c.name)).toContain('Circle rated')
  })

  it('keeps the per-day tally through a move to another day, another owner and a deletion', async () => {
    const day = (await call('GET', '/api/v3/dashboard', t.admin)).json().data.addedPerDay.at(-1).count
    const [row] = await t.store.db
      .selectFrom('indicator')
      .select(['id', 'owner_id'])
      .where('summary', '=', 'h0.example')
      .execute()
    await t.store.db
      .updateTable('indicator')
      .set({ date_added: '2020-01-01T00:00:00.000Z' })
      .where('id', '=', row!.id)
      .execute()
    expect((await call('GET', '/api/v3/dashboard', t.admin)).json().data.addedPerDay.at(-1).count).toBe(day - 1)
    const tally = () =>
      t.store.db
        .selectFrom('indicator_day_tally')
        .select((eb) => eb.fn.sum<number>('n').as('n'))
        .where('day', '=', '2020-01-01')
        .executeTakeFirst()
    expect(Number((await tally())?.n)).toBe(1)
    await t.request({ method: 'DELETE', url: `/api/v3/indicators/${row!.id}` })
    expect(Number((await tally())?.n ?? 0)).toBe(0)
  })
})

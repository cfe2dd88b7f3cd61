/**
 * /v3/indicators through HTTP: default fields per type, look-up by summary, every fields=
 * value, false positives and observations by PUT, nested writes that are all-or-nothing,
 * TQL lists, paging by `next`, bulk delete and bad input.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, ORG, PUBLIC_URL, type TestAccount, type TestApp } from '../../test/harness.js'

let t: TestApp
let readOnly: TestAccount

async function call(method: string, url: string, payload?: unknown, as?: TestAccount) {
  const res = await t.request({ method: method as 'GET', url, payload: payload as Record<string, unknown>, as })
  return { status: res.statusCode, body: JSON.parse(res.body) }
}
const tql = (text: string) => encodeURIComponent(text)

beforeAll(async () => {
  t = await createTestApp()
  readOnly = await t.createAccount({ role: 'Read Only User' })
})
afterAll(async () => {
  await t.close()
})

describe('/v3/indicators', () => {
  it('creates a Host and answers the default fields', async () => {
    const res = await call('POST', '/api/v3/indicators', {
      type: 'Host',
      hostName: 'Evil.Example',
      rating: 3,
      confidence: 60,
      dnsActive: true,
    })
    expect(res.status).toBe(201)
    expect(res.body.message).toBe('Created')
    const d = res.body.data
    expect(d).toMatchObject({
      ownerName: ORG,
      type: 'Host',
      hostName: 'evil.example',
      summary: 'evil.example',
      rating: 3,
      confidence: 60,
      dnsActive: true,
      whoisActive: false,
      privateFlag: false,
      active: true,
      activeLocked: false,
      webLink: `${PUBLIC_URL}/#/details/indicators/${d.id}/overview`,
    })
    expect(d.legacyLink).toContain('/auth/indicators/details/host.xhtml?host=evil.example')
    expect(d.dateAdded).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    expect(typeof d.ownerId).toBe('number')
  })

  it("reads one by id and by summary (URL-encoded URLs too), in the caller's Organization", async () => {
    const url = 'http://bad.example/path?q=1'
    const id = (await call('POST', '/api/v3/indicators', { type: 'URL', text: url })).body.data.id
    expect((await call('GET', `/api/v3/indicators/${id}`)).body.data.text).toBe(url)
    expect((await call('GET', `/api/v3/indicators/${encodeURIComponent(url)}`)).body.data.id).toBe(id)
    expect((await call('GET', '/api/v3/indicators/evil.example')).body.data.type).toBe('Host')
    expect((await call('GET', '/api/v3/indicators/nowhere.example')).status).toBe(404)
    expect((await call('GET', '/api/v3/indicators/999999')).status).toBe(404)
  })

  it('names custom value fields by their labels, or value1..3 with genericCustomIndicatorValues', async () => {
    const created = await call('POST', '/api/v3/indicators', {
      type: 'Registry Key',
      'Key Name': 'HKLM\\Run',
      'Value Name': 'x',
      'Value Type': 'REG_SZ',
    })
    expect(created.body.data).toMatchObject({ 'Key Name': 'HKLM\\Run', 'Value Name': 'x', 'Value Type': 'REG_SZ' })
    const generic = await call('GET', `/api/v3/indicators/${created.body.data.id}?fields=genericCustomIndicatorValues`)
    expect(generic.body.data).toMatchObject({ value1: 'HKLM\\Run', value2: 'x', value3: 'REG_SZ' })
    expect(generic.body.data['Key Name']).toBeUndefined()
    const file = await call('POST', '/api/v3/indicators', {
      type: 'File',
      md5: 'a'.repeat(32),
      sha256: 'b'.repeat(64),
      size: 10,
    })
    expect(file.body.data).toMatchObject({ md5: 'A'.repeat(32), sha256: 'B'.repeat(64), size: 10 })
  })

  it('accepts every fields value the platform lists and answers something for each', async () => {
    const id = (
      await call('POST', '/api/v3/indicators', { type: 'Address', ip: '10.1.2.3', firstSeen: '2024-01-01T00:00:00Z' })
    ).body.data.id
    const names = [
      'associatedArtifacts',
      'associatedCases',
      'associatedGroups',
      'associatedIndicators',
      'associationName',
      'attributes',
      'customAssociations',
      'dnsResolution',
      'enrichment',
      'externalDates',
      'falsePositives',
      'fileActions',
      'fileOccurrences',
      'genericCustomIndicatorValues',
      'geoLocation',
      'investigationLinks',
      'observations',
      'securityLabels',
      'sightings',
      'tags',
      'threatAssess',
      'trackedUsers',
      'whoIs',
    ]
    const res = await call('GET', `/api/v3/indicators/${id}?${names.map((n) => `fields=${n}`).join('&')}`)
    expect(res.status).toBe(200)
    const d = res.body.data
    for (const list of [
      'associatedGroups',
      'attributes',
      'tags',
      'enrichment',
      'investigationLinks',
      'fileOccurrences',
      'dnsResolution',
    ]) {
      expect(d[list]).toEqual({ data: [] })
    }
    expect(d).toMatchObject({
      observations: 0,
      falsePositives: 0,
      falsePositiveReportedByUser: false,
      firstSeen: '2024-01-01T00:00:00Z',
    })
    expect(d.whoIs).toBeUndefined()
    const options = await call('OPTIONS', '/api/v3/indicators/fields')
    expect(options.body.data.map((o: { name: string }) => o.name)).toEqual(expect.arrayContaining(names))
  })

  it('records a false positive and observations through PUT, shown in trackedUsers', async () => {
    const id = (await call('POST', '/api/v3/indicators', { type: 'EmailAddress', address: 'fp@example.com' })).body.data
      .id
    const fp = await call('PUT', `/api/v3/indicators/${id}?fields=falsePositives`, { falsePositiveFlag: true })
    expect(fp.body).toMatchObject({
      message: 'Updated',
      data: { falsePositives: 1, falsePositiveReportedByUser: true },
    })
    const seen = await call('PUT', `/api/v3/indicators/${id}?fields=observations`, { observations: 4 })
    expect(seen.body.data.observations).toBe(4)
    const tracked = (await call('GET', `/api/v3/indicators/${id}?fields=trackedUsers`)).body.data.trackedUsers
    expect(tracked[t.admin.userName]).toMatchObject({ observations: 4, falsePositives: 1 })
    expect((await call('PUT', `/api/v3/indicators/${id}`, { observations: -1 })).status).toBe(400)
  })

  it('updates only the fields sent and refuses a changed value', async () => {
    const id = (
      await call('POST', '/api/v3/indicators', {
        type: 'Host',
        hostName: 'upd.example',
        rating: 1,
        description: 'keep',
      })
    ).body.data.id
    const res = await call('PUT', `/api/v3/indicators/${id}`, { rating: 4 })
    expect(res.body.data).toMatchObject({ rating: 4, description: 'keep' })
    expect((await call('PUT', `/api/v3/indicators/${id}`, { hostName: 'other.example' })).status).toBe(400)
  })

  it('nests tags, attributes, new and existing Groups and Indicators, then removes by mode delete', async () => {
    const groupId = (await call('POST', '/api/v3/groups', { type: 'Adversary', name: 'Existing' })).body.data.id
    const existing = (await call('POST', '/api/v3/indicators', { type: 'Address', ip: '10.9.9.9' })).body.data.id
    const res = await call(
      'POST',
      '/api/v3/indicators?fields=tags&fields=attributes&fields=associatedGroups&fields=associatedIndicators',
      {
        type: 'Host',
        hostName: 'nested.example',
        tags: { data: [{ name: 'apt' }] },
        attributes: { data: [{ type: 'Description', value: 'nested', default: true }] },
        associatedGroups: {
          data: [{ id: groupId }, { type: 'Incident', name: 'New one', eventDate: '2024-02-02T00:00:00Z' }],
        },
        associatedIndicators: {
          data: [
            { type: 'Address', ip: '10.9.9.9' },
            { type: 'Host', hostName: 'brand-new.example' },
          ],
        },
      },
    )
    expect(res.status).toBe(201)
    const d = res.body.data
    expect(d.tags.data.map((x: { name: string }) => x.name)).toEqual(['apt'])
    expect(d.attributes.data[0]).toMatchObject({ type: 'Description', value: 'nested' })
    expect(d.associatedGroups.data.map((g: { name: string }) => g.name).sort()).toEqual(['Existing', 'New one'])
    const partners = d.associatedIndicators.data.map((i: { summary: string; id: number }) => i.summary).sort()
    expect(partners).toEqual(['10.9.9.9', 'brand-new.example'])
    expect(d.associatedIndicators.data.find((i: { summary: string }) => i.summary === '10.9.9.9').id).toBe(existing)
    const removed = await call('PUT', `/api/v3/indicators/${d.id}?fields=associatedGroups&fields=tags`, {
      associatedGroups: { data: [{ id: groupId }], mode: 'delete' },
      tags: { data: [{ name: 'other' }], mode: 'replace' },
    })
    expect(removed.body.data.associatedGroups.data.map((g: { name: string }) => g.name)).toEqual(['New one'])
    expect(removed.body.data.tags.data.map((x: { name: string }) => x.name)).toEqual(['other'])
  })

  it('writes nothing when the third nested member is invalid', async () => {
    const before = (await call('GET', `/api/v3/groups?count=true&tql=${tql('name startswith "Atomic"')}`)).body.count
    const res = await call('POST', '/api/v3/indicators', {
      type: 'Host',
      hostName: 'atomic.example',
      associatedGroups: {
        data: [
          { type: 'Adversary', name: 'Atomic A' },
          { type: 'Adversary', name: 'Atomic B' },
          { type: 'Incident', name: 'Atomic C' },
        ],
      },
    })
    expect(res.status).toBe(400)
    expect(res.body.message).toMatch(/associatedGroups: eventDate is required/)
    expect((await call('GET', '/api/v3/indicators/atomic.example')).status).toBe(404)
    expect((await call('GET', `/api/v3/groups?count=true&tql=${tql('name startswith "Atomic"')}`)).body.count).toBe(
      before,
    )
  })

  it('lists with TQL, sorting and count; bad TQL, fields and sorting are 400', async () => {
    for (const ip of ['10.50.0.1', '10.50.0.2', '10.50.0.3'])
      await call('POST', '/api/v3/indicators', { type: 'Address', ip, rating: 5 })
    const res = await call(
      'GET',
      `/api/v3/indicators?count=true&sorting=summary%20desc&tql=${tql('typeName in ("Address") and summary startswith "10.50." and rating >= 3')}`,
    )
    expect(res.body.count).toBe(3)
    expect(res.body.data.map((i: { summary: string }) => i.summary)).toEqual(['10.50.0.3', '10.50.0.2', '10.50.0.1'])
    const bad = await call('GET', `/api/v3/indicators?tql=${tql('rating >== 3')}`)
    expect(bad.status).toBe(400)
    expect(bad.body.message).toMatch(/column \d+/)
    expect((await call('GET', '/api/v3/indicators?fields=nonsense')).status).toBe(400)
    expect((await call('GET', '/api/v3/indicators?sorting=tag%20asc')).status).toBe(400)
    expect((await call('GET', '/api/v3/indicators?owner=Nowhere')).status).toBe(403)
  })

  it('walks every page through next and sees each Indicator exactly once', async () => {
    for (let i = 0; i < 7; i++) await call('POST', '/api/v3/indicators', { type: 'Mutex', Mutex: `walk-${i}` })
    const seen: string[] = []
    let url: string | undefined =
      `/api/v3/indicators?resultLimit=3&tql=${tql('typeName = "Mutex" and summary startswith "walk-"')}`
    let pages = 0
    while (url) {
      const page = await call('GET', url.replace(PUBLIC_URL, ''))
      seen.push(...page.body.data.map((i: { summary: string }) => i.summary))
      url = page.body.next
      pages++
    }
    expect(pages).toBe(3)
    expect(seen.sort()).toEqual(Array.from({ length: 7 }, (_, i) => `walk-${i}`))
  })

  it('puts a keyset cursor in next, ignores it once the query changes, and pages sorted lists by offset', async () => {
    const base = `/api/v3/indicators?resultLimit=2&tql=${tql('typeName = "Mutex" and summary startswith "walk-"')}`
    const first = await call('GET', base)
    expect(first.body.next).toMatch(/resultStart=2.*&cursor=/)
    const second = await call('GET', first.body.next.replace(PUBLIC_URL, ''))
    const byOffset = await call('GET', `${base}&resultStart=2`)
    expect(second.body.data).toEqual(byOffset.body.data)
    expect(second.body.prev).not.toMatch(/cursor=/)
    const stale = first.body.next.replace(PUBLIC_URL, '').replace(/tql=[^&]+/, `tql=${tql('typeName = "Mutex"')}`)
    const staleIds = (await call('GET', stale)).body.data.map((i: { id: number }) => i.id)
    const offsetIds = (
      await call('GET', `/api/v3/indicators?resultLimit=2&resultStart=2&tql=${tql('typeName = "Mutex"')}`)
    ).body.data.map((i: { id: number }) => i.id)
    expect(staleIds).toEqual(offsetIds)
    const sorted = await call('GET', `${base}&sorting=summary%20desc`)
    expect(sorted.body.next).not.toMatch(/cursor=/)
    expect(
      (await call('GET', sorted.body.next.replace(PUBLIC_URL, ''))).body.data.map(
        (i: { summary: string }) => i.summary,
      ),
    ).toEqual(['walk-4', 'walk-3'])
  })

  it('refuses writes from a read-only user (401) and answers OPTIONS', async () => {
    expect((await call('POST', '/api/v3/indicators', { type: 'Host', hostName: 'ro.example' }, readOnly)).status).toBe(
      401,
    )
    expect((await call('GET', '/api/v3/indicators', undefined, readOnly)).status).toBe(200)
    const descriptor = await call('OPTIONS', '/api/v3/indicators')
    expect(descriptor.body.type).toMatchObject({ required: true })
    expect(
      (await call('OPTIONS', '/api/v3/indicators/tql')).body.data.map((k: { keyword: string }) => k.keyword),
    ).toContain('hasGroup')
  })

  it('deletes one, lists it as deleted, and bulk deletes by TQL only when enabled', async () => {
    const id = (await call('POST', '/api/v3/indicators', { type: 'Host', hostName: 'gone.example' })).body.data.id
    expect((await call('DELETE', `/api/v3/indicators/${id}`)).body.message).toBe('Deleted')
    expect((await call('GET', `/api/v3/indicators/${id}`)).status).toBe(404)
    const deleted = await call('GET', '/api/v3/indicators/deleted')
    expect(deleted.body.data).toEqual(
      expect.arrayContaining([expect.objectContaining({ summary: 'gone.example', type: 'Host', ownerName: ORG })]),
    )
    for (const m of ['bulk-1', 'bulk-2']) await call('POST', '/api/v3/indicators', { type: 'Mutex', Mutex: m })
    const url = `/api/v3/indicators?tql=${tql('summary startswith "bulk-"')}`
    expect((await call('DELETE', url)).body.message).toMatch(/bulkDeleteEnabled/)
    await t.services.settings.set('bulkDeleteEnabled', 'true')
    try {
      expect((await call('DELETE', url)).body).toEqual({ count: 2, message: 'Deleted', status: 'Success' })
    } finally {
      await t.services.settings.set('bulkDeleteEnabled', 'false')
    }
    expect((await call('GET', `${url}&count=true`)).body.count).toBe(0)
  })
})

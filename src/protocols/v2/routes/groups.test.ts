import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setMembership } from '../../../domain/access/accounts.js'
import { type TestAccount, type TestApp, createTestApp } from '../../../test/harness.js'

let t: TestApp
let readOnly: TestAccount
beforeAll(async () => {
  t = await createTestApp()
  readOnly = await t.createAccount({ role: 'Read Only User' })
  await t.createOwner('Other Org', 'Organization')
})
afterAll(async () => {
  await t.close()
})

const post = (url: string, payload: unknown) =>
  t.request({ method: 'POST', url: `/api/v2${url}`, payload: payload as object })
const get = (url: string, headers?: Record<string, string>) =>
  t.request({ method: 'GET', url: `/api/v2${url}`, headers })

/** A minimal valid body for each of the 16 types, and the entity v2 names it by. */
const TYPES: [branch: string, entity: string, body: Record<string, unknown>][] = [
  ['adversaries', 'adversary', { name: 'Bad Guy' }],
  ['attackPatterns', 'attackPattern', { name: 'Phishing' }],
  ['campaigns', 'campaign', { name: 'Op Aurora', firstSeen: '2024-01-02T00:00:00Z' }],
  ['coursesOfAction', 'courseOfAction', { name: 'Block it' }],
  ['documents', 'document', { name: 'Report.pdf', fileName: 'report.pdf' }],
  ['emails', 'email', { name: 'Phish', subject: 'Invoice', header: 'From: a@b.c', body: 'Pay now' }],
  ['events', 'event', { name: 'Login spike', eventDate: '2024-03-01T10:00:00-04:00' }],
  ['incidents', 'incident', { name: 'Breach', eventDate: '2024-03-01T00:00:00Z', status: 'New' }],
  ['intrusionSets', 'intrusionSet', { name: 'APT99' }],
  ['malware', 'malware', { name: 'Emotet' }],
  ['reports', 'report', { name: 'Quarterly', fileName: 'q.pdf' }],
  [
    'signatures',
    'signature',
    { name: 'Rule', fileName: 'rule.yar', fileType: 'YARA', fileText: 'rule x { condition: true }' },
  ],
  ['tactics', 'tactic', { name: 'Initial Access' }],
  ['threats', 'threat', { name: 'Ransomware wave' }],
  ['tools', 'tool', { name: 'Mimikatz' }],
  ['vulnerabilities', 'vulnerability', { name: 'CVE-2024-0001' }],
]

describe('POST and GET /v2/groups/{type}', () => {
  for (const [branch, entity, body] of TYPES) {
    it(`creates and reads back ${branch}`, async () => {
      const created = await post(`/groups/${branch}`, body)
      expect(created.statusCode).toBe(201)
      const group = created.json().data[entity]
      expect(group).toMatchObject({
        name: body.name,
        ownerName: 'Test Organization',
        owner: { name: 'Test Organization', type: 'Organization' },
      })
      expect(group.webLink).toBe(`https://bulwark.test/auth/${entity}/${entity}.xhtml?${entity}=${group.id}`)
      const read = await get(`/groups/${branch}/${group.id}`)
      expect(read.statusCode).toBe(200)
      expect(read.json().data[entity]).toEqual(group)
    })

    for (const field of Object.keys(body).filter((f) => !['status', 'firstSeen'].includes(f))) {
      it(`refuses ${branch} without ${field}`, async () => {
        const { [field]: _omitted, ...rest } = body
        const res = await post(`/groups/${branch}`, rest)
        expect(res.statusCode).toBe(400)
        expect(res.json()).toEqual({ status: 'Error', message: expect.stringContaining(`${field} is required`) })
      })
    }
  }

  it('shows type-specific fields', async () => {
    const incident = (
      await post('/groups/incidents', { name: 'I', eventDate: '2017-07-13T00:00:00-04:00', status: 'open' })
    ).json().data.incident
    expect(incident.eventDate).toBe('2017-07-13T04:00:00Z')
    expect(incident.status).toBeUndefined()
    const additional = (await get(`/groups/incidents/${incident.id}?includeAdditional=true`)).json().data.incident
    expect(additional).toMatchObject({ status: 'Open', xid: expect.stringMatching(/^[0-9a-f-]{36}$/) })
    const signature = (
      await post('/groups/signatures', {
        name: 'S',
        fileName: 's.rules',
        fileType: 'snort',
        fileText: 'alert tcp any any',
      })
    ).json().data.signature
    expect(signature).toMatchObject({ fileName: 's.rules', fileType: 'Snort' })
    const document = (await post('/groups/documents', { name: 'D', fileName: 'd.bin' })).json().data.document
    expect(document).toMatchObject({ fileName: 'd.bin', status: 'Awaiting Upload', malware: false })
  })

  it('refuses a value outside an enumeration, naming the allowed ones', async () => {
    const incident = await post('/groups/incidents', { name: 'I', eventDate: '2024-01-01', status: 'Pending' })
    expect(incident.statusCode).toBe(400)
    expect(incident.json().message).toMatch(
      /status 'Pending' is not valid for Incident Groups; use one of: New, Open, Stalled/,
    )
    const event = await post('/groups/events', { name: 'E', eventDate: '2024-01-01', status: 'Open' })
    expect(event.json().message).toMatch(/use one of: Needs Review, False Positive/)
    const signature = await post('/groups/signatures', { name: 'S', fileName: 'f', fileType: 'Word', fileText: 'x' })
    expect(signature.statusCode).toBe(400)
    expect(signature.json().message).toMatch(/fileType 'Word'.*YARA/)
    const document = await post('/groups/documents', { name: 'D', fileName: 'f', status: 'Done' })
    expect(document.statusCode).toBe(400)
  })

  it('refuses a date that is not ISO 8601 and a body that is not an object', async () => {
    const res = await post('/groups/events', { name: 'E', eventDate: 'yesterday' })
    expect(res.statusCode).toBe(400)
    expect(res.json().message).toBe("eventDate must be an ISO 8601 date, not 'yesterday'")
    const array = await post('/groups/threats', [{ name: 'x' }])
    expect(array.statusCode).toBe(400)
    expect(array.json().message).toBe('The body must be a JSON object')
  })

  it('accepts an XML body', async () => {
    const xml =
      '<Incident><Name>From XML</Name><EventDate>2024-05-01T00:00:00Z</EventDate><Status>Stalled</Status></Incident>'
    const res = await t.request({
      method: 'POST',
      url: '/api/v2/groups/incidents?includeAdditional=true',
      payload: xml,
      headers: { 'content-type': 'application/xml', accept: 'application/xml' },
    })
    expect(res.statusCode).toBe(201)
    expect(res.body).toContain('<Name>From XML</Name>')
    expect(res.body).toContain('<EventDate>2024-05-01T00:00:00Z</EventDate>')
    expect(res.body).toContain('<Status>Stalled</Status>')
  })

  it('keeps xid unique per owner', async () => {
    expect((await post('/groups/threats', { name: 'A', xid: 'fixed-xid-1' })).statusCode).toBe(201)
    const again = await post('/groups/threats', { name: 'B', xid: 'fixed-xid-1' })
    expect(again.statusCode).toBe(400)
    expect(again.json().message).toBe("A Group with xid 'fixed-xid-1' already exists in Test Organization")
  })

  it('answers 404 for an unknown type, an unknown id and a Group of another type', async () => {
    expect((await get('/groups/widgets')).statusCode).toBe(404)
    expect((await post('/groups/widgets', { name: 'x' })).json()).toEqual({
      status: 'Error',
      message: "Unknown Group type 'widgets'",
    })
    expect((await get('/groups/threats/999999')).statusCode).toBe(404)
    expect((await get('/groups/threats/abc')).statusCode).toBe(404)
    const threat = (await post('/groups/threats', { name: 'T' })).json().data.threat
    expect((await get(`/groups/incidents/${threat.id}`)).statusCode).toBe(404)
  })

  it('answers in XML when asked', async () => {
    const threat = (await post('/groups/threats', { name: 'X & Y' })).json().data.threat
    const res = await get(`/groups/threats/${threat.id}`, { accept: 'application/xml' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toMatch(/application\/xml/)
    expect(res.body).toContain('<threatResponse><Status>Success</Status>')
    expect(res.body).toContain('<Name>X &amp; Y</Name>')
    const list = await get('/groups/threats?resultLimit=1', { accept: 'application/xml' })
    expect(list.body).toMatch(
      /<threatsResponse><Status>Success<\/Status><Data xsi:type="threatListResponseData"[^>]*><ResultCount>\d+<\/ResultCount><Threat>/,
    )
  })
})

describe('PUT and DELETE /v2/groups/{type}/{id}', () => {
  it('updates the fields given and keeps the others', async () => {
    const event = (
      await post('/groups/events', { name: 'E', eventDate: '2024-01-01T00:00:00Z', status: 'Needs Review' })
    ).json().data.event
    const res = await t.request({
      method: 'PUT',
      url: `/api/v2/groups/events/${event.id}?includeAdditional=true`,
      payload: { status: 'Escalated' },
    })
    expect(res.statusCode).toBe(200)
    expect(res.json().data.event).toMatchObject({ name: 'E', eventDate: '2024-01-01T00:00:00Z', status: 'Escalated' })
  })

  it('requires name, fileName and fileType on every Signature update', async () => {
    const sig = (
      await post('/groups/signatures', { name: 'S', fileName: 'f.yar', fileType: 'YARA', fileText: 'rule' })
    ).json().data.signature
    const res = await t.request({
      method: 'PUT',
      url: `/api/v2/groups/signatures/${sig.id}`,
      payload: { name: 'S2', fileName: 'f.yar' },
    })
    expect(res.statusCode).toBe(400)
    expect(res.json().message).toBe('fileType is required to update a Signature')
    const ok = await t.request({
      method: 'PUT',
      url: `/api/v2/groups/signatures/${sig.id}`,
      payload: { name: 'S2', fileName: 'g.yar', fileType: 'YARA' },
    })
    expect(ok.json().data.signature).toMatchObject({ name: 'S2', fileName: 'g.yar' })
  })

  it('refuses an empty name on update', async () => {
    const threat = (await post('/groups/threats', { name: 'T' })).json().data.threat
    const res = await t.request({ method: 'PUT', url: `/api/v2/groups/threats/${threat.id}`, payload: { name: '' } })
    expect(res.statusCode).toBe(400)
    expect(res.json().message).toBe('name cannot be empty')
  })

  it('deletes a Group with its tags and attributes', async () => {
    const threat = (await post('/groups/threats', { name: 'Doomed' })).json().data.threat
    expect((await post(`/groups/threats/${threat.id}/tags/Gone`, {})).statusCode).toBe(200)
    const res = await t.request({ method: 'DELETE', url: `/api/v2/groups/threats/${threat.id}` })
    expect(res.json()).toEqual({ apiCalls: 1, resultCount: 0, status: 'Success' })
    expect((await get(`/groups/threats/${threat.id}`)).statusCode).toBe(404)
    const links = await t.store.db
      .selectFrom('item_tag')
      .selectAll()
      .where('item_kind', '=', 'group')
      .where('item_id', '=', threat.id)
      .execute()
    expect(links).toEqual([])
  })
})

describe('permissions', () => {
  it('lets a read-only role read but not write (401)', async () => {
    const threat = (await post('/groups/threats', { name: 'Readable' })).json().data.threat
    expect(
      (await t.request({ method: 'GET', url: `/api/v2/groups/threats/${threat.id}`, as: readOnly })).statusCode,
    ).toBe(200)
    const create = await t.request({
      method: 'POST',
      url: '/api/v2/groups/threats',
      payload: { name: 'No' },
      as: readOnly,
    })
    expect(create.statusCode).toBe(401)
    expect(create.json().message).toMatch(/permission to create data in Test Organization \(role: Read Only User\)/)
    const update = await t.request({
      method: 'PUT',
      url: `/api/v2/groups/threats/${threat.id}`,
      payload: { name: 'No' },
      as: readOnly,
    })
    expect(update.statusCode).toBe(401)
    expect(
      (await t.request({ method: 'DELETE', url: `/api/v2/groups/threats/${threat.id}`, as: readOnly })).statusCode,
    ).toBe(401)
  })

  it('answers 403 for an owner the caller cannot access', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/api/v2/groups/threats?owner=Other%20Org',
      payload: { name: 'x' },
    })
    expect(res.statusCode).toBe(403)
    expect((await get('/groups?owner=Nowhere')).statusCode).toBe(403)
  })
})

describe('GET /v2/groups lists and filters', () => {
  let ids: number[]
  beforeAll(async () => {
    const owner = 'Filter Community'
    await t.createOwner(owner, 'Community')
    await setMembership(t.store.db, t.admin.userName, owner, 'Editor', new Date().toISOString())
    ids = []
    for (const body of [
      { branch: 'campaigns', body: { name: 'Alpha One', firstSeen: '2020-01-01T00:00:00Z' } },
      { branch: 'campaigns', body: { name: 'Alpha Two', firstSeen: '2023-01-01T00:00:00Z' } },
      { branch: 'incidents', body: { name: 'Beta', eventDate: '2022-06-01T00:00:00Z' } },
      { branch: 'threats', body: { name: 'alpha lower' } },
    ])
      ids.push(
        (await post(`/groups/${body.branch}?owner=${encodeURIComponent(owner)}`, body.body)).json().data[
          body.branch === 'campaigns' ? 'campaign' : body.branch === 'incidents' ? 'incident' : 'threat'
        ].id,
      )
  })
  const list = (qs: string) => get(`/groups${qs}${qs.includes('?') ? '&' : '?'}owner=Filter%20Community`)

  it('lists every type under the entity group, with resultCount on the first page only', async () => {
    const all = (await list('')).json().data
    expect(all.resultCount).toBe(4)
    expect(all.group.map((g: { id: number }) => g.id)).toEqual(ids)
    const second = (await list('?resultStart=1&resultLimit=2')).json().data
    expect(second.resultCount).toBeUndefined()
    expect(second.group.map((g: { id: number }) => g.id)).toEqual(ids.slice(1, 3))
  })

  it('filters by name (= and ^, case-sensitive), dates and type-specific fields', async () => {
    const names = async (qs: string, entity = 'group') =>
      (await list(qs)).json().data[entity].map((g: { name: string }) => g.name)
    expect(await names('?filters=name%5EAlpha')).toEqual(['Alpha One', 'Alpha Two'])
    expect(await names('?filters=name%3DBeta')).toEqual(['Beta'])
    expect(await names('/campaigns?filters=firstSeen%3E2021-01-01', 'campaign')).toEqual(['Alpha Two'])
    expect(await names('/incidents?filters=eventDate%3C2023-01-01', 'incident')).toEqual(['Beta'])
    expect(await names('?filters=name%3DBeta,name%5EAlpha%20T&orParams=true')).toEqual(['Alpha Two', 'Beta'])
    expect(await names('?filters=dateAdded%3E2000-01-01,name%3DBeta')).toEqual(['Beta'])
  })

  it('refuses unknown filters, wrong operators and filters of another type', async () => {
    expect((await list('?filters=color%3Dred')).json().message).toMatch(/Unknown filter 'color' for Groups/)
    expect((await list('?filters=name%3Ex')).json().message).toBe('Filter name takes the operators = ^, not >')
    expect((await list('/threats?filters=firstSeen%3E2020-01-01')).json().message).toBe(
      'Filter firstSeen applies to campaigns only',
    )
    expect((await list('?filters=dateAdded%3Esoon')).statusCode).toBe(400)
    expect((await list('?filters=nonsense')).statusCode).toBe(400)
  })

  it('adds tags and attributes when asked', async () => {
    await post(`/groups/threats/${ids[3]}/tags/Red?owner=Filter%20Community`, {})
    const threat = (await list('/threats?includeTags=true&includes=attributes')).json().data.threat[0]
    expect(threat.tag).toEqual([{ name: 'Red', webLink: expect.stringContaining('tag=Red') }])
    expect(threat.attribute).toEqual([])
  })
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, createTestApp } from '../../../test/harness.js'
import { createTestGroup } from '../../../test/factories.js'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
  for (const [branch, body] of [
    ['addresses', { ip: '192.168.0.1' }],
    ['cidrBlocks', { Block: '192.168.0.0/24' }],
    ['hosts', { hostName: 'c2.example' }],
    ['files', { md5: 'e'.repeat(32) }],
    ['mutexes', { Mutex: 'Global\\m1' }],
  ] as const) {
    const res = await t.request({ method: 'POST', url: `/api/v2/indicators/${branch}`, payload: body })
    expect(res.statusCode).toBe(201)
  }
})
afterAll(async () => {
  await t.close()
})

const api = (
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  payload?: object,
  as?: Parameters<TestApp['request']>[0]['as'],
) => t.request({ method, url: `/api/v2${url}`, payload, as })
const ADDRESS = '/indicators/addresses/192.168.0.1'
const FILE = `/indicators/files/${'e'.repeat(32)}`

describe('observations and false positives', () => {
  it('records observations and reports the totals', async () => {
    expect((await api('POST', `${ADDRESS}/observations`, { count: 3 })).json()).toEqual({
      apiCalls: 1,
      resultCount: 1,
      status: 'Success',
    })
    await api('POST', `${ADDRESS}/observations`, { count: 2, dateObserved: '2020-01-02T03:04:05Z' })
    const list = (await api('GET', `${ADDRESS}/observations`)).json().data
    expect(list.resultCount).toBe(2)
    expect(list.observation[1]).toEqual({ count: 2, dateObserved: '2020-01-02T03:04:05Z' })
    const counts = (await api('GET', `${ADDRESS}/observationCount`)).json().data.observationCount
    expect(counts).toMatchObject({ count: 5, yourCount: 5 })
    const extra = (await api('GET', `${ADDRESS}?includeAdditional=true`)).json().data.address
    expect(extra.observationCount).toBe(5)
  })

  it('refuses a count that is not a positive whole number', async () => {
    const res = await api('POST', `${ADDRESS}/observations`, { count: -1 })
    expect(res.statusCode).toBe(400)
    expect(res.json().message).toMatch(/count must be a whole number/)
  })

  it('lists the most observed Indicators since a date', async () => {
    const res = (await api('GET', '/indicators/observed?dateObserved=2000-01-01')).json().data
    expect(res.indicator[0]).toMatchObject({
      summary: '192.168.0.1',
      observationCount: 5,
      userObservedList: [{ userName: t.admin.userName, count: 5 }],
    })
  })

  it('counts one false positive per user and day', async () => {
    const first = (await api('POST', `${ADDRESS}/falsePositive`)).json().data.falsePositive
    expect(first.count).toBe(1)
    const again = (await api('POST', `${ADDRESS}/falsePositive`)).json().data.falsePositive
    expect(again.count).toBe(1)
    expect(typeof again.lastReported).toBe('string')
    expect((await api('GET', '/indicators?filters=falsePositive%3D1')).json().data.indicator[0].summary).toBe(
      '192.168.0.1',
    )
  })

  it('refuses observations from a read-only role with 401', async () => {
    const reader = await t.createAccount({ role: 'Read Only User' })
    expect((await api('POST', `${ADDRESS}/falsePositive`, undefined, reader)).statusCode).toBe(401)
  })
})

describe('owners of an Indicator', () => {
  it('lists the owners the caller can read that hold the same Indicator', async () => {
    await t.createOwner('Sharing Community', 'Community')
    const member = await t.createAccount({ role: 'Standard User', memberships: { 'Sharing Community': 'Editor' } })
    await t.request({
      method: 'POST',
      url: '/api/v2/indicators/addresses?owner=Sharing%20Community',
      payload: { ip: '192.168.0.1' },
      as: member,
    })
    const res = (await api('GET', `${ADDRESS}/owners`, undefined, member)).json().data
    expect(res.owner.map((o: { name: string }) => o.name).sort()).toEqual(['Sharing Community', 'Test Organization'])
  })
})

describe('File occurrences and File actions', () => {
  it('adds, lists, updates and deletes occurrences', async () => {
    const created = await api('POST', `${FILE}/fileOccurrences`, {
      fileName: 'win.dll',
      path: 'C:\\Windows',
      date: '2017-07-13',
    })
    expect(created.statusCode).toBe(201)
    const occurrence = created.json().data.fileOccurrence
    expect(occurrence).toMatchObject({ fileName: 'win.dll', path: 'C:\\Windows', date: '2017-07-13T00:00:00Z' })
    const updated = await api('PUT', `${FILE}/fileOccurrences/${occurrence.id}`, { fileName: 'new.dll' })
    expect(updated.json().data.fileOccurrence.fileName).toBe('new.dll')
    expect((await api('GET', `${FILE}/fileOccurrences`)).json().data.fileOccurrence).toHaveLength(1)
    await api('DELETE', `${FILE}/fileOccurrences/${occurrence.id}`)
    expect((await api('GET', `${FILE}/fileOccurrences/${occurrence.id}`)).statusCode).toBe(404)
    expect((await api('POST', `${FILE}/fileOccurrences`, {})).statusCode).toBe(400)
    expect((await api('GET', `${ADDRESS}/fileOccurrences`)).statusCode).toBe(404)
  })

  it('relates Indicators to a File by an action and lists them', async () => {
    const add = await api('POST', `${FILE}/actions/mutex/indicators/mutexes/${encodeURIComponent('Global\\m1')}`)
    expect(add.statusCode).toBe(200)
    const list = (await api('GET', `${FILE}/actions/mutex/indicators`)).json().data
    expect(list).toMatchObject({ resultCount: 1, indicator: [{ type: 'Mutex', summary: 'Global\\m1' }] })
    const wrong = await api('POST', `${FILE}/actions/mutex/indicators/hosts/c2.example`)
    expect(wrong.statusCode).toBe(400)
    expect((await api('GET', `${FILE}/actions/teleport/indicators`)).statusCode).toBe(404)
  })
})

describe('typed Indicator-to-Indicator associations', () => {
  const cidr = `/indicators/cidrBlocks/${encodeURIComponent('192.168.0.0/24')}`

  it('associates a CIDR block with an Address either way round', async () => {
    const res = await api(
      'POST',
      `${ADDRESS}/associations/cidrToAddress/indicators/cidrBlocks/${encodeURIComponent('192.168.0.0/24')}`,
    )
    expect(res.statusCode).toBe(200)
    const fromCidr = (await api('GET', `${cidr}/associations/cidrToAddress/indicators`)).json().data
    expect(fromCidr).toMatchObject({ resultCount: 1, indicator: [{ summary: '192.168.0.1' }] })
    const typed = (await api('GET', `${cidr}/associations/cidrToAddress/indicators/addresses`)).json().data
    expect(typed.address[0].ip).toBe('192.168.0.1')
  })

  it('refuses a pair of types the association does not link, and unknown association types', async () => {
    const res = await api('POST', `${ADDRESS}/associations/cidrToAddress/indicators/hosts/c2.example`)
    expect(res.statusCode).toBe(400)
    expect(res.json().message).toMatch(/cannot be applied to the indicator types/)
    expect((await api('GET', `${ADDRESS}/associations/noSuchThing/indicators`)).statusCode).toBe(404)
  })

  it('removes the association', async () => {
    await api(
      'DELETE',
      `${ADDRESS}/associations/cidrToAddress/indicators/cidrBlocks/${encodeURIComponent('192.168.0.0/24')}`,
    )
    expect((await api('GET', `${cidr}/associations/cidrToAddress/indicators`)).json().data.resultCount).toBe(0)
  })
})

describe('metadata and Group associations', () => {
  it('tags an Indicator and shows tags and attributes with the includes', async () => {
    expect((await api('POST', `${ADDRESS}/tags/APT%2028`)).statusCode).toBe(200)
    await api('POST', `${ADDRESS}/attributes`, { type: 'Description', value: 'router', displayed: true })
    const res = (await api('GET', `/indicators/addresses?includeTags=true&includeAttributes=true`)).json().data
      .address[0]
    expect(res.tag).toEqual([{ name: 'APT 28', webLink: expect.stringContaining('tag=APT%2028') }])
    expect(res.attribute[0]).toMatchObject({ type: 'Description', value: 'router', displayed: true })
  })

  it('associates a Group and lists it, and lists Indicators sharing that Group', async () => {
    const id = await createTestGroup(t, { type: 'Incident', name: 'Op Dawn' })
    expect((await api('POST', `${ADDRESS}/groups/incidents/${id}`)).statusCode).toBe(200)
    await api('POST', `/indicators/hosts/c2.example/groups/incidents/${id}`)
    const groups = (await api('GET', `${ADDRESS}/groups`)).json().data
    expect(groups).toMatchObject({ resultCount: 1, group: [{ id, name: 'Op Dawn', type: 'Incident' }] })
    const sharing = (await api('GET', `${ADDRESS}/indicators`)).json().data
    expect(sharing).toMatchObject({ resultCount: 1, indicator: [{ summary: 'c2.example' }] })
    await api('DELETE', `${ADDRESS}/groups/incidents/${id}`)
    expect((await api('GET', `${ADDRESS}/groups`)).json().data.resultCount).toBe(0)
  })
})

describe('bulk reports', () => {
  it('returns the status without an envelope, and JSON and CSV reports', async () => {
    const status = (await api('GET', '/indicators/bulk')).json()
    expect(status.bulkStatus).toMatchObject({
      name: 'Test Organization',
      csvEnabled: true,
      jsonEnabled: true,
      status: 'Complete',
    })
    const json = (await api('GET', '/indicators/bulk/json')).json()
    const address = json.indicator.find((i: { summary: string }) => i.summary === '192.168.0.1')
    expect(address).toMatchObject({
      ip: '192.168.0.1',
      tag: [{ name: 'APT 28' }],
      attribute: [{ type: 'Description' }],
    })
    const csv = await api('GET', '/indicators/bulk/csv')
    expect(csv.headers['content-type']).toMatch(/text\/csv/)
    expect(csv.body.split('\r\n')[0]).toBe('Type,Value,Rating,Confidence')
    expect(csv.body).toContain('Address,192.168.0.1,null,null')
    expect((await api('GET', '/indicators/bulk/pdf')).statusCode).toBe(404)
  })
})

/**
 * Gaps against the spec and the platform's documentation found by running the platform's own
 * SDKs against Bulwark (issue #8): each case as the platform documents it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, createTestApp } from '../../test/harness.js'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(async () => {
  await t.close()
})

const v2 = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
  t.request({ method, url: `/api/v2${url}`, payload })
const ok = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) => {
  const res = await v2(method, url, payload)
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`)
  return res.json()
}

describe('CIDR blocks', () => {
  it('refuse an impossible prefix with a 400 on v2, v3 and batch-free paths alike', async () => {
    for (const block of ['10.0.0.0/99', '10.0.0.0/33', '2001:db8::/129', '256.0.0.0/8']) {
      const res = await v2('POST', '/indicators/cidrBlocks', { Block: block })
      expect([block, res.statusCode, res.json().status]).toEqual([block, 400, 'Error'])
      const v3 = await t.request({ method: 'POST', url: '/api/v3/indicators', payload: { type: 'CIDR', Block: block } })
      expect([block, v3.statusCode]).toEqual([block, 400])
    }
    expect((await ok('GET', '/indicators/cidrBlocks')).data.resultCount).toBe(0)
    expect((await v2('POST', '/indicators/cidrBlocks', { Block: '10.0.0.0/32' })).statusCode).toBe(201)
    expect((await v2('POST', '/indicators/cidrBlocks', { Block: '2001:db8::/128' })).statusCode).toBe(201)
  })
})

describe('v2 boolean filters with false', () => {
  it('select the Tasks that are not overdue, escalated or reminded, with or without a due date', async () => {
    const past = (await ok('POST', '/tasks', { name: 'Late', dueDate: '2020-01-01T00:00:00Z' })).data.task.id
    const future = (await ok('POST', '/tasks', { name: 'Soon', dueDate: '2999-01-01T00:00:00Z' })).data.task.id
    const undated = (await ok('POST', '/tasks', { name: 'Whenever' })).data.task.id
    const done = (await ok('POST', '/tasks', { name: 'Done', dueDate: '2020-01-01T00:00:00Z', status: 'Completed' }))
      .data.task.id
    const flagged = (await ok('POST', '/tasks', { name: 'Flagged', escalated: true, reminded: true })).data.task.id
    const ids = async (filters: string) =>
      ((await ok('GET', `/tasks?filters=${encodeURIComponent(filters)}`)).data.task as Array<{ id: number }>).map(
        (x) => x.id,
      )
    expect(await ids('overdue=true')).toEqual([past])
    expect(await ids('overdue=false')).toEqual([future, undated, done, flagged])
    expect(await ids('escalated=false')).toEqual([past, future, undated, done])
    expect(await ids('reminded=false')).toEqual([past, future, undated, done])
    expect(await ids('escalated=true')).toEqual([flagged])
  })

  it('select the Indicators whose flags are false', async () => {
    await ok('POST', '/indicators/hosts', { hostName: 'quiet.example' })
    await ok('POST', '/indicators/hosts', { hostName: 'loud.example', dnsActive: true, whoisActive: true })
    await ok('POST', '/indicators/hosts', { hostName: 'retired.example' })
    await ok('PUT', '/indicators/hosts/retired.example', { active: false })
    const hosts = async (filters: string) =>
      (
        (await ok('GET', `/indicators/hosts?filters=${encodeURIComponent(filters)}`)).data.host as Array<{
          summary: string
        }>
      )
        .map((x) => x.summary)
        .sort()
    expect(await hosts('dnsActive=false')).toEqual(['quiet.example'])
    expect(await hosts('whoisActive=false')).toEqual(['quiet.example'])
    expect(await hosts('dnsActive=true')).toEqual(['loud.example'])
    expect(await hosts('active=false')).toEqual(['retired.example'])
  })
})

describe('v2 Victim Asset records', () => {
  it('carry id, name, type and webLink in every list and single read', async () => {
    const victim = (await ok('POST', '/victims', { name: 'Asset Victim' })).data.victim.id
    const asset = (
      await ok('POST', `/victims/${victim}/victimAssets/emailAddresses`, {
        address: 'asset@example.org',
        addressType: 'Work',
      })
    ).data.victimEmailAddress
    const group = (await ok('POST', '/groups/incidents', { name: 'Asset Incident', eventDate: '2026-01-01' })).data
      .incident.id
    await ok('POST', `/groups/incidents/${group}/victimAssets/emailAddresses/${asset.id}`)
    const webLink = `https://bulwark.test/auth/victim/victim.xhtml?victim=${victim}`
    const common = { id: asset.id, name: 'asset@example.org', type: 'EmailAddress', webLink }
    expect(asset).toEqual({ ...common, address: 'asset@example.org', addressType: 'Work' })
    for (const url of [
      `/victims/${victim}/victimAssets`,
      `/victims/${victim}/victimAssets/emailAddresses`,
      `/victims/${victim}/victimAssets/emailAddresses/${asset.id}`,
      `/groups/incidents/${group}/victimAssets`,
      `/groups/incidents/${group}/victimAssets/emailAddresses`,
    ]) {
      const data = (await ok('GET', url)).data
      const records = Object.values(data).find((v) => typeof v === 'object') as
        Record<string, unknown> | Array<Record<string, unknown>>
      const record = Array.isArray(records) ? records[0] : records
      expect({ url, id: record.id, name: record.name, type: record.type, webLink: record.webLink }).toEqual({
        url,
        ...common,
      })
    }
  })
})

describe('v2 owner metrics', () => {
  it('carry every documented figure, computed from the owner content', async () => {
    const owner = await t.createOwner('Metrics Source', 'Source')
    const member = await t.createAccount({ memberships: { 'Metrics Source': 'Editor' } })
    const as = (method: 'POST' | 'PUT' | 'GET', url: string, payload?: object) =>
      t.request({ method, url: `/api/v2${url}?owner=Metrics%20Source`, payload, as: member })
    await as('POST', '/indicators/hosts', { hostName: 'tracked.example', dnsActive: true })
    await as('POST', '/indicators/hosts', { hostName: 'quiet.example' })
    await as('POST', '/indicators/addresses', { ip: '192.0.2.77' })
    await as('POST', '/indicators/urls', { text: 'http://tracked.example/x' })
    await as('POST', '/indicators/emailAddresses', { address: 'm@example.org' })
    await as('POST', '/indicators/files', { md5: '0CC175B9C0F1B6A831C399E269772661' })
    await as('POST', '/indicators/hosts/tracked.example/observations', { count: 3 })
    await as('POST', '/indicators/addresses/192.0.2.77/observations', { count: 2 })
    await as('POST', '/indicators/files/0CC175B9C0F1B6A831C399E269772661/observations', { count: 1 })
    const group = (await as('POST', '/groups/threats', { name: 'Metric Threat' })).json().data.threat.id
    await as('POST', `/indicators/hosts/tracked.example/groups/threats/${group}`)
    await as('POST', `/indicators/addresses/192.0.2.77/groups/threats/${group}`)
    const db = t.store.db
    await db
      .updateTable('indicator')
      .set({ address_country_code: 'US', address_asn: 64500 })
      .where('summary', '=', '192.0.2.77')
      .execute()
    const ids = Object.fromEntries(
      (await db.selectFrom('indicator').select(['id', 'summary']).where('owner_id', '=', owner).execute()).map((r) => [
        r.summary,
        r.id,
      ]),
    )
    await db
      .insertInto('dns_resolution')
      .values([
        { host_id: ids['tracked.example'], address_id: ids['192.0.2.77'], resolution_date: '2026-01-01T00:00:00.000Z' },
      ])
      .execute()
    const res = await t.request({ method: 'GET', url: `/api/v2/owners/${owner}/metrics`, as: member })
    expect(res.statusCode).toBe(200)
    expect(res.json().data.ownerMetric[0]).toMatchObject({
      ownerId: owner,
      totalIndicator: 6,
      totalHost: 2,
      totalAddress: 1,
      totalEmailAddress: 1,
      totalFile: 1,
      totalUrl: 1,
      totalGroup: 1,
      totalThreat: 1,
      totalTrack: 1,
      totalResult: 1,
      totalEnrichedIndicator: 1,
      totalGroupIndicator: 2,
      totalObservationDaily: 6,
      totalObservationIndicator: 6,
      totalObservationHost: 3,
      totalObservationAddress: 2,
      totalObservationFile: 1,
      totalObservationEmailAddress: 0,
      totalObservationUrl: 0,
      totalFalsePositiveDaily: 0,
      totalFalsePositive: 0,
    })
  })
})

describe('v2 DNS resolutions of a Host', () => {
  it("lists the resolutions recorded for a Host in the platform's shape, newest first", async () => {
    await ok('POST', '/indicators/hosts', { hostName: 'resolved.example' })
    await ok('POST', '/indicators/addresses', { ip: '192.0.2.101', rating: 2, confidence: 40 })
    await ok('POST', '/indicators/addresses', { ip: '192.0.2.102' })
    const ids = Object.fromEntries(
      (await t.store.db.selectFrom('indicator').select(['id', 'summary']).execute()).map((r) => [r.summary, r.id]),
    )
    await t.store.db
      .insertInto('dns_resolution')
      .values([
        {
          host_id: ids['resolved.example'],
          address_id: ids['192.0.2.101'],
          resolution_date: '2026-01-01T00:00:00.000Z',
        },
        {
          host_id: ids['resolved.example'],
          address_id: ids['192.0.2.101'],
          resolution_date: '2026-02-01T00:00:00.000Z',
        },
        {
          host_id: ids['resolved.example'],
          address_id: ids['192.0.2.102'],
          resolution_date: '2026-02-01T00:00:00.000Z',
        },
      ])
      .execute()
    const body = await ok('GET', '/indicators/hosts/resolved.example/dnsResolutions')
    const address = (ip: string) =>
      expect.objectContaining({
        id: ids[ip],
        ownerName: 'Test Organization',
        ip,
        webLink: `https://bulwark.test/auth/indicators/details/address.xhtml?address=${ip}&owner=Test%20Organization`,
      })
    expect(body.data.resultCount).toBe(2)
    expect(body.data.dnsResolution).toEqual([
      { resolutionDate: '2026-02-01T00:00:00Z', addresses: [address('192.0.2.101'), address('192.0.2.102')] },
      { resolutionDate: '2026-01-01T00:00:00Z', addresses: [address('192.0.2.101')] },
    ])
    expect(body.data.dnsResolution[0].addresses[0]).toMatchObject({ threatAssessRating: 2, threatAssessConfidence: 40 })
    const page = await ok('GET', '/indicators/hosts/resolved.example/dnsResolutions?resultStart=1&resultLimit=1')
    expect(page.data.dnsResolution.map((r: { resolutionDate: string }) => r.resolutionDate)).toEqual([
      '2026-01-01T00:00:00Z',
    ])
    expect((await v2('GET', '/indicators/addresses/192.0.2.101/dnsResolutions')).statusCode).toBe(400)
    expect((await v2('GET', '/indicators/hosts/unknown.example/dnsResolutions')).statusCode).toBe(404)
  })
})

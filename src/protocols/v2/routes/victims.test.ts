import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestAccount, type TestApp, createTestApp } from '../../../test/harness.js'

let t: TestApp
let readOnly: TestAccount
beforeAll(async () => {
  t = await createTestApp()
  readOnly = await t.createAccount({ role: 'Read Only User' })
})
afterAll(async () => {
  await t.close()
})

const call = (
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  payload?: unknown,
  extra: { as?: TestAccount; headers?: Record<string, string> } = {},
) => t.request({ method, url: `/api/v2${url}`, payload: payload as object | undefined, ...extra })

async function createVictim(body: Record<string, unknown> = { name: 'Burton Guster' }): Promise<number> {
  const res = await call('POST', '/victims', body)
  expect(res.statusCode).toBe(201)
  return res.json().data.victim.id
}

describe('/v2/victims', () => {
  it('creates, reads, updates and deletes a Victim', async () => {
    const created = await call('POST', '/victims', {
      name: 'Example Victim',
      description: 'Got hacked',
      org: 'Test Org',
      suborg: 'HR',
      workLocation: 'Washington D.C.',
      nationality: 'American',
    })
    expect(created.statusCode).toBe(201)
    const victim = created.json().data.victim
    expect(victim).toEqual({
      id: victim.id,
      name: 'Example Victim',
      ownerName: 'Test Organization',
      owner: { id: 1, name: 'Test Organization', type: 'Organization' },
      description: 'Got hacked',
      org: 'Test Org',
      suborg: 'HR',
      workLocation: 'Washington D.C.',
      nationality: 'American',
      webLink: `https://bulwark.test/auth/victim/victim.xhtml?victim=${victim.id}`,
    })
    const updated = await call('PUT', `/victims/${victim.id}`, { name: 'Renamed', org: null })
    expect(updated.json().data.victim).toMatchObject({ name: 'Renamed', suborg: 'HR' })
    expect(updated.json().data.victim.org).toBeUndefined()
    expect((await call('DELETE', `/victims/${victim.id}`)).json()).toEqual({
      apiCalls: 1,
      resultCount: 0,
      status: 'Success',
    })
    expect((await call('GET', `/victims/${victim.id}`)).statusCode).toBe(404)
  })

  it('requires a name on create and on update', async () => {
    const create = await call('POST', '/victims', { org: 'No name' })
    expect(create.statusCode).toBe(400)
    expect(create.json().message).toBe('name is required for a Victim')
    const id = await createVictim()
    const update = await call('PUT', `/victims/${id}`, { org: 'Still no name' })
    expect(update.statusCode).toBe(400)
    expect(update.json().message).toBe('name is required for a Victim')
  })

  it('lists with the name filter and in XML', async () => {
    await createVictim({ name: 'Filter Me' })
    const list = await call('GET', '/victims?filters=name%3DFilter%20Me')
    expect(list.json().data.resultCount).toBe(1)
    expect(list.json().data.victim[0].name).toBe('Filter Me')
    expect((await call('GET', '/victims?filters=name%5EFilter')).json().message).toBe(
      'Filter name takes the operators =, not ^',
    )
    const xml = await call('GET', '/victims?filters=name%3DFilter%20Me', undefined, {
      headers: { accept: 'application/xml' },
    })
    expect(xml.body).toContain('<victimsResponse><Status>Success</Status>')
    expect(xml.body).toContain('<Victim><Id>')
  })

  it('refuses read-only writers and unknown owners', async () => {
    expect((await call('POST', '/victims', { name: 'x' }, { as: readOnly })).statusCode).toBe(401)
    expect((await call('POST', '/victims?owner=Elsewhere', { name: 'x' })).statusCode).toBe(403)
  })
})

describe('/v2/victims/{id}/victimAssets', () => {
  it('creates each asset type and lists them generically and per type', async () => {
    const id = await createVictim()
    const bodies: [string, string, Record<string, unknown>][] = [
      ['emailAddresses', 'victimEmailAddress', { address: 'bad@badguys.com', addressType: 'Work' }],
      ['networkAccounts', 'victimNetworkAccount', { account: 'John Doe', network: 'Active Directory' }],
      ['phoneNumbers', 'victimPhone', { phoneType: '555-0100' }],
      ['socialNetworks', 'victimSocialNetwork', { account: '@jdoe', network: 'Twitter' }],
      ['webSites', 'victimWebSite', { webSite: 'example.com' }],
    ]
    const ids: number[] = []
    for (const [branch, entity, body] of bodies) {
      const res = await call('POST', `/victims/${id}/victimAssets/${branch}`, body)
      expect(res.statusCode).toBe(201)
      const asset = res.json().data[entity]
      // Every asset record has id, name (its value), type and webLink, as the platform gives them.
      expect(asset).toEqual({
        id: asset.id,
        name: Object.values(body)[0],
        type: expect.any(String),
        webLink: `https://bulwark.test/auth/victim/victim.xhtml?victim=${id}`,
        ...body,
      })
      ids.push(asset.id)
    }
    const all = (await call('GET', `/victims/${id}/victimAssets`)).json().data
    expect(all.resultCount).toBe(5)
    expect(all.victimAsset[0]).toEqual({
      id: ids[0],
      name: 'bad@badguys.com',
      type: 'EmailAddress',
      webLink: expect.any(String),
    })
    const network = (await call('GET', `/victims/${id}/victimAssets/networkAccounts`)).json().data
    expect(network.victimNetworkAccount).toEqual([
      expect.objectContaining({ account: 'John Doe', network: 'Active Directory', type: 'NetworkAccount' }),
    ])
    const one = await call('GET', `/victims/${id}/victimAssets/webSites/${ids[4]}`)
    expect(one.json().data.victimWebSite.webSite).toBe('example.com')
    expect((await call('GET', `/victims/${id}/victimAssets/emailAddresses/${ids[4]}`)).statusCode).toBe(404)
  })

  it('requires the value field on create and on update (PUT, or POST as tcex sends)', async () => {
    const id = await createVictim()
    const missing = await call('POST', `/victims/${id}/victimAssets/emailAddresses`, { addressType: 'Work' })
    expect(missing.statusCode).toBe(400)
    expect(missing.json().message).toBe('address is required for emailAddresses')
    const asset = (
      await call('POST', `/victims/${id}/victimAssets/emailAddresses`, { address: 'a@b.c', addressType: null })
    ).json().data.victimEmailAddress
    expect(asset.addressType).toBeUndefined()
    expect(
      (await call('PUT', `/victims/${id}/victimAssets/emailAddresses/${asset.id}`, { addressType: 'Home' })).statusCode,
    ).toBe(400)
    const put = await call('PUT', `/victims/${id}/victimAssets/emailAddresses/${asset.id}`, {
      address: 'c@d.e',
      addressType: 'Home',
    })
    expect(put.json().data.victimEmailAddress).toMatchObject({ address: 'c@d.e', addressType: 'Home' })
    const viaPost = await call('POST', `/victims/${id}/victimAssets/emailAddresses/${asset.id}`, { address: 'f@g.h' })
    expect(viaPost.json().data.victimEmailAddress).toMatchObject({ address: 'f@g.h', addressType: 'Home' })
  })

  it('deletes assets and answers 404 for unknown types', async () => {
    const id = await createVictim()
    const asset = (await call('POST', `/victims/${id}/victimAssets/webSites`, { webSite: 'x.org' })).json().data
      .victimWebSite
    expect((await call('DELETE', `/victims/${id}/victimAssets/webSites/${asset.id}`)).statusCode).toBe(200)
    expect((await call('GET', `/victims/${id}/victimAssets`)).json().data.resultCount).toBe(0)
    expect((await call('GET', `/victims/${id}/victimAssets/faxNumbers`)).statusCode).toBe(404)
    expect(
      (await call('POST', `/victims/${id}/victimAssets/webSites`, { webSite: 'y.org' }, { as: readOnly })).statusCode,
    ).toBe(401)
  })
})

describe('/v2/groups/adversaries/{id}/adversaryAssets', () => {
  it('creates, lists, updates and deletes handles, phone numbers and URLs', async () => {
    const adversary = (await call('POST', '/groups/adversaries', { name: 'Pierre' })).json().data.adversary.id
    const handle = await call('POST', `/groups/adversaries/${adversary}/adversaryAssets/handles`, {
      handle: 'Pierre Despereaux',
    })
    expect(handle.statusCode).toBe(201)
    const h = handle.json().data.adversaryHandle
    expect(h).toEqual({
      id: h.id,
      name: 'Pierre Despereaux',
      type: 'Handle',
      webLink: `https://bulwark.test/auth/adversary/adversary.xhtml?adversary=${adversary}`,
      handle: 'Pierre Despereaux',
    })
    await call('POST', `/groups/adversaries/${adversary}/adversaryAssets/urls`, {
      url: 'http://facebook.com/therealbadguy',
    })
    await call('POST', `/groups/adversaries/${adversary}/adversaryAssets/phoneNumbers`, { phoneNumber: '555-0199' })
    const all = (await call('GET', `/groups/adversaries/${adversary}/adversaryAssets`)).json().data
    expect(all.resultCount).toBe(3)
    expect(all.bucketAsset.map((a: { type: string; name: string }) => [a.type, a.name])).toEqual([
      ['Handle', 'Pierre Despereaux'],
      ['URL', 'http://facebook.com/therealbadguy'],
      ['PhoneNumber', '555-0199'],
    ])
    expect(
      (await call('GET', `/groups/adversaries/${adversary}/adversaryAssets/urls`)).json().data.adversaryUrl,
    ).toHaveLength(1)
    const put = await call('PUT', `/groups/adversaries/${adversary}/adversaryAssets/handles/${h.id}`, {
      handle: 'New Name',
    })
    expect(put.json().data.adversaryHandle.handle).toBe('New Name')
    expect((await call('GET', `/groups/adversaries/${adversary}/adversaryAssets/urls/${h.id}`)).statusCode).toBe(404)
    expect((await call('DELETE', `/groups/adversaries/${adversary}/adversaryAssets/handles/${h.id}`)).statusCode).toBe(
      200,
    )
    expect((await call('GET', `/groups/adversaries/${adversary}/adversaryAssets/handles/${h.id}`)).statusCode).toBe(404)
  })

  it('refuses a missing value, other Group types and unknown asset types', async () => {
    const adversary = (await call('POST', '/groups/adversaries', { name: 'A' })).json().data.adversary.id
    const missing = await call('POST', `/groups/adversaries/${adversary}/adversaryAssets/handles`, {})
    expect(missing.statusCode).toBe(400)
    expect(missing.json().message).toBe('handle is required for handles')
    const threat = (await call('POST', '/groups/threats', { name: 'T' })).json().data.threat.id
    expect((await call('GET', `/groups/threats/${threat}/adversaryAssets`)).statusCode).toBe(404)
    expect((await call('GET', `/groups/adversaries/${threat}/adversaryAssets`)).statusCode).toBe(404)
    expect((await call('GET', `/groups/adversaries/${adversary}/adversaryAssets/emails`)).statusCode).toBe(404)
    expect(
      (
        await call(
          'POST',
          `/groups/adversaries/${adversary}/adversaryAssets/handles`,
          { handle: 'x' },
          { as: readOnly },
        )
      ).statusCode,
    ).toBe(401)
  })
})

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

async function group(branch: string, entity: string, body: Record<string, unknown>): Promise<number> {
  const res = await call('POST', `/groups/${branch}`, body)
  expect(res.statusCode).toBe(201)
  return res.json().data[entity].id
}

const ids = (res: { json(): any }, entity: string) => res.json().data[entity].map((x: { id: number }) => x.id)

describe('Group to Group', () => {
  it('associates, lists from both sides, narrows by type and id, and dissociates', async () => {
    const threat = await group('threats', 'threat', { name: 'T' })
    const incident = await group('incidents', 'incident', { name: 'I', eventDate: '2024-01-01' })
    const ok = await call('POST', `/groups/threats/${threat}/groups/incidents/${incident}`)
    expect(ok.json()).toEqual({ apiCalls: 1, resultCount: 1, status: 'Success' })
    const fromThreat = await call('GET', `/groups/threats/${threat}/groups`)
    expect(fromThreat.json().data).toMatchObject({
      resultCount: 1,
      group: [{ id: incident, type: 'Incident', name: 'I' }],
    })
    expect(ids(await call('GET', `/groups/incidents/${incident}/groups/threats`), 'threat')).toEqual([threat])
    expect((await call('GET', `/groups/incidents/${incident}/groups/adversaries`)).json().data).toEqual({
      resultCount: 0,
      adversary: [],
    })
    expect((await call('GET', `/groups/threats/${threat}/groups/incidents/${incident}`)).json().data.incident.id).toBe(
      incident,
    )
    const xml = await call('GET', `/groups/threats/${threat}/groups`, undefined, {
      headers: { accept: 'application/xml' },
    })
    expect(xml.body).toContain(`<Group><Id>${incident}</Id>`)
    expect((await call('DELETE', `/groups/incidents/${incident}/groups/threats/${threat}`)).statusCode).toBe(200)
    expect((await call('GET', `/groups/threats/${threat}/groups/incidents/${incident}`)).statusCode).toBe(404)
    expect((await call('DELETE', `/groups/incidents/${incident}/groups/threats/${threat}`)).statusCode).toBe(404)
  })

  it('answers 404 for a missing partner or a wrong partner type, and 401 for read-only callers', async () => {
    const threat = await group('threats', 'threat', { name: 'T2' })
    expect((await call('POST', `/groups/threats/${threat}/groups/incidents/987654`)).statusCode).toBe(404)
    expect((await call('POST', `/groups/threats/${threat}/groups/incidents/${threat}`)).statusCode).toBe(404)
    expect((await call('POST', `/groups/threats/${threat}/groups/gadgets/1`)).statusCode).toBe(404)
    const other = await group('adversaries', 'adversary', { name: 'A' })
    expect(
      (await call('POST', `/groups/threats/${threat}/groups/adversaries/${other}`, undefined, { as: readOnly }))
        .statusCode,
    ).toBe(401)
  })
})

describe('Group to Indicator', () => {
  it('associates by type and summary (URL-encoded), lists and dissociates', async () => {
    const threat = await group('threats', 'threat', { name: 'With indicators' })
    expect((await call('POST', '/indicators/addresses', { ip: '10.1.2.3' })).statusCode).toBe(201)
    expect((await call('POST', '/indicators/urls', { text: 'http://bad.example/a/b' })).statusCode).toBe(201)
    expect((await call('POST', `/groups/threats/${threat}/indicators/addresses/10.1.2.3`)).statusCode).toBe(200)
    expect(
      (await call('POST', `/groups/threats/${threat}/indicators/urls/${encodeURIComponent('http://bad.example/a/b')}`))
        .statusCode,
    ).toBe(200)
    const all = (await call('GET', `/groups/threats/${threat}/indicators`)).json().data
    expect(all.resultCount).toBe(2)
    expect(all.indicator.map((i: { summary: string }) => i.summary).sort()).toEqual([
      '10.1.2.3',
      'http://bad.example/a/b',
    ])
    const addresses = (await call('GET', `/groups/threats/${threat}/indicators/addresses`)).json().data
    expect(addresses.address).toEqual([expect.objectContaining({ summary: '10.1.2.3', ip: '10.1.2.3' })])
    expect((await call('GET', `/groups/threats/${threat}/indicators/addresses/10.1.2.3`)).json().data.address.ip).toBe(
      '10.1.2.3',
    )
    expect((await call('POST', `/groups/threats/${threat}/indicators/addresses/10.9.9.9`)).statusCode).toBe(404)
    expect((await call('DELETE', `/groups/threats/${threat}/indicators/addresses/10.1.2.3`)).statusCode).toBe(200)
    expect((await call('GET', `/groups/threats/${threat}/indicators`)).json().data.resultCount).toBe(1)
  })
})

describe('Victims, Victim Assets and Tasks', () => {
  it('refuses a Victim without assets, then associates once it has one', async () => {
    const threat = await group('threats', 'threat', { name: 'Victimology' })
    const victim = (await call('POST', '/victims', { name: 'V' })).json().data.victim.id
    const refused = await call('POST', `/victims/${victim}/groups/threats/${threat}`)
    expect(refused.statusCode).toBe(400)
    expect(refused.json().message).toBe(`Victim ${victim} needs at least one Victim Asset before it can be associated`)
    expect((await call('POST', `/groups/threats/${threat}/victims/${victim}`)).statusCode).toBe(400)
    await call('POST', `/victims/${victim}/victimAssets/emailAddresses`, { address: 'v@example.com' })
    expect((await call('POST', `/victims/${victim}/groups/threats/${threat}`)).statusCode).toBe(200)
    expect(ids(await call('GET', `/groups/threats/${threat}/victims`), 'victim')).toEqual([victim])
    expect((await call('GET', `/groups/threats/${threat}/victims/${victim}`)).json().data.victim.name).toBe('V')
    expect(ids(await call('GET', `/victims/${victim}/groups`), 'group')).toEqual([threat])
    expect(ids(await call('GET', `/victims/${victim}/groups/threats`), 'threat')).toEqual([threat])
  })

  it('lists Indicators and Victims that share a Group with a Victim', async () => {
    const incident = await group('incidents', 'incident', { name: 'Shared', eventDate: '2024-05-05' })
    const victims: number[] = []
    for (const name of ['First', 'Second']) {
      const id = (await call('POST', '/victims', { name })).json().data.victim.id
      await call('POST', `/victims/${id}/victimAssets/webSites`, { webSite: `${name}.example` })
      await call('POST', `/groups/incidents/${incident}/victims/${id}`)
      victims.push(id)
    }
    await call('POST', '/indicators/hosts', { hostName: 'shared.example.com' })
    await call('POST', `/groups/incidents/${incident}/indicators/hosts/shared.example.com`)
    expect(ids(await call('GET', `/victims/${victims[0]}/victims`), 'victim')).toEqual([victims[1]])
    const indicators = (await call('GET', `/victims/${victims[0]}/indicators`)).json().data
    expect(indicators.indicator.map((i: { summary: string }) => i.summary)).toEqual(['shared.example.com'])
    expect((await call('GET', `/victims/${victims[0]}/indicators/hosts`)).json().data.host).toHaveLength(1)
    expect((await call('POST', `/victims/${victims[0]}/indicators/hosts/shared.example.com`)).statusCode).toBe(404)
  })

  it('associates Victim Assets with a Group', async () => {
    const threat = await group('threats', 'threat', { name: 'Asset holder' })
    const victim = (await call('POST', '/victims', { name: 'Owner of assets' })).json().data.victim.id
    const asset = (await call('POST', `/victims/${victim}/victimAssets/emailAddresses`, { address: 'x@y.z' })).json()
      .data.victimEmailAddress.id
    expect((await call('POST', `/groups/threats/${threat}/victimAssets/emailAddresses/${asset}`)).statusCode).toBe(200)
    expect((await call('GET', `/groups/threats/${threat}/victimAssets`)).json().data.victimAsset).toEqual([
      {
        id: asset,
        name: 'x@y.z',
        type: 'EmailAddress',
        webLink: `https://bulwark.test/auth/victim/victim.xhtml?victim=${victim}`,
      },
    ])
    expect(
      (await call('GET', `/groups/threats/${threat}/victimAssets/emailAddresses/${asset}`)).json().data
        .victimEmailAddress.address,
    ).toBe('x@y.z')
    expect((await call('GET', `/groups/threats/${threat}/victimAssets/webSites`)).json().data.resultCount).toBe(0)
    expect((await call('POST', `/groups/threats/${threat}/victimAssets/webSites/${asset}`)).statusCode).toBe(404)
    expect((await call('DELETE', `/groups/threats/${threat}/victimAssets/emailAddresses/${asset}`)).statusCode).toBe(
      200,
    )
  })

  it('associates Tasks with Groups, Indicators and Victims', async () => {
    const task = (await call('POST', '/tasks', { name: 'Investigate' })).json().data.task.id
    const threat = await group('threats', 'threat', { name: 'Tasked' })
    expect((await call('POST', `/tasks/${task}/groups/threats/${threat}`)).statusCode).toBe(200)
    expect(ids(await call('GET', `/groups/threats/${threat}/tasks`), 'task')).toEqual([task])
    expect((await call('GET', `/groups/threats/${threat}/tasks/${task}`)).json().data.task.name).toBe('Investigate')
    expect(ids(await call('GET', `/tasks/${task}/groups`), 'group')).toEqual([threat])
    await call('POST', '/indicators/addresses', { ip: '10.7.7.7' })
    expect((await call('POST', `/tasks/${task}/indicators/addresses/10.7.7.7`)).statusCode).toBe(200)
    expect((await call('GET', `/tasks/${task}/indicators`)).json().data.indicator[0].summary).toBe('10.7.7.7')
    const victim = (await call('POST', '/victims', { name: 'Tasked victim' })).json().data.victim.id
    await call('POST', `/victims/${victim}/victimAssets/webSites`, { webSite: 'v.example' })
    expect((await call('POST', `/tasks/${task}/victims/${victim}`)).statusCode).toBe(200)
    expect(ids(await call('GET', `/victims/${victim}/tasks`), 'task')).toEqual([task])
    expect((await call('DELETE', `/groups/threats/${threat}/tasks/${task}`)).statusCode).toBe(200)
    expect((await call('GET', `/tasks/${task}/groups`)).json().data.resultCount).toBe(0)
  })

  it('removes associations when an item is deleted', async () => {
    const a = await group('threats', 'threat', { name: 'A' })
    const b = await group('threats', 'threat', { name: 'B' })
    await call('POST', `/groups/threats/${a}/groups/threats/${b}`)
    await call('DELETE', `/groups/threats/${b}`)
    expect((await call('GET', `/groups/threats/${a}/groups`)).json().data.resultCount).toBe(0)
    const rows = await t.store.db
      .selectFrom('association')
      .selectAll()
      .where('to_kind', '=', 'group')
      .where('to_id', '=', b)
      .execute()
    expect(rows).toEqual([])
  })
})

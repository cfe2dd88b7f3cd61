import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, createTestApp } from '../../test/harness.js'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(async () => {
  await t.close()
})

const DATES = {
  firstSeen: '2026-01-01T00:00:00Z',
  lastSeen: '2026-02-01T00:00:00Z',
  externalDateAdded: '2025-01-01T00:00:00Z',
  externalLastModified: '2025-02-01T00:00:00Z',
  externalDateExpires: '2027-01-01T00:00:00Z',
}

describe('v3 Groups: sightings and externalDates', () => {
  it('store the five dates on every Group type and show them with fields=sightings and fields=externalDates', async () => {
    const bodies: Array<Record<string, unknown>> = [
      { type: 'Adversary', name: 'Dated Adversary' },
      { type: 'Campaign', name: 'Dated Campaign' },
      { type: 'Incident', name: 'Dated Incident', eventDate: '2026-01-05T00:00:00Z' },
      { type: 'Intrusion Set', name: 'Dated Set' },
      { type: 'Email', name: 'Dated Email', subject: 's', header: 'h', body: 'b' },
      { type: 'Vulnerability', name: 'Dated CVE' },
    ]
    for (const body of bodies) {
      const created = await t.request({ method: 'POST', url: '/api/v3/groups', payload: { ...body, ...DATES } })
      expect(created.statusCode).toBe(201)
      const id = created.json().data.id
      const sightings = (await t.request({ method: 'GET', url: `/api/v3/groups/${id}?fields=sightings` })).json().data
      expect([body.type, sightings.firstSeen, sightings.lastSeen]).toEqual([body.type, DATES.firstSeen, DATES.lastSeen])
      expect(sightings.externalDateAdded).toBeUndefined()
      const external = (await t.request({ method: 'GET', url: `/api/v3/groups/${id}?fields=externalDates` })).json()
        .data
      expect([
        body.type,
        external.externalDateAdded,
        external.externalLastModified,
        external.externalDateExpires,
      ]).toEqual([body.type, DATES.externalDateAdded, DATES.externalLastModified, DATES.externalDateExpires])
    }
  })

  it('change and clear them on update, and list them', async () => {
    const id = (
      await t.request({
        method: 'POST',
        url: '/api/v3/groups',
        payload: { type: 'Threat', name: 'Moving Threat', lastSeen: '2026-03-01' },
      })
    ).json().data.id
    await t.request({
      method: 'PUT',
      url: `/api/v3/groups/${id}`,
      payload: { lastSeen: '2026-04-01T12:00:00Z', externalDateExpires: '2030-01-01' },
    })
    const listed = (
      await t.request({
        method: 'GET',
        url: `/api/v3/groups?tql=${encodeURIComponent('name = "Moving Threat"')}&fields=sightings&fields=externalDates`,
      })
    ).json().data[0]
    expect([listed.lastSeen, listed.externalDateExpires, listed.firstSeen]).toEqual([
      '2026-04-01T12:00:00Z',
      '2030-01-01T00:00:00Z',
      undefined,
    ])
    await t.request({ method: 'PUT', url: `/api/v3/groups/${id}`, payload: { lastSeen: null } })
    expect(
      (await t.request({ method: 'GET', url: `/api/v3/groups/${id}?fields=sightings` })).json().data.lastSeen,
    ).toBeUndefined()
    const bad = await t.request({ method: 'PUT', url: `/api/v3/groups/${id}`, payload: { firstSeen: 'yesterday' } })
    expect(bad.statusCode).toBe(400)
  })
})

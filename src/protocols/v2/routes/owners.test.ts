import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, createTestApp } from '../../../test/harness.js'

let t: TestApp
let communityId: number
beforeAll(async () => {
  t = await createTestApp()
  communityId = await t.createOwner('Research Community', 'Community')
})
afterAll(async () => {
  await t.close()
})

describe('GET /v2/owners', () => {
  it('lists the owners the credentials can access, and pages them', async () => {
    const member = await t.createAccount({ memberships: { 'Research Community': 'Subscriber' } })
    const all = await t.request({ method: 'GET', url: '/api/v2/owners', as: member })
    expect(all.json()).toEqual({
      status: 'Success',
      data: {
        resultCount: 2,
        owner: [
          { id: 1, name: 'Test Organization', type: 'Organization' },
          { id: communityId, name: 'Research Community', type: 'Community' },
        ],
      },
    })
    const second = await t.request({ method: 'GET', url: '/api/v2/owners?resultStart=1&resultLimit=1', as: member })
    expect(second.json()).toEqual({
      status: 'Success',
      data: { owner: [{ id: communityId, name: 'Research Community', type: 'Community' }] },
    })
  })

  it('answers in XML with the documented root and xsi types', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v2/owners', headers: { accept: 'application/xml' } })
    expect(res.headers['content-type']).toBe('application/xml; charset=utf-8')
    expect(res.body).toContain('<ownersResponse><Status>Success</Status><Data xsi:type="ownerListResponseData"')
    expect(res.body).toContain('<Owner><Id>1</Id><Name>Test Organization</Name><Type>Organization</Type></Owner>')
  })

  it('returns one owner by id, and 404 for one the caller cannot read', async () => {
    expect((await t.request({ method: 'GET', url: '/api/v2/owners/1' })).json()).toEqual({
      status: 'Success',
      data: { resultCount: 1, owner: { id: 1, name: 'Test Organization', type: 'Organization' } },
    })
    expect((await t.request({ method: 'GET', url: `/api/v2/owners/${communityId}` })).statusCode).toBe(404)
    expect((await t.request({ method: 'GET', url: '/api/v2/owners/abc' })).statusCode).toBe(400)
  })
})

describe('GET /v2/owners/mine and members', () => {
  it('returns the caller Organization', async () => {
    expect((await t.request({ method: 'GET', url: '/api/v2/owners/mine' })).json()).toEqual({
      status: 'Success',
      data: { resultCount: 1, owner: { id: 1, name: 'Test Organization', type: 'Organization' } },
    })
  })

  it('lists the Organization members with their names', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v2/owners/mine/members' })
    const users = res.json().data.user as { userName: string; firstName: string }[]
    expect(users.map((u) => u.userName)).toContain(t.admin.userName)
    expect(users.find((u) => u.userName === t.admin.userName)).toMatchObject({
      firstName: 'Test',
      role: 'Organization Administrator',
    })
  })
})

describe('GET /v2/whoami', () => {
  it('describes the calling account', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v2/whoami' })
    expect(res.json()).toEqual({
      status: 'Success',
      data: {
        user: {
          userName: t.admin.userName,
          firstName: 'Test',
          lastName: expect.stringMatching(/^User /),
          role: 'Api User',
          ownerRole: 'Organization Administrator',
          organization: 'Test Organization',
        },
      },
    })
  })
})

describe('owner metrics', () => {
  it('counts the owner content for today', async () => {
    await t.request({
      method: 'POST',
      url: '/api/v2/indicators/hosts',
      payload: { hostName: 'metrics.example', rating: 4, confidence: 60 },
    })
    await t.request({
      method: 'POST',
      url: '/api/v2/indicators/addresses',
      payload: { ip: '192.0.2.10', rating: 2, confidence: 40 },
    })
    await t.request({
      method: 'POST',
      url: '/api/v2/groups/incidents',
      payload: { name: 'Breach', eventDate: '2026-01-01T00:00:00Z' },
    })
    const res = await t.request({ method: 'GET', url: '/api/v2/owners/1/metrics' })
    expect(res.statusCode).toBe(200)
    const [metric] = res.json().data.ownerMetric
    expect(metric).toMatchObject({
      ownerId: 1,
      totalIndicator: 2,
      totalHost: 1,
      totalAddress: 1,
      totalGroup: 1,
      totalIncident: 1,
      averageIndicatorRating: 3,
      averageIndicatorConfidence: 50,
    })
    expect(metric.metricDate).toMatch(/^\d{4}-\d{2}-\d{2}T00:00:00Z$/)
    // Every documented field, in the platform's order, so presenting the domain's figures keeps the wire shape.
    expect(Object.entries(metric)).toEqual(
      Object.entries({
        ownerId: 1,
        metricDate: metric.metricDate,
        totalHost: 1,
        totalAddress: 1,
        totalEmailAddress: 0,
        totalFile: 0,
        totalUrl: 0,
        totalObservationHost: 0,
        totalObservationAddress: 0,
        totalObservationEmailAddress: 0,
        totalObservationFile: 0,
        totalObservationUrl: 0,
        totalIndicator: 2,
        totalThreat: 0,
        totalIncident: 1,
        totalEmail: 0,
        totalCampaign: 0,
        totalAdversary: 0,
        totalSignature: 0,
        totalDocument: 0,
        totalGroup: 1,
        totalTask: 0,
        totalTag: 0,
        totalTrack: 0,
        totalResult: 0,
        totalIndicatorAttribute: 0,
        totalGroupAttribute: 0,
        averageIndicatorRating: 3,
        averageIndicatorConfidence: 50,
        totalEnrichedIndicator: 0,
        totalGroupIndicator: 0,
        totalObservationDaily: 0,
        totalObservationIndicator: 0,
        totalFalsePositiveDaily: 0,
        totalFalsePositive: 0,
      }),
    )
    const all = await t.request({ method: 'GET', url: '/api/v2/owners/metrics' })
    expect(all.json().data.ownerMetric.map((m: { ownerId: number }) => m.ownerId)).toEqual([1])
  })
})

/**
 * ThreatAssess figures: computed from rating, confidence, observations and false positives
 * (docs/decisions.md, "ThreatAssess"), kept current by every writer, shown by v2 and v3.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ORG, type TestApp, createTestApp } from '../../test/harness.js'
import { runPendingJobs } from '../../worker/batch-worker.js'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(async () => {
  await t.close()
})

const v3 = async (url: string) => (await t.request({ method: 'GET', url: `/api/v3${url}` })).json()
const assess = async (id: number) => {
  const { data } = await v3(`/indicators/${id}?fields=threatAssess`)
  return [
    data.threatAssessRating,
    data.threatAssessConfidence,
    data.threatAssessScore,
    data.threatAssessScoreObserved,
    data.threatAssessScoreFalsePositive,
    data.svcScore,
  ]
}

describe('ThreatAssess', () => {
  it('is computed on create and follows rating, confidence, observations and false positives', async () => {
    const created = await t.request({
      method: 'POST',
      url: '/api/v2/indicators/hosts',
      payload: { hostName: 'assessed.example', rating: 4, confidence: 75 },
    })
    const id = created.json().data.host.id
    // 4/5 × 75/100 × 800 = 480
    expect(await assess(id)).toEqual([4, 75, 480, 0, 0, 480])
    await t.request({
      method: 'POST',
      url: '/api/v2/indicators/hosts/assessed.example/observations',
      payload: { count: 3 },
    })
    expect(await assess(id)).toEqual([4, 75, 486, 6, 0, 486])
    await t.request({
      method: 'POST',
      url: '/api/v2/indicators/hosts/assessed.example/falsePositive',
      headers: { 'content-type': 'application/json' },
    })
    expect(await assess(id)).toEqual([4, 75, 436, 6, 50, 436])
    await t.request({ method: 'PUT', url: `/api/v3/indicators/${id}`, payload: { rating: 5 } })
    expect(await assess(id)).toEqual([5, 75, 556, 6, 50, 556])
    await t.request({ method: 'PUT', url: '/api/v2/indicators/hosts/assessed.example', payload: { confidence: 10 } })
    // 5/5 × 10/100 × 800 = 80, + 6 − 50
    expect(await assess(id)).toEqual([5, 10, 36, 6, 50, 36])
    const v2 = (
      await t.request({ method: 'GET', url: '/api/v2/indicators/hosts/assessed.example?includeAdditional=true' })
    ).json().data.host
    expect([v2.threatAssessRating, v2.threatAssessConfidence, v2.threatAssessScore]).toEqual([5, 10, 36])
  })

  it('reads an unrated Indicator as 0, and never leaves 0..1000', async () => {
    const id = (
      await t.request({ method: 'POST', url: '/api/v3/indicators', payload: { type: 'Address', ip: '192.0.2.90' } })
    ).json().data.id
    expect(await assess(id)).toEqual([0, 0, 0, 0, 0, 0])
    await t.request({
      method: 'POST',
      url: '/api/v2/indicators/addresses/192.0.2.90/falsePositive',
      headers: { 'content-type': 'application/json' },
    })
    expect(await assess(id)).toEqual([0, 0, 0, 0, 50, 0])
    const top = (
      await t.request({
        method: 'POST',
        url: '/api/v3/indicators',
        payload: { type: 'Address', ip: '192.0.2.91', rating: 5, confidence: 100 },
      })
    ).json().data.id
    await t.request({
      method: 'POST',
      url: '/api/v2/indicators/addresses/192.0.2.91/observations',
      payload: { count: 500 },
    })
    expect(await assess(top)).toEqual([5, 100, 1000, 200, 0, 1000])
  })

  it('is computed by the batch writer, for new and updated Indicators, and filters with TQL', async () => {
    const job = (
      await t.request({
        method: 'POST',
        url: '/api/v2/batch',
        payload: { version: 'V2', owner: ORG, haltOnError: false, action: 'Create', attributeWriteType: 'Append' },
      })
    ).json().data.batchId
    const file = {
      indicator: [
        { type: 'Host', summary: 'batched.example', rating: 3, confidence: 50 },
        { type: 'Host', summary: 'assessed.example', rating: 1, confidence: 100 },
      ],
    }
    await t.request({
      method: 'POST',
      url: `/api/v2/batch/${job}`,
      payload: JSON.stringify(file),
      headers: { 'content-type': 'application/octet-stream' },
    })
    await runPendingJobs(t.store, t.services)
    const batched = (
      await v3('/indicators?tql=' + encodeURIComponent('summary = "batched.example"') + '&fields=threatAssess')
    ).data[0]
    expect([batched.threatAssessRating, batched.threatAssessConfidence, batched.threatAssessScore]).toEqual([
      3, 50, 240,
    ])
    const updated = (
      await v3('/indicators?tql=' + encodeURIComponent('summary = "assessed.example"') + '&fields=threatAssess')
    ).data[0]
    // 1/5 × 100/100 × 800 = 160, + 6 observed − 50 false positive
    expect([updated.threatAssessRating, updated.threatAssessConfidence, updated.threatAssessScore]).toEqual([
      1, 100, 116,
    ])
    const high = (await v3('/indicators?tql=' + encodeURIComponent('threatAssessScore > 200'))).data
      .map((i: { summary: string }) => i.summary)
      .sort()
    expect(high).toEqual(['192.0.2.91', 'batched.example'])
  })
})

describe('ThreatAssess rounding', () => {
  it('rounds halves up on both databases', async () => {
    // 0.3125/5 × 25/100 × 800 = 12.5 exactly; PostgreSQL would round that double half to even (12).
    const id = (
      await t.request({
        method: 'POST',
        url: '/api/v3/indicators',
        payload: { type: 'Host', hostName: 'half.example', rating: 0.3125, confidence: 25 },
      })
    ).json().data.id
    expect((await v3(`/indicators/${id}?fields=threatAssess`)).data.threatAssessScore).toBe(13)
  })
})

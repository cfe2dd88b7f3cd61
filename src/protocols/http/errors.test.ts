import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, createTestApp } from '../../test/harness.js'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(async () => {
  await t.close()
})

const json = { 'content-type': 'application/json' }

describe('bad requests get a clear 4xx in the interface envelope', () => {
  it('malformed JSON is a v2 400 and writes nothing', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/api/v2/groups/adversaries',
      headers: json,
      payload: '{"name": "Half',
    })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toMatchObject({ status: 'Error', message: expect.stringMatching(/^Malformed JSON body/) })
    const groups = await t.request({ method: 'GET', url: '/api/v2/groups' })
    expect(groups.json().data.resultCount).toBe(0)
  })

  it('malformed JSON is a v3 400 with the v3 error body', async () => {
    const res = await t.request({ method: 'POST', url: '/api/v3/tags', headers: json, payload: '[1,' })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toMatchObject({
      errCode: '0x1001',
      status: 'Error',
      message: expect.stringMatching(/^Malformed JSON body/),
    })
  })

  it('a body with a __proto__ or constructor.prototype key is refused on v2 and v3 alike', async () => {
    for (const payload of [
      '{"name": "x", "__proto__": {"polluted": true}}',
      '{"name": "x", "constructor": {"prototype": {"polluted": true}}}',
    ]) {
      const v2 = await t.request({ method: 'POST', url: '/api/v2/groups/adversaries', headers: json, payload })
      expect(v2.statusCode).toBe(400)
      expect(v2.json()).toMatchObject({ status: 'Error' })
      for (const headers of [json, { 'content-type': 'text/plain' }]) {
        const v3 = await t.request({ method: 'POST', url: '/api/v3/tags', headers, payload })
        expect(v3.statusCode).toBe(400)
        expect(v3.json()).toMatchObject({ errCode: '0x1001', status: 'Error' })
      }
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('malformed XML is a v2 400 in XML when XML is accepted', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/api/v2/groups/adversaries',
      headers: { 'content-type': 'application/xml', accept: 'application/xml' },
      payload: '<Adversary><Name>x</Adversary>',
    })
    expect(res.statusCode).toBe(400)
    expect(res.headers['content-type']).toMatch(/application\/xml/)
    expect(res.body).toMatch(/<errorResponse><Status>Error<\/Status><Message>Malformed XML body/)
  })

  it('an unsupported content type is a 415 in the envelope', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/api/v2/groups/adversaries',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'name=x',
    })
    expect(res.statusCode).toBe(415)
    expect(res.json()).toMatchObject({ status: 'Error', message: expect.stringMatching(/^Unsupported Content-Type/) })
  })

  it('an oversized body is a 413 in the envelope', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(6 * 1024 * 1024) })
    const res = await t.request({ method: 'POST', url: '/api/v2/groups/adversaries', headers: json, payload: big })
    expect(res.statusCode).toBe(413)
    expect(res.json()).toEqual({ status: 'Error', message: 'Request body is larger than this endpoint accepts' })
  })

  it('unknown paths and methods are 404s in the envelope of their interface', async () => {
    const v2 = await t.request({ method: 'GET', url: '/api/v2/nothing/here' })
    expect(v2.statusCode).toBe(404)
    expect(v2.json()).toEqual({ status: 'Error', message: 'No such v2 endpoint: GET /api/v2/nothing/here' })
    const method = await t.request({ method: 'PATCH', url: '/api/v2/owners' })
    expect(method.statusCode).toBe(404)
    expect(method.json().status).toBe('Error')
    const v3 = await t.request({ method: 'GET', url: '/api/v3/nothing' })
    expect(v3.statusCode).toBe(404)
    expect(v3.json()).toMatchObject({ errCode: '0x1007', status: 'Error' })
    const root = await t.request({ method: 'GET', url: '/elsewhere' })
    expect(root.statusCode).toBe(404)
    expect(root.json()).toEqual({ status: 'Error', message: 'No such endpoint: GET /elsewhere' })
  })

  it('a bodiless POST with a JSON content type is accepted (SDKs send one)', async () => {
    await t.request({
      method: 'POST',
      url: '/api/v2/groups/adversaries',
      headers: json,
      payload: JSON.stringify({ name: 'Tagged' }),
    })
    const group = (await t.request({ method: 'GET', url: '/api/v2/groups/adversaries' })).json().data.adversary[0]
    const res = await t.request({
      method: 'POST',
      url: `/api/v2/groups/adversaries/${group.id}/tags/APT`,
      headers: json,
      payload: '',
    })
    expect(res.statusCode).toBe(200)
  })

  it('badly encoded query strings and paths are 400s, not 500s', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v2/indicators/hosts/%E0%A4%A' })
    expect(res.statusCode).toBeGreaterThanOrEqual(400)
    expect(res.statusCode).toBeLessThan(500)
    expect(res.json().status).toBe('Error')
  })

  it('bad paging parameters name the parameter', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v2/owners?resultLimit=10001' })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({ status: 'Error', message: 'resultLimit must be between 1 and 10000, not 10001' })
    const start = await t.request({ method: 'GET', url: '/api/v2/owners?resultStart=-1' })
    expect(start.json()).toEqual({ status: 'Error', message: "resultStart must be a whole number, not '-1'" })
  })
})

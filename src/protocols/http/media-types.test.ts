import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, createTestApp } from '../../test/harness.js'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(async () => {
  await t.close()
})

const JSON_TYPE = 'application/json'

describe('Content-Type of REST replies', () => {
  it('is exactly application/json on v2 lists, items, no-body replies and errors', async () => {
    const list = await t.request({ method: 'GET', url: '/api/v2/owners' })
    expect(list.headers['content-type']).toBe(JSON_TYPE)
    expect(list.json().data.owner[0].name).toBe('Test Organization')
    const created = await t.request({
      method: 'POST',
      url: '/api/v2/indicators/hosts',
      payload: { hostName: 'media.example' },
    })
    expect(created.statusCode).toBe(201)
    expect(created.headers['content-type']).toBe(JSON_TYPE)
    const tagged = await t.request({
      method: 'POST',
      url: '/api/v2/indicators/hosts/media.example/tags/Blue',
      headers: { 'content-type': 'application/json' },
    })
    expect(tagged.headers['content-type']).toBe(JSON_TYPE)
    expect(tagged.json().status).toBe('Success')
    const missing = await t.request({ method: 'GET', url: '/api/v2/indicators/hosts/absent.example' })
    expect(missing.statusCode).toBe(404)
    expect(missing.headers['content-type']).toBe(JSON_TYPE)
    expect(missing.json().status).toBe('Error')
    const unknown = await t.request({ method: 'GET', url: '/api/v2/nothing/here' })
    expect([unknown.statusCode, unknown.headers['content-type']]).toEqual([404, JSON_TYPE])
    const bulk = await t.request({ method: 'GET', url: '/api/v2/indicators/bulk/json?runNow=true' })
    expect(bulk.headers['content-type']).toBe(JSON_TYPE)
  })

  it('is exactly application/json on v3 replies and on errors raised before routing', async () => {
    const v3 = await t.request({ method: 'GET', url: '/api/v3/indicators' })
    expect(v3.headers['content-type']).toBe(JSON_TYPE)
    const malformed = await t.request({
      method: 'POST',
      url: '/api/v3/tags',
      payload: '{"name":',
      headers: { 'content-type': 'application/json' },
    })
    expect([malformed.statusCode, malformed.headers['content-type']]).toEqual([400, JSON_TYPE])
    const badUrl = await t.request({ method: 'GET', url: '/api/v2/indicators/hosts/%E0%A4%A' })
    expect([badUrl.statusCode, badUrl.headers['content-type']]).toEqual([400, JSON_TYPE])
    const outside = await t.request({ method: 'GET', url: '/elsewhere' })
    expect([outside.statusCode, outside.headers['content-type']]).toEqual([404, JSON_TYPE])
  })

  it('accepts request bodies with or without a charset parameter', async () => {
    for (const [hostName, type] of [
      ['plain.example', 'application/json'],
      ['charset.example', 'application/json; charset=utf-8'],
      ['upper.example', 'application/json;charset=UTF-8'],
    ]) {
      const res = await t.request({
        method: 'POST',
        url: '/api/v2/indicators/hosts',
        payload: JSON.stringify({ hostName }),
        headers: { 'content-type': type },
      })
      expect(res.statusCode).toBe(201)
      expect(res.json().data.host.hostName).toBe(hostName)
      const v3 = await t.request({
        method: 'POST',
        url: '/api/v3/indicators',
        payload: JSON.stringify({ type: 'Host', hostName: `v3.${hostName}` }),
        headers: { 'content-type': type },
      })
      expect([v3.statusCode, v3.headers['content-type'], v3.json().data.hostName]).toEqual([
        201,
        JSON_TYPE,
        `v3.${hostName}`,
      ])
    }
  })

  it('keeps a charset on XML replies, which no SDK compares', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v2/owners', headers: { accept: 'application/xml' } })
    expect(res.headers['content-type']).toBe('application/xml; charset=utf-8')
  })
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, createTestApp } from '../../../test/harness.js'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(async () => {
  await t.close()
})

const post = (url: string, payload: object, as?: Parameters<TestApp['request']>[0]['as']) =>
  t.request({ method: 'POST', url: `/api/v2${url}`, payload, as })
const get = (url: string, headers?: Record<string, string>) =>
  t.request({ method: 'GET', url: `/api/v2${url}`, headers })

describe('POST /v2/indicators/{type}', () => {
  it('creates an Address with the per-type entity and 201', async () => {
    const res = await post('/indicators/addresses', {
      ip: '192.168.0.1',
      rating: 3.5,
      confidence: 60,
      description: 'seen in logs',
      source: 'sensor',
    })
    expect(res.statusCode).toBe(201)
    const address = res.json().data.address
    expect(address).toMatchObject({
      ownerName: 'Test Organization',
      owner: { id: 1, name: 'Test Organization', type: 'Organization' },
      type: 'Address',
      rating: 3.5,
      confidence: 60,
      threatAssessRating: 3.5,
      threatAssessConfidence: 60,
      ip: '192.168.0.1',
      summary: '192.168.0.1',
      description: 'seen in logs',
      source: 'sensor',
      webLink:
        'https://bulwark.test/auth/indicators/details/address.xhtml?address=192.168.0.1&owner=Test%20Organization',
    })
    expect(address.dateAdded).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
  })

  it("updates the owner's existing copy when the same Indicator is posted again (200, same id)", async () => {
    const first = (await post('/indicators/hosts', { hostName: 'Bad.Example.com', dnsActive: 'true' })).json().data.host
    const again = await post('/indicators/hosts', { hostName: 'bad.example.com', rating: 2, whoisActive: true })
    expect(again.statusCode).toBe(200)
    expect(again.json().data.host).toMatchObject({
      id: first.id,
      hostName: 'bad.example.com',
      rating: 2,
      dnsActive: 'true',
      whoisActive: 'true',
    })
  })

  it('creates custom types by their value labels', async () => {
    const res = await post('/indicators/registryKeys', {
      'Key Name': 'HKLM\\Software\\Run',
      'Value Name': 'evil',
      'Value Type': 'REG_SZ',
    })
    expect(res.statusCode).toBe(201)
    expect(res.json().data.registryKey).toMatchObject({
      type: 'Registry Key',
      summary: 'HKLM\\Software\\Run : evil : REG_SZ',
      'Value Type': 'REG_SZ',
    })
    const asn = await post('/indicators/asns', { 'AS Number': 'asn1234' })
    expect(asn.json().data.asn).toMatchObject({ 'AS Number': 'ASN1234' })
  })

  it('refuses a malformed value with a 400 naming the type', async () => {
    const res = await post('/indicators/addresses', { ip: 'not-an-ip' })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({ status: 'Error', message: "'not-an-ip' is not a valid ip for an Address Indicator" })
    const missing = await post('/indicators/hosts', { rating: 1 })
    expect(missing.json().message).toBe("A Host Indicator needs 'hostName'")
    const badType = await post('/indicators/registryKeys', { 'Key Name': 'k', 'Value Type': 'REG_WHATEVER' })
    expect(badType.json().message).toMatch(/REG_WHATEVER.*Registry Key/)
  })

  it('refuses out-of-range rating and confidence, and leaves nothing behind', async () => {
    expect((await post('/indicators/hosts', { hostName: 'r.example', rating: 6 })).json().message).toBe(
      'rating must be between 0 and 5, not 6',
    )
    expect((await post('/indicators/hosts', { hostName: 'r.example', confidence: 50.5 })).json().message).toMatch(
      /whole number/,
    )
    expect((await get('/indicators/hosts/r.example')).statusCode).toBe(404)
  })

  it('answers 404 for an unknown type branch', async () => {
    const res = await post('/indicators/widgets', { value: 'x' })
    expect(res.statusCode).toBe(404)
    expect(res.json().message).toMatch(/Unknown Indicator type 'widgets'/)
  })

  it('answers 401 to a read-only role and 403 for an owner the caller cannot use', async () => {
    const reader = await t.createAccount({ role: 'Read Only User' })
    const res = await post('/indicators/addresses', { ip: '10.1.1.1' }, reader)
    expect(res.statusCode).toBe(401)
    expect(res.json().message).toMatch(/permission to create data/)
    const other = await t.request({
      method: 'POST',
      url: '/api/v2/indicators/addresses?owner=Nobody%20Org',
      payload: { ip: '10.1.1.1' },
    })
    expect(other.statusCode).toBe(403)
  })
})

describe('Files: MD5, SHA-1 and SHA-256 of one file are one Indicator', () => {
  const md5 = 'a'.repeat(32)
  const sha1 = 'b'.repeat(40)
  const sha256 = 'c'.repeat(64)

  it('merges new hashes into the File that has one of them, and finds it by any hash', async () => {
    const first = (await post('/indicators/files', { md5, size: 100 })).json().data.file
    const merged = await post('/indicators/files', { md5: md5.toUpperCase(), sha256 })
    expect(merged.statusCode).toBe(200)
    expect(merged.json().data.file).toMatchObject({
      id: first.id,
      md5: md5.toUpperCase(),
      sha256: sha256.toUpperCase(),
      size: 100,
      summary: `${md5.toUpperCase()} : ${sha256.toUpperCase()}`,
    })
    const bySha = await get(`/indicators/files/${sha256}`)
    expect(bySha.json().data.file.id).toBe(first.id)
  })

  it('refuses hashes that belong to two different Files, and a second MD5 for one File', async () => {
    await post('/indicators/files', { sha1 })
    const res = await post('/indicators/files', { md5, sha1 })
    expect(res.statusCode).toBe(400)
    expect(res.json().message).toMatch(/2 different File Indicators/)
    const clash = await post('/indicators/files', { md5: 'd'.repeat(32), sha256 })
    expect(clash.statusCode).toBe(400)
    expect(clash.json().message).toMatch(/already has the MD5/)
  })
})

describe('GET, PUT and DELETE /v2/indicators/{type}/{indicator}', () => {
  const url = 'http://evil.example/path/to?x=1&y=2'

  it('reads a URL whose value is URL-encoded in the path (%2F)', async () => {
    await post('/indicators/urls', { text: url, rating: 1 })
    const res = await get(`/indicators/urls/${encodeURIComponent(url)}`)
    expect(res.statusCode).toBe(200)
    expect(res.json().data.url).toMatchObject({ text: url, summary: url, rating: 1 })
  })

  it('updates editable fields and refuses to change the value', async () => {
    const path = `/api/v2/indicators/urls/${encodeURIComponent(url)}`
    const res = await t.request({ method: 'PUT', url: path, payload: { rating: 4.5, confidence: 90, active: 0 } })
    expect(res.json().data.url).toMatchObject({ rating: 4.5, confidence: 90 })
    const change = await t.request({ method: 'PUT', url: path, payload: { text: 'http://other.example/' } })
    expect(change.statusCode).toBe(400)
    expect(change.json().message).toMatch(/cannot be changed/)
    await t.request({ method: 'PUT', url: path, payload: { active: true } })
  })

  it('shows counts and flags with includeAdditional', async () => {
    const res = await get('/indicators/addresses/192.168.0.1?includeAdditional=true')
    expect(res.json().data.address).toMatchObject({
      observationCount: 0,
      falsePositiveCount: 0,
      privateFlag: false,
      active: true,
      activeLocked: false,
    })
  })

  it('answers 404 for an Indicator the owner does not hold', async () => {
    const res = await get('/indicators/addresses/10.9.9.9')
    expect(res.statusCode).toBe(404)
    expect(res.json()).toEqual({
      status: 'Error',
      message: "Address Indicator '10.9.9.9' not found in Test Organization",
    })
  })

  it('deletes an Indicator and lists it under /deleted', async () => {
    await post('/indicators/mutexes', { Mutex: 'Global\\gone' })
    const del = await t.request({
      method: 'DELETE',
      url: `/api/v2/indicators/mutexes/${encodeURIComponent('Global\\gone')}`,
    })
    expect(del.json()).toEqual({ apiCalls: 1, resultCount: 0, status: 'Success' })
    expect((await get(`/indicators/mutexes/${encodeURIComponent('Global\\gone')}`)).statusCode).toBe(404)
    const deleted = (await get('/indicators/mutexes/deleted')).json().data
    expect(deleted.resultCount).toBe(1)
    expect(deleted.indicator[0]).toMatchObject({
      ownerName: 'Test Organization',
      type: 'Mutex',
      summary: 'Global\\gone',
    })
    expect((await get('/indicators/deleted')).json().data.resultCount).toBe(1)
  })
})

describe('GET /v2/indicators lists', () => {
  it('lists all types under `indicator`, and one type under its entity', async () => {
    const all = (await get('/indicators')).json().data
    expect(all.resultCount).toBeGreaterThanOrEqual(5)
    expect(all.indicator.every((i: { summary?: string }) => typeof i.summary === 'string')).toBe(true)
    const hosts = (await get('/indicators/hosts')).json().data
    expect(hosts).toMatchObject({ resultCount: 1, host: [{ hostName: 'bad.example.com' }] })
  })

  it('applies filters, orParams and paging (resultCount only on the first page)', async () => {
    const rated = (await get('/indicators?filters=rating%3E3')).json().data
    expect(rated.indicator.map((i: { summary: string }) => i.summary).sort()).toEqual([
      '192.168.0.1',
      'http://evil.example/path/to?x=1&y=2',
    ])
    const either = (await get('/indicators?filters=summary%5E192.,summary%3Dbad.example.com&orParams=true')).json().data
    expect(either.resultCount).toBe(2)
    const normalized = (await get('/indicators/hosts?filters=summary%3DBAD.Example.com')).json().data
    expect(normalized.host[0].hostName).toBe('bad.example.com')
    // Without a type the value is compared as given: exactly, though read through the lower(summary) index.
    expect((await get('/indicators?filters=summary%3Dbad.example.com')).json().data.resultCount).toBe(1)
    expect((await get('/indicators?filters=summary%3DBAD.Example.com')).json().data.resultCount).toBe(0)
    // A prefix likewise: as given, read through the lower(summary) index; LIKE's wildcards are plain characters.
    const prefixed = async (prefix: string) =>
      (await get(`/indicators?filters=${encodeURIComponent(`summary^${prefix}`)}`)).json().data.resultCount
    expect(await prefixed('bad.exa')).toBe(1)
    expect(await prefixed('BAD.exa')).toBe(0)
    expect(await prefixed('bad_exa')).toBe(0)
    expect(await prefixed('ba%')).toBe(0)
    expect(await prefixed('http://evil.example/path/to?x=1&y')).toBe(1)
    const second = (await get('/indicators?resultStart=1&resultLimit=1')).json().data
    expect(second.resultCount).toBeUndefined()
    expect(second.indicator).toHaveLength(1)
  })

  it('lists active Indicators only unless a filter names active', async () => {
    await post('/indicators/hosts', { hostName: 'quiet.example', active: false })
    expect((await get('/indicators/hosts')).json().data.resultCount).toBe(1)
    expect((await get('/indicators/hosts?filters=active%3Dfalse')).json().data.host[0].hostName).toBe('quiet.example')
    expect(
      (await get('/indicators/hosts?filters=active%3Dtrue,active%3Dfalse&orParams=true')).json().data.resultCount,
    ).toBe(2)
  })

  it('refuses an unknown filter, an operator the filter does not take, and a bad value', async () => {
    const unknown = await get('/indicators?filters=colour%3Dred')
    expect(unknown.statusCode).toBe(400)
    expect(unknown.json().message).toMatch(/Unknown filter 'colour' for Indicators/)
    const op = await get('/indicators?filters=rating%3D3')
    expect(op.json().message).toBe('Filter rating takes the operators < >, not =')
    expect((await get('/indicators?filters=dateAdded%3Eyesterday')).json().message).toMatch(/ISO 8601/)
    expect((await get('/indicators/hosts?filters=city%3DParis')).json().message).toBe(
      'Filter city applies to Address Indicators only',
    )
  })

  it('answers in XML when asked', async () => {
    const res = await get('/indicators/addresses', { accept: 'application/xml' })
    expect(res.headers['content-type']).toMatch(/application\/xml/)
    expect(res.body).toContain('<addressesResponse><Status>Success</Status>')
    expect(res.body).toContain('<Ip>192.168.0.1</Ip>')
  })

  it('accepts an XML body', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/api/v2/indicators/addresses',
      headers: { 'content-type': 'application/xml', accept: 'application/xml' },
      payload: '<Address><Ip>10.20.30.40</Ip><Rating>2</Rating></Address>',
    })
    expect(res.statusCode).toBe(201)
    expect(res.body).toContain('<addressResponse><Status>Success</Status>')
    expect(res.body).toContain('<Rating>2</Rating>')
  })
})

/**
 * The v3 framework as clients meet it: envelopes and media type, paging links, count,
 * sorting, fields, OPTIONS descriptors, parameter errors, owner scoping and bulk delete.
 * Tags and cases serve as the vehicles.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, ORG, PUBLIC_URL, type TestApp, type TestAccount } from '../../test/harness.js'

let t: TestApp
let reader: TestAccount

async function json(res: { statusCode: number; body: string }) {
  return { status: res.statusCode, body: JSON.parse(res.body) }
}

beforeAll(async () => {
  t = await createTestApp()
  reader = await t.createAccount({ role: 'Read Only User' })
  for (const name of ['alpha', 'bravo', 'charlie', 'delta', 'echo']) {
    const res = await t.request({
      method: 'POST',
      url: '/api/v3/tags',
      payload: { name, description: name === 'charlie' ? null : `about ${name}` },
    })
    expect(res.statusCode).toBe(201)
  }
})
afterAll(async () => {
  await t.close()
})

describe('envelopes', () => {
  it('answers with exactly application/json, data and status', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v3/tags?resultLimit=1' })
    expect(res.headers['content-type']).toBe('application/json')
    const body = JSON.parse(res.body)
    expect(body.status).toBe('Success')
    expect(body.data).toHaveLength(1)
    expect(body.data[0]).toMatchObject({ id: 1, name: 'alpha', owner: ORG, description: 'about alpha' })
  })

  it('reports errors as {errCode, message, status} with the same media type', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v3/tags/999' })
    expect(res.statusCode).toBe(404)
    expect(res.headers['content-type']).toBe('application/json')
    expect(JSON.parse(res.body)).toEqual({ errCode: '0x1007', message: 'Tag 999 not found', status: 'Error' })
  })

  it('accepts the {} body tcex sends with GET and DELETE, and OPTIONS with a JSON type but no body', async () => {
    expect((await t.request({ method: 'GET', url: '/api/v3/tags/1', payload: '{}' })).statusCode).toBe(200)
    const id = JSON.parse(
      (await t.request({ method: 'POST', url: '/api/v3/tags', payload: { name: 'short-lived' } })).body,
    ).data.id
    expect((await t.request({ method: 'DELETE', url: `/api/v3/tags/${id}`, payload: '{}' })).statusCode).toBe(200)
    const options = await t.request({
      method: 'OPTIONS',
      url: '/api/v3/tags',
      headers: { 'content-type': 'application/json', 'content-length': '0' },
    })
    expect(options.statusCode).toBe(200)
  })

  it('refuses a malformed JSON body with 400', async () => {
    const res = await json(
      await t.request({
        method: 'POST',
        url: '/api/v3/tags',
        payload: '{"name":',
        headers: { 'content-type': 'application/json' },
      }),
    )
    expect(res.status).toBe(400)
    expect(res.body.message).toMatch(/Malformed JSON/)
  })
})

describe('paging', () => {
  it('gives next with the same query, the following resultStart and the same resultLimit', async () => {
    const res = await json(
      await t.request({ method: 'GET', url: '/api/v3/tags?resultLimit=2&fields=&tql=name%20!%3D%20%22zulu%22' }),
    )
    expect(res.body.data.map((d: { name: string }) => d.name)).toEqual(['alpha', 'bravo'])
    expect(res.body.prev).toBeUndefined()
    const next = new URL(res.body.next)
    expect(`${next.origin}${next.pathname}`).toBe(`${PUBLIC_URL}/api/v3/tags`)
    expect(next.searchParams.get('resultStart')).toBe('2')
    expect(next.searchParams.get('resultLimit')).toBe('2')
    expect(next.searchParams.get('tql')).toBe('name != "zulu"')
  })

  it('follows next to the end, with prev on later pages and no next on the last', async () => {
    const names: string[] = []
    let url: string | undefined = '/api/v3/tags?resultLimit=2'
    let pages = 0
    while (url) {
      const res = await json(await t.request({ method: 'GET', url: url.replace(PUBLIC_URL, '') }))
      names.push(...res.body.data.map((d: { name: string }) => d.name))
      if (pages > 0) expect(new URL(res.body.prev).searchParams.get('resultStart')).toBe(String((pages - 1) * 2))
      url = res.body.next
      pages++
    }
    expect(pages).toBe(3)
    expect(names).toEqual(['alpha', 'bravo', 'charlie', 'delta', 'echo'])
  })

  it('adds count only with count=true (any case, as tcex sends True) and resultStart 0', async () => {
    expect(
      (await json(await t.request({ method: 'GET', url: '/api/v3/tags?resultLimit=1&count=True' }))).body.count,
    ).toBe(5)
    expect(
      (await json(await t.request({ method: 'GET', url: '/api/v3/tags?resultLimit=1' }))).body.count,
    ).toBeUndefined()
    expect(
      (await json(await t.request({ method: 'GET', url: '/api/v3/tags?resultStart=1&count=true' }))).body.count,
    ).toBeUndefined()
  })

  it.each([
    ['resultLimit=10001', /resultLimit must be between 1 and 10000/],
    ['resultLimit=0', /resultLimit must be between 1 and 10000/],
    ['resultLimit=ten', /resultLimit must be a whole number/],
    ['resultStart=-1', /resultStart must be a whole number/],
    ['count=maybe', /count must be true or false/],
  ])('refuses %s with 400', async (param, message) => {
    const res = await json(await t.request({ method: 'GET', url: `/api/v3/tags?${param}` }))
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ errCode: '0x1001', status: 'Error' })
    expect(res.body.message).toMatch(message)
  })
})

describe('sorting and TQL', () => {
  it('sorts by TQL keywords, later pairs within earlier ones', async () => {
    const res = await json(
      await t.request({ method: 'GET', url: `/api/v3/tags?sorting=${encodeURIComponent('name desc')}` }),
    )
    expect(res.body.data.map((d: { name: string }) => d.name)).toEqual(['echo', 'delta', 'charlie', 'bravo', 'alpha'])
    const nulls = await json(
      await t.request({
        method: 'GET',
        url: `/api/v3/tags?sorting=${encodeURIComponent('description nullsfirst name asc')}`,
      }),
    )
    expect(nulls.body.data[0].name).toBe('charlie')
  })

  it('filters with TQL', async () => {
    const res = await json(
      await t.request({ method: 'GET', url: `/api/v3/tags?tql=${encodeURIComponent('name in ("bravo", "delta")')}` }),
    )
    expect(res.body.data.map((d: { name: string }) => d.name)).toEqual(['bravo', 'delta'])
  })

  it('refuses an unknown sorting keyword and bad TQL with 400', async () => {
    const sort = await json(await t.request({ method: 'GET', url: '/api/v3/tags?sorting=color%20asc' }))
    expect(sort.status).toBe(400)
    expect(sort.body.message).toMatch(/color/)
    const tql = await json(await t.request({ method: 'GET', url: `/api/v3/tags?tql=${encodeURIComponent('name = ')}` }))
    expect(tql.status).toBe(400)
    expect(tql.body).toMatchObject({ errCode: '0x1001', status: 'Error' })
    expect(tql.body.message).toMatch(/TQL/)
  })

  it('refuses TQL on an endpoint without it', async () => {
    const res = await json(await t.request({ method: 'GET', url: '/api/v3/attributeTypes?tql=id%20%3D%201' }))
    expect(res.status).toBe(400)
  })
})

describe('fields', () => {
  it('refuses a fields value the endpoint does not offer', async () => {
    const res = await json(await t.request({ method: 'GET', url: '/api/v3/cases?fields=bogus' }))
    expect(res.status).toBe(400)
    expect(res.body.message).toMatch(/'bogus' is not available on \/v3\/cases/)
  })
})

describe('OPTIONS', () => {
  it('describes settable fields, and read-only ones with show=readOnly', async () => {
    const plain = (await json(await t.request({ method: 'OPTIONS', url: '/api/v3/cases' }))).body
    expect(plain.name).toEqual({ description: 'The name of the Case', required: true, type: 'String' })
    expect(plain.tags).toEqual({ data: [expect.objectContaining({ type: 'Tag', required: false })] })
    expect(plain.dateAdded).toBeUndefined()
    const all = (await json(await t.request({ method: 'OPTIONS', url: '/api/v3/cases?show=readOnly' }))).body
    expect(all.dateAdded).toMatchObject({ 'read-only': true, type: 'Date' })
  })

  it('lists fields= values with name, description and includedByDefault', async () => {
    const res = (await json(await t.request({ method: 'OPTIONS', url: '/api/v3/cases/fields' }))).body
    expect(res.status).toBe('Success')
    expect(res.count).toBe(res.data.length)
    expect(res.data.map((f: { name: string }) => f.name)).toEqual([
      'associatedArtifacts',
      'associatedCases',
      'associatedGroups',
      'associatedIndicators',
      'attributes',
      'securityLabels',
      'tags',
    ])
    expect(res.data[0]).toEqual({
      name: 'associatedArtifacts',
      description: 'Includes artifacts associated with the case',
      includedByDefault: false,
    })
  })

  it('lists TQL keywords', async () => {
    const res = (await json(await t.request({ method: 'OPTIONS', url: '/api/v3/tags/tql' }))).body
    expect(res.count).toBe(21)
    expect(res.data.find((k: { keyword: string }) => k.keyword === 'techniqueId')).toMatchObject({
      name: 'Technique ID',
      type: 'String',
    })
    expect((await json(await t.request({ method: 'OPTIONS', url: '/api/v3/attributeTypes/tql' }))).body).toEqual({
      data: [],
      count: 0,
      status: 'Success',
    })
  })
})

describe('owners and permissions', () => {
  it('lists across readable owners by default and only the named owner with owner=', async () => {
    await t.createOwner('Shared Community', 'Community')
    const member = await t.createAccount({ role: 'Standard User', memberships: { 'Shared Community': 'Editor' } })
    const res = await t.request({
      method: 'POST',
      url: `/api/v3/tags?owner=${encodeURIComponent('Shared Community')}`,
      payload: { name: 'community-tag' },
      as: member,
    })
    expect(res.statusCode).toBe(201)
    expect(JSON.parse(res.body).data.owner).toBe('Shared Community')
    const all = (await json(await t.request({ method: 'GET', url: '/api/v3/tags?count=true', as: member }))).body
    expect(all.count).toBe(6)
    const only = (
      await json(
        await t.request({
          method: 'GET',
          url: `/api/v3/tags?owner=${encodeURIComponent('Shared Community')}`,
          as: member,
        }),
      )
    ).body
    expect(only.data.map((d: { name: string }) => d.name)).toEqual(['community-tag'])
    // The administrator is no member of the community: its tags stay invisible.
    expect((await json(await t.request({ method: 'GET', url: '/api/v3/tags?count=true' }))).body.count).toBe(5)
  })

  it('answers 403 for an owner the caller cannot access', async () => {
    const res = await json(await t.request({ method: 'GET', url: '/api/v3/tags?owner=Nowhere' }))
    expect(res.status).toBe(403)
    expect(res.body.errCode).toBe('0x1002')
  })

  it('answers 401 when a read-only member writes', async () => {
    const res = await json(
      await t.request({ method: 'POST', url: '/api/v3/tags', payload: { name: 'nope' }, as: reader }),
    )
    expect(res.status).toBe(401)
    expect(res.body.message).toMatch(/permission/)
  })

  it('answers 400 for writes to a read-only endpoint', async () => {
    const res = await json(await t.request({ method: 'POST', url: '/api/v3/securityLabels', payload: { name: 'X' } }))
    expect(res.status).toBe(400)
    expect(res.body.message).toMatch(/read-only/)
  })
})

describe('bulk delete', () => {
  it('is refused while bulkDeleteEnabled is off, and deletes every match in one go when on', async () => {
    const url = `/api/v3/tags?tql=${encodeURIComponent('name in ("delta", "echo")')}`
    const refused = await json(await t.request({ method: 'DELETE', url }))
    expect(refused.status).toBe(400)
    expect(refused.body.message).toMatch(/Bulk delete is disabled/)
    await t.services.settings.set('bulkDeleteEnabled', 'true')
    try {
      expect((await json(await t.request({ method: 'DELETE', url: '/api/v3/tags' }))).status).toBe(400)
      const done = await json(await t.request({ method: 'DELETE', url }))
      expect(done).toEqual({ status: 200, body: { count: 2, message: 'Deleted', status: 'Success' } })
      const left = (await json(await t.request({ method: 'GET', url: '/api/v3/tags' }))).body.data.map(
        (d: { name: string }) => d.name,
      )
      expect(left).toEqual(['alpha', 'bravo', 'charlie'])
    } finally {
      await t.services.settings.set('bulkDeleteEnabled', 'false')
    }
  })
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isoNow } from '../../../core/time.js'
import { ORG, PUBLIC_URL, type TestAccount, type TestApp, createTestApp } from '../../../test/harness.js'
import { createTestGroup } from '../../../test/factories.js'

let t: TestApp
let reader: TestAccount
let orgId: number
const now = isoNow()

async function tagItems(tagName: string, kind: string, ids: number[]) {
  const tag = await t.store.db
    .selectFrom('tag')
    .select('id')
    .where('owner_id', '=', orgId)
    .where('name', '=', tagName)
    .executeTakeFirstOrThrow()
  for (const id of ids)
    await t.store.db
      .insertInto('item_tag')
      .values({ tag_id: tag.id, item_kind: kind, item_id: id, date_added: now })
      .execute()
}
async function insertGroup(type: string, name: string) {
  return createTestGroup(t, { ownerId: orgId, type, name })
}

beforeAll(async () => {
  t = await createTestApp()
  orgId = (await t.store.db.selectFrom('owner').select('id').where('name', '=', ORG).executeTakeFirstOrThrow()).id
  reader = await t.createAccount({ role: 'Read Only User' })
  for (const name of ['Nation State', 'Europe', 'APT 28', 'APT 29']) {
    expect((await t.request({ method: 'POST', url: '/api/v2/tags', payload: { name } })).statusCode).toBe(201)
  }
  const [g1, g2, g3] = [
    await insertGroup('Incident', 'One'),
    await insertGroup('Threat', 'Two'),
    await insertGroup('Incident', 'Three'),
  ]
  await tagItems('Nation State', 'group', [g1, g2, g3])
  await tagItems('APT 28', 'group', [g1])
})
afterAll(async () => {
  await t.close()
})

describe('POST /v2/tags', () => {
  it('holds a description to the limit v3 holds it to (65,500 characters), on both APIs', async () => {
    const long = 'd'.repeat(65_501)
    const v2 = await t.request({ method: 'POST', url: '/api/v2/tags', payload: { name: 'Long v2', description: long } })
    expect(v2.statusCode).toBe(400)
    expect(v2.json().message).toBe('description is longer than 65500 characters')
    const v3 = await t.request({ method: 'POST', url: '/api/v3/tags', payload: { name: 'Long v3', description: long } })
    expect(v3.statusCode).toBe(400)
    expect(v3.json().message).toBe('description is longer than 65500 characters')
    expect(
      (
        await t.request({
          method: 'POST',
          url: '/api/v2/tags',
          payload: { name: 'Long v2', description: long.slice(1) },
        })
      ).statusCode,
    ).toBe(201)
    expect((await t.request({ method: 'DELETE', url: '/api/v2/tags/Long%20v2' })).statusCode).toBe(200)
  })

  it('creates a tag, then sets the description of the existing one', async () => {
    const created = await t.request({
      method: 'POST',
      url: '/api/v2/tags',
      payload: { name: 'MyTag', description: 'my description' },
    })
    expect(created.statusCode).toBe(201)
    expect(created.json()).toEqual({
      status: 'Success',
      data: {
        tag: {
          name: 'MyTag',
          description: 'my description',
          webLink: `${PUBLIC_URL}/auth/tags/tag.xhtml?tag=MyTag&owner=Test%20Organization`,
          weight: 0,
        },
      },
    })
    const again = await t.request({
      method: 'POST',
      url: '/api/v2/tags',
      payload: { name: 'MyTag', description: 'new' },
    })
    expect(again.statusCode).toBe(200)
    expect(again.json().data.tag.description).toBe('new')
  })

  it('refuses a name over 128 characters with 400', async () => {
    const res = await t.request({ method: 'POST', url: '/api/v2/tags', payload: { name: 'x'.repeat(129) } })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({ status: 'Error', message: 'Tag names are at most 128 characters' })
  })

  it('refuses a missing name with 400 and a Read Only User with 401', async () => {
    expect((await t.request({ method: 'POST', url: '/api/v2/tags', payload: { description: 'x' } })).statusCode).toBe(
      400,
    )
    expect(
      (await t.request({ method: 'POST', url: '/api/v2/tags', payload: { name: 'ro' }, as: reader })).statusCode,
    ).toBe(401)
  })
})

describe('GET /v2/tags', () => {
  it('lists tags by name with their weight; descriptions only when detailed', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v2/tags', as: reader })
    const tags = res.json().data.tag as { name: string; weight: number; description?: string }[]
    expect(tags.map((x) => [x.name, x.weight])).toEqual([
      ['APT 28', 1],
      ['APT 29', 0],
      ['Europe', 0],
      ['MyTag', 0],
      ['Nation State', 3],
    ])
    expect(tags.find((x) => x.name === 'MyTag')!.description).toBeUndefined()
    const detailed = await t.request({ method: 'GET', url: '/api/v2/tags?detailed=true&filters=name%3DMyTag' })
    expect(detailed.json().data.tag).toEqual([expect.objectContaining({ name: 'MyTag', description: 'new' })])
  })

  it('filters by name ^ and weight > (AND), or either with orParams', async () => {
    const and = await t.request({ method: 'GET', url: '/api/v2/tags?filters=name%5EAPT,weight%3E0' })
    expect(and.json().data).toMatchObject({ resultCount: 1, tag: [{ name: 'APT 28' }] })
    const or = await t.request({ method: 'GET', url: '/api/v2/tags?filters=name%5EAPT,weight%3E2&orParams=true' })
    expect(or.json().data.tag.map((x: { name: string }) => x.name)).toEqual(['APT 28', 'APT 29', 'Nation State'])
  })

  it('pages, leaving resultCount out past the first page', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v2/tags?resultStart=1&resultLimit=2' })
    expect(res.json().data).toEqual({
      tag: [expect.objectContaining({ name: 'APT 29' }), expect.objectContaining({ name: 'Europe' })],
    })
  })

  it('rejects a weight filter with ^ and a non-numeric weight with 400', async () => {
    expect((await t.request({ method: 'GET', url: '/api/v2/tags?filters=weight%5E1' })).statusCode).toBe(400)
    expect((await t.request({ method: 'GET', url: '/api/v2/tags?filters=weight%3Emany' })).statusCode).toBe(400)
  })

  it('answers in XML when asked', async () => {
    const res = await t.request({
      method: 'GET',
      url: '/api/v2/tags?filters=name%3DEurope',
      headers: { accept: 'application/xml' },
    })
    expect(res.body).toContain('<Tag><Name>Europe</Name>')
  })
})

describe('GET /v2/tags/{name}', () => {
  it('finds a URL-encoded, case-sensitive name', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v2/tags/Nation%20State' })
    expect(res.json().data.tag).toMatchObject({ name: 'Nation State', weight: 3 })
    expect((await t.request({ method: 'GET', url: '/api/v2/tags/nation%20state' })).statusCode).toBe(404)
  })

  it('decodes reserved characters in the name', async () => {
    await t.request({ method: 'POST', url: '/api/v2/tags', payload: { name: 'C2/Beacon+1' } })
    const res = await t.request({ method: 'GET', url: '/api/v2/tags/C2%2FBeacon%2B1' })
    expect(res.statusCode).toBe(200)
    expect(res.json().data.tag.name).toBe('C2/Beacon+1')
    await t.request({ method: 'DELETE', url: '/api/v2/tags/C2%2FBeacon%2B1' })
  })

  it('lists the Groups carrying a tag, by type and by id', async () => {
    const all = await t.request({ method: 'GET', url: '/api/v2/tags/Nation%20State/groups' })
    expect(all.json().data.resultCount).toBe(3)
    const incidents = await t.request({ method: 'GET', url: '/api/v2/tags/Nation%20State/groups/incidents' })
    expect(incidents.json().data.incident.map((g: { name: string }) => g.name)).toEqual(['One', 'Three'])
    const id = incidents.json().data.incident[0].id
    const one = await t.request({ method: 'GET', url: `/api/v2/tags/APT%2028/groups/incidents/${id}` })
    expect(one.json().data.incident).toMatchObject({ id, name: 'One', type: 'Incident' })
    const victims = await t.request({ method: 'GET', url: '/api/v2/tags/Nation%20State/victims' })
    expect(victims.json().data).toEqual({ resultCount: 0, victim: [] })
  })
})

describe('PUT /v2/tags/{name}', () => {
  it('changes the description and renames, keeping the tagged items', async () => {
    const res = await t.request({
      method: 'PUT',
      url: '/api/v2/tags/APT%2028',
      payload: { name: 'Fancy Bear', description: 'aka APT 28' },
    })
    expect(res.statusCode).toBe(200)
    expect(res.json().data.tag).toMatchObject({ name: 'Fancy Bear', description: 'aka APT 28', weight: 1 })
    expect((await t.request({ method: 'GET', url: '/api/v2/tags/APT%2028' })).statusCode).toBe(404)
  })

  it('refuses renaming onto an existing tag with 400, and an unknown tag with 404', async () => {
    expect(
      (await t.request({ method: 'PUT', url: '/api/v2/tags/Fancy%20Bear', payload: { name: 'Europe' } })).statusCode,
    ).toBe(400)
    expect(
      (await t.request({ method: 'PUT', url: '/api/v2/tags/Nope', payload: { description: 'x' } })).statusCode,
    ).toBe(404)
  })
})

describe('DELETE /v2/tags/{name}', () => {
  it('removes the tag from every item', async () => {
    expect((await t.request({ method: 'DELETE', url: '/api/v2/tags/Nation%20State', as: reader })).statusCode).toBe(401)
    const res = await t.request({ method: 'DELETE', url: '/api/v2/tags/Nation%20State' })
    expect(res.json()).toEqual({ apiCalls: 1, resultCount: 0, status: 'Success' })
    const links = await t.store.db.selectFrom('item_tag').select('item_id').execute()
    expect(links).toHaveLength(1)
    expect((await t.request({ method: 'DELETE', url: '/api/v2/tags/Nation%20State' })).statusCode).toBe(404)
  })
})

import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ORG, type TestAccount, type TestApp, createTestApp } from '../../test/harness.js'
import { stixSchemaErrors, stixSchemasUnavailable } from '../../test/stix-schemas.js'
import { StixIds } from '../../formats/stix2/stix.js'

const V2 = '/api/services/taxii/v2/taxii'
const V1 = '/api/services/taxii/v1'
const MEDIA = 'application/taxii+json;version=2.1'
const TLP1 = [
  '613f2e26-407d-48c7-9eca-b8e91df99dc9',
  '34098fce-860f-48ae-8e50-ebd3cc5e41da',
  'f88d31f6-486f-44da-b317-01333bde0b82',
  '5e57c739-391a-4eb3-b6be-7d15ca92d5ed',
].map((u) => `marking-definition--${u}`)
const AMBER_STRICT = 'marking-definition--939a9414-2ddd-4d32-a0cd-375ea402b003'

let t: TestApp
let reader: TestAccount
let ids: StixIds
const owners: Record<string, number> = {}
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`
let readerAuth: string

interface Call {
  as?: string | null
  accept?: string | null
  headers?: Record<string, string>
  method?: 'GET' | 'POST' | 'DELETE' | 'PUT'
}

function taxii(url: string, o: Call = {}): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { 'x-forwarded-proto': 'https', ...o.headers }
  const auth = o.as === undefined ? readerAuth : o.as
  if (auth !== null) headers.authorization = auth
  if (o.accept !== null) headers.accept = o.accept ?? MEDIA
  return t.app.inject({ method: o.method ?? 'GET', url, headers })
}

async function ok(url: string, o: Call = {}) {
  const res = await taxii(url, o)
  expect(res.statusCode, `${url}: ${res.body}`).toBe(200)
  expect(res.headers['content-type']).toBe(MEDIA)
  return res
}

function expectError(res: LightMyRequestResponse, status: number) {
  expect(res.statusCode, res.body).toBe(status)
  expect(res.headers['content-type']).toBe(MEDIA)
  const body = res.json()
  expect(Object.keys(body).sort()).toEqual(['description', 'http_status', 'title'])
  expect(body.http_status).toBe(String(status))
  expect(body.description).not.toMatch(/\bat .*\.ts:\d+/)
  return body
}

const v2post = (url: string, payload: object, owner = ORG) =>
  t.request({
    method: 'POST',
    url: `/api/v2${url}${url.includes('?') ? '&' : '?'}owner=${encodeURIComponent(owner)}`,
    payload,
  })

async function walk(base: string, limit: number, query = '', maxPages = 1000) {
  const objects: { id: string; type: string; modified?: string }[] = []
  const pages: LightMyRequestResponse[] = []
  let next: string | undefined
  for (let i = 0; i < maxPages; i++) {
    const res = await ok(`${base}?limit=${limit}${query}${next ? `&next=${encodeURIComponent(next)}` : ''}`)
    pages.push(res)
    const body = res.json()
    expect((body.objects ?? []).length).toBeLessThanOrEqual(limit)
    objects.push(...(body.objects ?? []))
    if (!body.more) return { objects, pages }
    next = body.next
    expect(typeof next).toBe('string')
  }
  throw new Error('walk did not end')
}

beforeAll(async () => {
  t = await createTestApp()
  ids = new StixIds(t.services.installationId)
  owners.org = (await t.store.db.selectFrom('owner').select('id').where('name', '=', ORG).executeTakeFirstOrThrow()).id
  for (const [name, type] of [
    ['Intel Community', 'Community'],
    ['Feed Source', 'Source'],
    ['Banned Community', 'Community'],
    ['Hidden Community', 'Community'],
    ['Empty Source', 'Source'],
  ] as const)
    owners[name] = await t.createOwner(name, type)
  const writer = await t.createAccount({
    role: 'Standard User',
    memberships: { 'Intel Community': 'Editor', 'Hidden Community': 'Editor', 'Feed Source': 'Editor' },
  })
  reader = await t.createAccount({
    kind: 'taxii',
    password: 'reader-password',
    memberships: {
      'Intel Community': 'Subscriber',
      'Feed Source': 'User',
      'Banned Community': 'Banned',
      'Empty Source': 'Subscriber',
    },
  })
  readerAuth = basic(reader.userName, 'reader-password')

  const created = [
    ['addresses', { ip: '198.51.100.7', rating: 4, confidence: 90, description: 'C2' }],
    ['addresses', { ip: '2001:db8::7', rating: 1 }],
    ['emailAddresses', { address: "o'brien@example.com" }],
    [
      'files',
      {
        md5: 'd41d8cd98f00b204e9800998ecf8427e',
        sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      },
    ],
    ['hosts', { hostName: 'bad.example', rating: 5 }],
    ['urls', { text: "http://bad.example/a'b\\c?ü" }],
    ['asns', { 'AS Number': 'AS174' }],
    ['cidrBlocks', { Block: '10.10.1.0/24' }],
    ['mutexes', { Mutex: "Global\\it's 🦠" }],
    [
      'registryKeys',
      { 'Key Name': 'HKLM\\Software\\Run', 'Value Name': 'evil', 'Value Type': 'REG_QWORD_LITTLE_ENDIAN' },
    ],
    ['userAgents', { 'User Agent String': 'Mozilla/5.0 ("bot"; it\'s)' }],
  ] as const
  for (const [branch, body] of created) expect((await v2post(`/indicators/${branch}`, body)).statusCode).toBe(201)
  expect((await v2post('/indicators/hosts/bad.example/tags/APT%2028', {})).statusCode).toBe(200)
  expect((await v2post('/indicators/hosts/bad.example/securityLabels/TLP%3AAMBER%2BSTRICT', {})).statusCode).toBe(200)
  expect((await v2post('/indicators/hosts/bad.example/securityLabels/TLP%3AGREEN', {})).statusCode).toBe(200)
  expect((await v2post('/indicators/addresses/198.51.100.7/securityLabels/TLP%3ARED', {})).statusCode).toBe(200)
  for (const host of ['one.example', 'two.example', 'three.example']) {
    const res = await t.request({
      method: 'POST',
      url: '/api/v2/indicators/hosts?owner=Intel%20Community',
      payload: { hostName: host },
      as: writer,
    })
    expect(res.statusCode).toBe(201)
  }
  await t.request({
    method: 'POST',
    url: '/api/v2/indicators/hosts?owner=Hidden%20Community',
    payload: { hostName: 'hidden.example' },
    as: writer,
  })
})
afterAll(() => t.close())

describe('discovery and API root', () => {
  it.each([
    [V2, '2.0'],
    [V1, '1.0'],
  ])('%s/taxii2 lists the API root as an absolute URL (application %s)', async (base) => {
    for (const path of [`${base}/taxii2`, `${base}/taxii2/`]) {
      const body = (await ok(path)).json()
      expect(Object.keys(body).sort()).toEqual(['api_roots', 'contact', 'default', 'description', 'title'])
      expect(body.api_roots).toEqual([`https://bulwark.test${base}/svc_taxii/`])
      expect(body.default).toBe(body.api_roots[0])
    }
  })

  it.each([V2, V1])('%s API root answers under both path words, with the real body limit', async (base) => {
    for (const path of [`${base}/svc_taxii`, `${base}/svc_taxii/`, `${base}/tc_taxii/`]) {
      expect((await ok(path)).json()).toEqual({
        title: 'Bulwark',
        description: 'Indicators of the owners this account may read, as STIX 2.1',
        versions: ['application/taxii+json;version=2.1'],
        max_content_length: 5 * 1024 * 1024,
      })
    }
  })
})

describe('collections', () => {
  it('lists one collection per readable owner, sorted by id, with the fields of application 2.0', async () => {
    const body = (await ok(`${V2}/svc_taxii/collections/`)).json()
    const names = body.collections.map((c: { title: string }) => c.title)
    expect([...names].sort()).toEqual(['Empty Source', 'Feed Source', 'Intel Community', ORG].sort())
    const collectionIds = body.collections.map((c: { id: string }) => c.id)
    expect(collectionIds).toEqual([...collectionIds].sort())
    const org = body.collections.find((c: { title: string }) => c.title === ORG)
    expect(org).toEqual({
      id: ids.collection(owners.org),
      title: ORG,
      description: `Indicators of ${ORG} (Organization)`,
      alias: ORG,
      type: 'Organization',
      can_read: true,
      can_write: false,
      media_types: ['application/stix+json;version=2.1'],
      x_custom_mappings: {},
      x_custom_ttl: {},
      x_custom: false,
      x_tql: `ownerName = "${ORG}"`,
    })
    expect(org.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  })

  it('has the fields of application 1.0 there', async () => {
    const body = (await ok(`${V1}/tc_taxii/collections`)).json()
    const source = body.collections.find((c: { title: string }) => c.title === 'Feed Source')
    expect(source).toEqual({
      id: ids.collection(owners['Feed Source']),
      title: 'Feed Source',
      description: 'Indicators of Feed Source (Source)',
      alias: 'Feed Source',
      type: 'Source',
      can_read: true,
      can_write: false,
      media_types: ['application/stix+json;version=2.1'],
    })
  })

  it('finds a collection by id or by URL-encoded owner name, and hides owners the account may not read', async () => {
    const byName = (await ok(`${V2}/svc_taxii/collections/Test%20Organization/`)).json()
    const byId = (await ok(`${V2}/svc_taxii/collections/${ids.collection(owners.org)}`)).json()
    expect(byName).toEqual(byId)
    expect(byId.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    // A client configured with the id collections had before (UUIDv5) still reads the same collection.
    const byFormerId = (await ok(`${V2}/svc_taxii/collections/${ids.formerCollection(owners.org)}`)).json()
    expect(byFormerId).toEqual(byId)
    for (const hidden of [
      'Hidden%20Community',
      'Banned%20Community',
      ids.collection(owners['Hidden Community']),
      ids.collection(owners['Banned Community']),
      ids.formerCollection(owners['Hidden Community']),
    ]) {
      expectError(await taxii(`${V2}/svc_taxii/collections/${hidden}`), 404)
      expectError(await taxii(`${V2}/svc_taxii/collections/${hidden}/objects`), 404)
    }
  })

  it('finds owners whose names hold a slash, a percent sign or non-ASCII letters by their encoded names', async () => {
    const name = 'R&D / Ops 100% Zürich'
    await t.createOwner(name, 'Community')
    const member = await t.createAccount({
      kind: 'taxii',
      password: 'member-password',
      memberships: { [name]: 'Commenter' },
    })
    const res = await ok(`${V2}/svc_taxii/collections/${encodeURIComponent(name)}/`, {
      as: basic(member.userName, 'member-password'),
    })
    expect(res.json()).toMatchObject({ title: name, alias: name, type: 'Community', x_tql: `ownerName = "${name}"` })
  })

  it('answers an account with no readable owner with an empty collections resource', async () => {
    const lonely = await t.createAccount({ role: 'Read Only User' })
    const body = (await ok(`${V2}/svc_taxii/collections`, { as: `Bearer ${lonely.token}` })).json()
    expect(body).toEqual({})
  })
})

describe('objects', () => {
  const objectsOf = (base: string, owner = 'Test%20Organization') => `${base}/svc_taxii/collections/${owner}/objects/`

  it('serves the TLP markings first, then one valid indicator per Indicator, with the fields of application 2.0', async () => {
    const res = await ok(objectsOf(V2))
    const body = res.json()
    expect(body.more).toBe(false)
    const types = body.objects.map((o: { type: string }) => o.type)
    expect(types).toEqual([...Array(5).fill('marking-definition'), ...Array(11).fill('indicator')])
    expect(body.objects.slice(0, 5).map((o: { id: string }) => o.id)).toEqual([...TLP1, AMBER_STRICT])
    const indicators = body.objects.slice(5)
    for (const o of indicators) {
      expect(
        Object.keys(o)
          .filter((k) => !['object_marking_refs', 'valid_until', 'x_threat_rating'].includes(k))
          .sort(),
      ).toEqual([
        'created',
        'id',
        'indicator_types',
        'lang',
        'modified',
        'name',
        'pattern',
        'pattern_type',
        'revoked',
        'spec_version',
        'type',
        'valid_from',
        'x_svc_id',
        'x_svc_owner',
        'x_svc_type',
      ])
      expect(o.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
      expect(o.x_svc_owner).toBe(ORG)
    }
    const host = indicators.find((o: { name: string }) => o.name === 'bad.example')
    expect(host).toMatchObject({
      pattern: "[domain-name:value = 'bad.example']",
      x_threat_rating: 5,
      x_svc_type: 'Host',
      indicator_types: ['malicious-activity'],
      object_marking_refs: [AMBER_STRICT],
    })
    const url = indicators.find((o: { x_svc_type: string }) => o.x_svc_type === 'URL')
    expect(url.pattern).toBe("[url:value = 'http://bad.example/a\\'b\\\\c?ü']")
    expect(res.body).toContain(String.raw`"pattern":"[url:value = 'http://bad.example/a\\'b\\\\c?ü']"`)
    expect(indicators.find((o: { x_svc_type: string }) => o.x_svc_type === 'ASN').pattern).toBe(
      '[autonomous-system:number = 174]',
    )
    expect(res.headers['x-taxii-date-added-first']).toBe('2017-01-20T00:00:00.000000Z')
    expect(res.headers['x-taxii-date-added-last']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}000Z$/)
    // Every marking an indicator refers to is in the collection.
    const markingIds = new Set(body.objects.slice(0, 5).map((o: { id: string }) => o.id))
    for (const o of indicators) for (const ref of o.object_marking_refs ?? []) expect(markingIds.has(ref)).toBe(true)
  })

  it('serves labels, confidence and description in application 1.0, and no x_ fields', async () => {
    const body = (await ok(objectsOf(V1))).json()
    const host = body.objects.find((o: { name: string }) => o.name === 'bad.example')
    expect(host.labels).toEqual(['APT 28'])
    const address = body.objects.find((o: { name: string }) => o.name === '198.51.100.7')
    expect(address).toMatchObject({
      confidence: 90,
      description: 'C2',
      object_marking_refs: [TLP1[3]],
      pattern: "[ipv4-addr:value = '198.51.100.7']",
    })
    for (const o of body.objects)
      expect(Object.keys(o).filter((k) => k.startsWith('x_') || k === 'valid_until')).toEqual([])
  })

  it('leaves TLP 2.0 markings out of a collection whose Indicators do not need them', async () => {
    const body = (await ok(objectsOf(V2, 'Intel%20Community'))).json()
    expect(body.objects.map((o: { id: string }) => o.id).slice(0, 5)).toEqual([
      ...TLP1,
      expect.stringMatching(/^indicator--/),
    ])
    expect(body.objects).toHaveLength(7)
  })

  const skipSchemas = stixSchemasUnavailable()
  it.skipIf(!!skipSchemas)('emits only objects the STIX 2.1 schemas accept, in both applications', async () => {
    for (const base of [V1, V2]) {
      for (const owner of ['Test%20Organization', 'Intel%20Community', 'Feed%20Source']) {
        for (const o of (await ok(objectsOf(base, owner))).json().objects)
          expect(stixSchemaErrors(o), `${o.id} ${o.pattern}`).toEqual([])
      }
    }
  })

  it('gives an empty collection an envelope without objects and without date headers', async () => {
    const res = await ok(`${objectsOf(V2, 'Empty%20Source')}?match[type]=indicator`)
    expect(res.json()).toEqual({ more: false })
    expect(res.headers['x-taxii-date-added-first']).toBeUndefined()
  })

  it('pages with limit and next, losing and repeating nothing', async () => {
    const all = (await ok(objectsOf(V2))).json().objects.map((o: { id: string }) => o.id)
    for (const limit of [1, 3, 4, 5, 6, 15, 16, 17]) {
      const { objects, pages } = await walk(objectsOf(V2), limit)
      expect(objects.map((o) => o.id)).toEqual(all)
      expect(pages).toHaveLength(Math.max(1, Math.ceil(all.length / limit)))
    }
  })

  it('clamps a page size above the maximum and refuses malformed parameters with 400', async () => {
    expect((await ok(`${objectsOf(V2)}?limit=100000000`)).json().objects).toHaveLength(16)
    for (const query of [
      'limit=0',
      'limit=-1',
      'limit=ten',
      'next=nonsense',
      'next=bTk5OQ',
      'added_after=yesterday',
      'added_after=2026-13-01T00:00:00Z',
      'limit=1&limit=2',
      'match[type]=indicator&match[type]=marking-definition',
      'match[version]=soon',
      'match[id]=a,,b',
    ]) {
      expectError(await taxii(`${objectsOf(V2)}?${query}`), 400)
    }
  })

  it('filters by added_after (exclusive), and continues after X-TAXII-Date-Added-Last', async () => {
    const res = await ok(`${objectsOf(V2)}?limit=6`)
    const last = res.headers['x-taxii-date-added-last'] as string
    const after = (await ok(`${objectsOf(V2)}?added_after=${last}`)).json().objects
    const all = (await ok(objectsOf(V2))).json().objects
    const sixth = all[5]
    expect(after.map((o: { id: string }) => o.id)).toEqual(
      all.filter((o: { modified?: string }) => (o.modified ?? '') > sixth.modified).map((o: { id: string }) => o.id),
    )
    const markings = (
      await ok(`${objectsOf(V2)}?added_after=2017-01-20T00:00:00Z&match[type]=marking-definition`)
    ).json().objects
    expect(markings.map((o: { id: string }) => o.id)).toEqual([AMBER_STRICT])
    expect(
      (await ok(`${objectsOf(V2)}?added_after=2017-01-19T23:59:59.999999Z&match[type]=marking-definition`)).json()
        .objects,
    ).toHaveLength(5)
  })

  it('filters by match[type], match[id], match[version] and match[spec_version]', async () => {
    const all = (await ok(objectsOf(V2))).json().objects
    const idsOf = (objects: { id: string }[]) => objects.map((o) => o.id)
    expect(idsOf((await ok(`${objectsOf(V2)}?match[type]=indicator`)).json().objects)).toEqual(idsOf(all.slice(5)))
    expect(idsOf((await ok(`${objectsOf(V2)}?match[type]=marking-definition,malware`)).json().objects)).toEqual(
      idsOf(all.slice(0, 5)),
    )
    expect((await ok(`${objectsOf(V2)}?match[type]=malware`)).json()).toEqual({ more: false })
    const picked = [all[7].id, all[1].id, 'indicator--00000000-0000-5000-8000-000000000000']
    expect(idsOf((await ok(`${objectsOf(V2)}?match[id]=${picked.join(',')}`)).json().objects)).toEqual([
      all[1].id,
      all[7].id,
    ])
    for (const v of ['last', 'first', 'all', 'first,last']) {
      expect(idsOf((await ok(`${objectsOf(V2)}?match[version]=${v}`)).json().objects)).toEqual(idsOf(all))
    }
    const target = all[9]
    const byVersion = (await ok(`${objectsOf(V2)}?match[version]=${target.modified}&match[id]=${target.id}`)).json()
      .objects
    expect(idsOf(byVersion)).toEqual([target.id])
    expect((await ok(`${objectsOf(V2)}?match[version]=2001-01-01T00:00:00.000Z`)).json()).toEqual({ more: false })
    expect(idsOf((await ok(`${objectsOf(V2)}?match[spec_version]=2.0,2.1`)).json().objects)).toEqual(idsOf(all))
    expect((await ok(`${objectsOf(V2)}?match[spec_version]=2.0`)).json()).toEqual({ more: false })
    expect(idsOf((await ok(`${objectsOf(V2)}?match[type]=indicator&match[unknown]=x`)).json().objects)).toEqual(
      idsOf(all.slice(5)),
    )
  })

  it('serves one object, and its versions', async () => {
    const all = (await ok(objectsOf(V2))).json().objects
    const indicator = all[8]
    const one = await ok(`${objectsOf(V2)}${indicator.id}/`)
    expect(one.json()).toEqual({ more: false, objects: [indicator] })
    expect(one.headers['x-taxii-date-added-first']).toBe(`${indicator.modified.slice(0, 23)}000Z`)
    expect((await ok(`${objectsOf(V2)}${indicator.id}/versions/`)).json()).toEqual({
      more: false,
      versions: [indicator.modified],
    })
    expect((await ok(`${objectsOf(V2)}${TLP1[2]}`)).json()).toEqual({ more: false, objects: [all[2]] })
    expect((await ok(`${objectsOf(V2)}${TLP1[2]}/versions`)).json()).toEqual({
      more: false,
      versions: ['2017-01-20T00:00:00.000Z'],
    })
    expect((await ok(`${objectsOf(V2)}${indicator.id}?match[version]=2001-01-01T00:00:00Z`)).json()).toEqual({
      more: false,
    })
    expectError(await taxii(`${objectsOf(V2)}indicator--00000000-0000-5000-8000-000000000000`), 404)
    expectError(await taxii(`${objectsOf(V2)}${AMBER_STRICT}`.replace('Test%20Organization', 'Intel%20Community')), 404)
    expectError(await taxii(`${objectsOf(V2)}not-an-id/versions`), 404)
    // An Indicator of another collection is not in this one.
    const intel = (await ok(objectsOf(V2, 'Intel%20Community'))).json().objects.at(-1)
    expectError(await taxii(`${objectsOf(V2)}${intel.id}`), 404)
  })

  it('serves the manifest in application 1.0 only', async () => {
    const objects = (await ok(objectsOf(V1))).json().objects
    const res = await ok(`${V1}/svc_taxii/collections/Test%20Organization/manifest/?limit=6`)
    const body = res.json()
    expect(body.more).toBe(true)
    expect(body.objects).toHaveLength(6)
    expect(body.objects[5]).toEqual({
      id: objects[5].id,
      date_added: `${objects[5].modified.slice(0, 23)}000Z`,
      version: objects[5].modified,
      media_type: 'application/stix+json;version=2.1',
      media_types: 'application/stix+json;version=2.1',
    })
    const rest = (await ok(`${V1}/svc_taxii/collections/Test%20Organization/manifest?next=${body.next}`)).json()
    expect(rest.objects.map((o: { id: string }) => o.id)).toEqual(objects.slice(6).map((o: { id: string }) => o.id))
    expectError(await taxii(`${V2}/svc_taxii/collections/Test%20Organization/manifest/`), 404)
  })

  it('gives the same indicator the same id in both applications and on another app over the same database', async () => {
    const a = (await ok(objectsOf(V1))).json().objects.map((o: { id: string }) => o.id)
    const b = (await ok(objectsOf(V2))).json().objects.map((o: { id: string }) => o.id)
    expect(a).toEqual(b)
  })
})

describe('media types and errors', () => {
  const url = `${V2}/svc_taxii/collections/`
  it.each([
    ['application/taxii+json;version=2.1'],
    ['application/taxii+json; version=2.1'],
    ['application/taxii+json'],
    ['*/*'],
    ['application/json, text/plain, */*'],
    ['application/stix+json;version=2.1'],
    ['text/html;q=0.9, application/taxii+json;q=0.5'],
    [null],
  ])('serves Accept %s', async (accept) => {
    await ok(url, { accept })
  })

  it.each([['application/xml'], ['application/taxii+json;version=2.0'], ['text/html, application/taxii+json;q=0']])(
    'answers Accept %s with 406',
    async (accept) => {
      expectError(await taxii(url, { accept }), 406)
    },
  )

  it("answers unknown paths, other methods and the REST envelope's paths in the TAXII error shape", async () => {
    expectError(await taxii(`${V2}/svc_taxii/nothing-here`), 404)
    expectError(await taxii(`${V2}/other_root/collections`), 404)
    expectError(await taxii(`/api/services/taxii/v3/taxii2`), 404)
    expect(
      expectError(await taxii(`${V2}/svc_taxii/collections/Test%20Organization/objects`, { method: 'POST' }), 405)
        .title,
    ).toBe('Method Not Allowed')
    expectError(await taxii(`${V2}/svc_taxii/collections/Test%20Organization/objects/x`, { method: 'DELETE' }), 405)
    expectError(await taxii(`${V2}/svc_taxii/collections/%E0%A4%A`), 400)
  })
})

describe('authentication and roles', () => {
  const url = `${V2}/svc_taxii/collections`

  it('answers missing or wrong credentials with 401 and a Basic challenge', async () => {
    for (const as of [
      null,
      basic(reader.userName, 'wrong'),
      basic('nobody', 'x'),
      'Basic',
      'Basic !!!',
      `TC-Token ${'0'.repeat(40)}`,
    ]) {
      const res = await taxii(url, { as })
      expectError(res, 401)
      expect(res.headers['www-authenticate']).toMatch(/^Basic realm="[^"]+"/)
    }
  })

  it('refuses the REST schemes on TAXII paths, and Basic on REST paths', async () => {
    const res = await taxii(url, { as: `TC-Token ${t.admin.token}` })
    expectError(res, 401)
    const rest = await t.app.inject({
      method: 'GET',
      url: '/api/v2/owners',
      headers: { 'x-forwarded-proto': 'https', authorization: readerAuth },
    })
    expect(rest.statusCode).toBe(403)
    expect(rest.json().status).toBe('Error')
    const bearer = await t.app.inject({
      method: 'GET',
      url: '/api/v2/owners',
      headers: { 'x-forwarded-proto': 'https', authorization: `Bearer ${t.admin.token}` },
    })
    expect(bearer.statusCode).toBe(403)
  })

  it('accepts an API token as Bearer, with the role rules of its memberships', async () => {
    const admin = (await ok(url, { as: `Bearer ${t.admin.token}` })).json()
    expect(admin.collections.map((c: { title: string }) => c.title)).toEqual([ORG])
    const readOnly = await t.createAccount({ role: 'Read Only User', memberships: { 'Intel Community': 'Subscriber' } })
    const body = (await ok(url, { as: `Bearer ${readOnly.token}` })).json()
    expect(body.collections.map((c: { title: string }) => c.title)).toEqual(['Intel Community'])
    expectError(await taxii(`${url}/Test%20Organization/objects`, { as: `Bearer ${readOnly.token}` }), 404)
  })

  it('answers an unexpected failure with a 500 error resource naming only the request id', async () => {
    const original = t.services.auth.findByUserName
    t.services.auth.findByUserName = async () => {
      throw new Error('disk on fire in /srv/secret/store.ts:12')
    }
    try {
      const res = await taxii(url)
      const body = expectError(res, 500)
      expect(body.description).toBe(`Internal error (request ${res.headers['x-request-id']})`)
      expect(res.body).not.toContain('disk on fire')
    } finally {
      t.services.auth.findByUserName = original
    }
  })

  it('refuses plain HTTP', async () => {
    const res = await t.app.inject({ method: 'GET', url, headers: { authorization: readerAuth, accept: MEDIA } })
    expectError(res, 403)
  })
})

describe('a change of tags or labels is a new version of the Indicator', () => {
  // Application 1.0: its indicators carry the tags as `labels`.
  const objects = `${V1}/svc_taxii/collections/Test%20Organization/objects/`

  it('reaches a reader polling with added_after, carrying the new label and a later modified', async () => {
    const polled = await ok(objects)
    const last = polled.headers['x-taxii-date-added-last'] as string
    const before = polled
      .json()
      .objects.find((o: { pattern?: string }) => o.pattern === "[ipv6-addr:value = '2001:db8::7']")
    expect(before.labels ?? []).not.toContain('Late tag')
    await new Promise((resolve) => setTimeout(resolve, 5))
    expect((await v2post('/indicators/addresses/2001:db8::7/tags/Late%20tag', {})).statusCode).toBe(200)

    const since = (await ok(`${objects}?added_after=${last}`)).json().objects
    expect(since.map((o: { id: string }) => o.id)).toEqual([before.id])
    expect(since[0].labels).toContain('Late tag')
    expect(since[0].modified > before.modified).toBe(true)
  })
})

/**
 * The OpenAPI documents match the routes: every v2 and v3 route is in its document with its
 * method and path parameters, the document names nothing else, it is valid OpenAPI 3.1, and
 * what real calls answer (successes and refusals) validates against the documented schemas.
 */
import { Validator } from '@seriousme/openapi-schema-validator'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, PUBLIC_URL, createTestApp } from '../../test/harness.js'

type Schema = Record<string, unknown>
type Operation = {
  parameters: { name: string; in: string; required: boolean }[]
  requestBody?: { content: Record<string, { schema: { properties: Record<string, unknown>; required?: string[] } }> }
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>
}
type Doc = { openapi: string; servers: { url: string }[]; paths: Record<string, Record<string, Operation>> }

let t: TestApp
const docs = {} as Record<'v2' | 'v3', Doc>
const ajv = new Ajv2020({ strict: false, allErrors: true })
const addFormats = addFormatsModule as unknown as (a: Ajv2020) => void
addFormats(ajv)

beforeAll(async () => {
  t = await createTestApp()
  for (const version of ['v2', 'v3'] as const) {
    const res = await t.request({ method: 'GET', url: `/api/${version}/openApi`, as: null })
    expect(res.statusCode).toBe(200)
    docs[version] = res.json()
  }
})
afterAll(async () => {
  await t.close()
})

const routesOf = (version: 'v2' | 'v3') =>
  t.app.routeTable.filter(
    (r) => r.method !== 'HEAD' && r.url.startsWith(`/api/${version}/`) && !r.url.endsWith('/openApi'),
  )
const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')

/** The documented schema of this answer: its status's, or the 4XX one. */
function documentedSchema(version: 'v2' | 'v3', method: string, path: string, status: number): Schema {
  const op = docs[version].paths[path]?.[method.toLowerCase()]
  if (!op) throw new Error(`${method} ${path} is not documented`)
  const response = op.responses[String(status)] ?? (status >= 400 && status < 500 ? op.responses['4XX'] : undefined)
  if (!response) throw new Error(`${method} ${path} documents no ${status}`)
  const schema = response.content?.['application/json']?.schema
  if (!schema) throw new Error(`${method} ${path} ${status} has no JSON schema`)
  return schema
}

/** Calls the route (path with {placeholders} filled from params) and checks the answer against the document. */
async function call(
  version: 'v2' | 'v3',
  method: string,
  path: string,
  options: { params?: Record<string, string | number>; query?: string; body?: unknown; expect?: number } = {},
) {
  const url = `/api/${version}${path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(String(options.params?.[name])))}${options.query ? `?${options.query}` : ''}`
  if (options.body !== undefined) {
    const op = docs[version].paths[`/api/${version}${path}`]?.[method.toLowerCase()]
    const validate = ajv.compile(op?.requestBody?.content['application/json']?.schema ?? false)
    expect(
      validate(options.body) ? [] : validate.errors,
      `${method} ${path}: the body sent is one the document describes`,
    ).toEqual([])
  }
  const res = await t.request({
    method: method as 'GET',
    url,
    ...(options.body !== undefined ? { payload: options.body as object } : {}),
  })
  if (options.expect) expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(options.expect)
  assertDocumented(version, method, `/api/${version}${path}`, res)
  return res
}

function assertDocumented(version: 'v2' | 'v3', method: string, path: string, res: LightMyRequestResponse) {
  if (res.statusCode === 204) return
  const validate = ajv.compile(documentedSchema(version, method, path, res.statusCode))
  const body = res.json()
  expect(
    validate(body) ? [] : validate.errors,
    `${method} ${path} → ${res.statusCode} ${res.body.slice(0, 300)}`,
  ).toEqual([])
}

describe('OpenAPI documents', () => {
  for (const version of ['v2', 'v3'] as const) {
    it(`${version}: one operation per registered route with its path parameters, and none that is not one`, () => {
      const doc = docs[version]
      expect(doc.openapi).toBe('3.1.0')
      expect(doc.servers).toEqual([{ url: PUBLIC_URL }])
      const routes = routesOf(version)
      const registered = routes.map((r) => `${r.method} ${openApiPath(r.url)}`)
      const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
        Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
      )
      expect(routes.length).toBeGreaterThan(100)
      expect(documented.sort()).toEqual([...new Set(registered)].sort())
      for (const route of routes) {
        const op = doc.paths[openApiPath(route.url)][route.method.toLowerCase()]
        const inPath = [...route.url.matchAll(/:(\w+)/g)].map((m) => m[1])
        expect(
          op.parameters.filter((p) => p.in === 'path').map((p) => p.name),
          route.url,
        ).toEqual(inPath)
        // Every route declares its own answers: a success (or, where the method is refused, only refusals) and the error envelope.
        expect(Object.keys(op.responses), `${route.method} ${route.url}`).toContain('4XX')
        expect(route.schema, `${route.method} ${route.url}`).toHaveProperty('response')
      }
    })

    it(`${version}: every documented operation is a route the app answers`, () => {
      for (const [path, ops] of Object.entries(docs[version].paths)) {
        for (const method of Object.keys(ops)) {
          expect(
            t.app.hasRoute({ method: method.toUpperCase() as 'GET', url: path.replace(/\{(\w+)\}/g, ':$1') }),
            `${method} ${path}`,
          ).toBe(true)
        }
      }
    })

    it(`${version}: is valid OpenAPI 3.1`, async () => {
      const result = await new Validator().validate(structuredClone(docs[version]) as Record<string, unknown>)
      expect(result.errors ?? []).toEqual([])
      expect(result.valid).toBe(true)
    })

    it(`${version}: every operation called without credentials answers its documented error envelope`, async () => {
      let checked = 0
      for (const [path, ops] of Object.entries(docs[version].paths)) {
        for (const method of Object.keys(ops)) {
          const url = path.replace(/\{(\w+)\}/g, '1')
          const res = await t.request({ method: method.toUpperCase() as 'GET', url, as: null })
          expect([401, 403], `${method} ${url}`).toContain(res.statusCode)
          assertDocumented(version, method, path, res)
          checked += 1
        }
      }
      expect(checked).toBeGreaterThan(100)
    })
  }

  it('v3: create and update bodies are the fields the endpoint declares, as OPTIONS lists them', async () => {
    const doc = docs.v3
    for (const type of ['cases', 'indicators', 'groups', 'victims', 'tasks']) {
      const descriptor = (await t.request({ method: 'OPTIONS', url: `/api/v3/${type}` })).json() as Record<
        string,
        { required: boolean; updatable?: boolean }
      >
      const create = doc.paths[`/api/v3/${type}`].post.requestBody!.content['application/json'].schema
      expect(Object.keys(create.properties).sort(), type).toEqual(Object.keys(descriptor).sort())
      expect((create.required ?? []).sort(), type).toEqual(
        Object.keys(descriptor)
          .filter((k) => descriptor[k].required)
          .sort(),
      )
      const update = doc.paths[`/api/v3/${type}/{id}`].put.requestBody!.content['application/json'].schema
      expect(Object.keys(update.properties).sort(), type).toEqual(
        Object.keys(descriptor)
          .filter((k) => descriptor[k].updatable !== false)
          .sort(),
      )
    }
  })

  it('v2: real answers validate against the documented schemas', async () => {
    await call('v2', 'GET', '/whoami', { expect: 200 })
    await call('v2', 'GET', '/owners', { expect: 200 })
    await call('v2', 'GET', '/owners/mine', { expect: 200 })
    await call('v2', 'GET', '/types/indicatorTypes', { expect: 200 })
    await call('v2', 'GET', '/types/attributeTypes', { query: 'resultLimit=5', expect: 200 })
    await call('v2', 'GET', '/securityLabels', { expect: 200 })
    const address = { type: 'addresses', indicator: '10.9.8.7' }
    await call('v2', 'POST', '/indicators/{type}', {
      params: address,
      body: { ip: '10.9.8.7', rating: 3, confidence: 60, description: 'seen' },
      expect: 201,
    })
    await call('v2', 'GET', '/indicators/{type}/{indicator}', {
      params: address,
      query: 'includeAdditional=true',
      expect: 200,
    })
    await call('v2', 'PUT', '/indicators/{type}/{indicator}', { params: address, body: { rating: 4 }, expect: 200 })
    await call('v2', 'GET', '/indicators', { query: 'includes=tags,attributes', expect: 200 })
    await call('v2', 'GET', '/indicators/{type}', { params: address, expect: 200 })
    const attribute = await call('v2', 'POST', '/indicators/{type}/{indicator}/attributes', {
      params: address,
      body: { type: 'Description', value: 'd', displayed: true },
      expect: 201,
    })
    await call('v2', 'GET', '/indicators/{type}/{indicator}/attributes/{attributeId}', {
      params: { ...address, attributeId: attribute.json().data.attribute.id },
      expect: 200,
    })
    await call('v2', 'POST', '/indicators/{type}/{indicator}/tags/{tag}', {
      params: { ...address, tag: 'openapi' },
      expect: 200,
    })
    await call('v2', 'GET', '/indicators/{type}/{indicator}/tags', { params: address, expect: 200 })
    await call('v2', 'GET', '/tags', { expect: 200 })
    await call('v2', 'GET', '/tags/{name}', { params: { name: 'openapi' }, expect: 200 })
    await call('v2', 'GET', '/tags/{name}/indicators', { params: { name: 'openapi' }, expect: 200 })
    await call('v2', 'POST', '/indicators/{type}/{indicator}/observations', {
      params: address,
      body: { count: 2 },
      expect: 200,
    })
    await call('v2', 'GET', '/indicators/{type}/{indicator}/observationCount', { params: address, expect: 200 })
    await call('v2', 'GET', '/indicators/{type}/{indicator}/owners', { params: address, expect: 200 })
    const group = await call('v2', 'POST', '/groups/{groupType}', {
      params: { groupType: 'incidents' },
      body: { name: 'Intrusion', eventDate: '2026-01-02T00:00:00Z' },
      expect: 201,
    })
    const groupPath = { groupType: 'incidents', groupId: group.json().data.incident.id }
    await call('v2', 'GET', '/groups/{groupType}/{groupId}', { params: groupPath, expect: 200 })
    await call('v2', 'GET', '/groups', { expect: 200 })
    await call('v2', 'POST', '/groups/{groupType}/{groupId}/indicators/{assocType}/{summary}', {
      params: { ...groupPath, assocType: 'addresses', summary: '10.9.8.7' },
      expect: 200,
    })
    await call('v2', 'GET', '/groups/{groupType}/{groupId}/indicators', { params: groupPath, expect: 200 })
    await call('v2', 'GET', '/indicators/{type}/{indicator}/groups', { params: address, expect: 200 })
    const task = await call('v2', 'POST', '/tasks', {
      body: { name: 'Look', dueDate: '2026-12-01T00:00:00Z' },
      expect: 201,
    })
    await call('v2', 'GET', '/tasks/{taskId}', { params: { taskId: task.json().data.task.id }, expect: 200 })
    const victim = await call('v2', 'POST', '/victims', { body: { name: 'Pat', org: 'Finance' }, expect: 201 })
    await call('v2', 'GET', '/victims/{victimId}', { params: { victimId: victim.json().data.victim.id }, expect: 200 })
    await call('v2', 'GET', '/victims', { expect: 200 })
    const asset = await call('v2', 'POST', '/victims/{victimId}/victimAssets/{assetType}', {
      params: { victimId: victim.json().data.victim.id, assetType: 'emailAddresses' },
      body: { address: 'pat@example.com', addressType: 'work' },
      expect: 201,
    })
    expect(asset.json().data).toHaveProperty('victimEmailAddress')
    await call('v2', 'GET', '/victims/{victimId}/victimAssets', {
      params: { victimId: victim.json().data.victim.id },
      expect: 200,
    })
    await call('v2', 'POST', '/customMetrics', {
      body: { name: 'Seen', dataType: 'Sum', interval: 'Daily', keyedValues: false },
      expect: 201,
    })
    await call('v2', 'POST', '/customMetrics/{metric}/data', {
      params: { metric: 'Seen' },
      query: 'returnValue=true',
      body: { value: 2 },
      expect: 200,
    })
    await call('v2', 'GET', '/customMetrics/{metric}/data', { params: { metric: 'Seen' }, expect: 200 })
    const job = await call('v2', 'POST', '/batch', {
      body: { owner: 'Test Organization', action: 'Create', haltOnError: false, attributeWriteType: 'Append' },
      expect: 201,
    })
    await call('v2', 'POST', '/batch/{id}', {
      params: { id: job.json().data.batchId },
      body: { indicator: [{ summary: '10.2.2.2', type: 'Address' }] },
      expect: 202,
    })
    await call('v2', 'GET', '/batch/{id}', { params: { id: job.json().data.batchId }, expect: 200 })
    await call('v2', 'GET', '/indicators/bulk', { expect: 200 })
    await call('v2', 'DELETE', '/indicators/{type}/{indicator}', { params: address, expect: 200 })
    // Refusals carry the error envelope, with the status the platform gives.
    await call('v2', 'GET', '/indicators/{type}/{indicator}', { params: address, expect: 404 })
    await call('v2', 'POST', '/indicators/{type}', {
      params: { type: 'addresses' },
      body: { ip: 'not an address' },
      expect: 400,
    })
    await call('v2', 'GET', '/indicators', { query: 'resultLimit=abc', expect: 400 })
  })

  it('v3: real answers validate against the documented schemas', async () => {
    const created = await call('v3', 'POST', '/indicators', {
      body: { type: 'Host', hostName: 'openapi.example', rating: 2, tags: { data: [{ name: 'x' }] } },
      expect: 201,
    })
    const id = created.json().data.id as number
    await call('v3', 'GET', '/indicators/{id}', { params: { id }, query: 'fields=tags&fields=attributes', expect: 200 })
    await call('v3', 'PUT', '/indicators/{id}', { params: { id }, body: { confidence: 40 }, expect: 200 })
    await call('v3', 'GET', '/indicators', {
      query: 'tql=typeName%20EQ%20%22Host%22&count=true&resultLimit=1',
      expect: 200,
    })
    await call('v3', 'OPTIONS', '/indicators', { expect: 200 })
    await call('v3', 'OPTIONS', '/indicators/fields', { expect: 200 })
    await call('v3', 'OPTIONS', '/indicators/tql', { expect: 200 })
    const group = await call('v3', 'POST', '/groups', {
      body: { type: 'Adversary', name: 'Crew', associatedIndicators: { data: [{ id }] } },
      expect: 201,
    })
    await call('v3', 'GET', '/groups/{id}', {
      params: { id: group.json().data.id },
      query: 'fields=associatedIndicators',
      expect: 200,
    })
    const kase = await call('v3', 'POST', '/cases', {
      body: { name: 'Case 1', status: 'Open', severity: 'Low' },
      expect: 201,
    })
    await call('v3', 'GET', '/cases/{id}', { params: { id: kase.json().data.id }, expect: 200 })
    await call('v3', 'POST', '/victims', { body: { name: 'Sam' }, expect: 201 })
    await call('v3', 'POST', '/tasks', { body: { name: 'Triage' }, expect: 201 })
    await call('v3', 'GET', '/tasks', { expect: 200 })
    await call('v3', 'GET', '/tags', { expect: 200 })
    await call('v3', 'GET', '/security/owners', { expect: 200 })
    await call('v3', 'GET', '/indicators/deleted', { expect: 200 })
    await call('v3', 'DELETE', '/indicators/{id}', { params: { id }, expect: 200 })
    await call('v3', 'GET', '/indicators/{id}', { params: { id }, expect: 404 })
    await call('v3', 'POST', '/indicators', { body: { type: 'Host' }, expect: 400 })
    await call('v3', 'GET', '/indicators', { query: 'tql=nonsense%20%3D%3D', expect: 400 })
  })

  it('serves an API explorer from local files, naming both documents', async () => {
    const page = await t.request({ method: 'GET', url: '/api/docs', as: null })
    expect(page.statusCode).toBe(200)
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8')
    const sources = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1])
    expect(sources.every((s) => s.startsWith('/api/'))).toBe(true)
    for (const source of sources.filter((s) => s.startsWith('/api/docs/'))) {
      const asset = await t.request({ method: 'GET', url: source, as: null })
      expect(asset.statusCode, source).toBe(200)
      expect(asset.body.length, source).toBeGreaterThan(source.endsWith('init.js') ? 100 : 100_000)
    }
    const init = await t.request({ method: 'GET', url: '/api/docs/init.js', as: null })
    expect(init.body).toContain("url: '/api/v3/openApi'")
    expect(init.body).toContain("url: '/api/v2/openApi'")
  })
})

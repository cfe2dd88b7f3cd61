/**
 * The OpenAPI documents match the routes: every v2 and v3 route is in its document and the
 * document names nothing else; v3 request bodies are the fields OPTIONS /v3/<type> lists.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, PUBLIC_URL, createTestApp } from '../../test/harness.js'

let t: TestApp
beforeAll(async () => { t = await createTestApp() })
afterAll(async () => { await t.close() })

type Doc = { openapi: string; servers: { url: string }[]; paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { properties: Record<string, unknown>; required?: string[] } }> }; responses: Record<string, unknown> }>> }

async function document(version: 'v2' | 'v3'): Promise<Doc> {
  const res = await t.request({ method: 'GET', url: `/api/${version}/openApi`, as: null })
  expect(res.statusCode).toBe(200)
  return res.json()
}

describe('OpenAPI documents', () => {
  for (const version of ['v2', 'v3'] as const) {
    it(`${version}: one operation per registered route, and none that is not one`, async () => {
      const doc = await document(version)
      expect(doc.openapi).toBe('3.1.0')
      expect(doc.servers).toEqual([{ url: PUBLIC_URL }])
      const routes = t.app.routeTable
        .filter((r) => r.method !== 'HEAD' && r.url.startsWith(`/api/${version}/`) && !r.url.endsWith('/openApi'))
        .map((r) => `${r.method} ${r.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`)
      const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
      expect(routes.length).toBeGreaterThan(100)
      expect(documented.sort()).toEqual([...new Set(routes)].sort())
      for (const ops of Object.values(doc.paths)) for (const op of Object.values(ops)) expect(Object.keys(op.responses)).toContain('4XX')
    })
  }

  it('v3: create and update bodies are the fields the endpoint declares, as OPTIONS lists them', async () => {
    const doc = await document('v3')
    for (const type of ['cases', 'indicators', 'groups', 'victims', 'tasks']) {
      const descriptor = (await t.request({ method: 'OPTIONS', url: `/api/v3/${type}` })).json() as Record<string, { required: boolean; updatable?: boolean }>
      const create = doc.paths[`/api/v3/${type}`].post.requestBody!.content['application/json'].schema
      expect(Object.keys(create.properties).sort(), type).toEqual(Object.keys(descriptor).sort())
      expect((create.required ?? []).sort(), type).toEqual(Object.keys(descriptor).filter((k) => descriptor[k].required).sort())
      const update = doc.paths[`/api/v3/${type}/{id}`].put.requestBody!.content['application/json'].schema
      expect(Object.keys(update.properties).sort(), type).toEqual(Object.keys(descriptor).filter((k) => descriptor[k].updatable !== false).sort())
    }
  })

  it('has a human-readable page listing both interfaces', async () => {
    const res = await t.request({ method: 'GET', url: '/api/docs', as: null })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(res.body).toContain('<h2>Bulwark REST API v2</h2>')
    expect(res.body).toContain('<code>/api/v3/cases/{id}</code>')
  })
})

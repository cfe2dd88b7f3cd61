/**
 * OpenAPI 3.1 documents of REST v2 and v3, generated from what the app registered: every route
 * of the interface (app.routeTable) with its path parameters, and for v3 object routes the
 * endpoint declaration they carry (the same fields OPTIONS /v3/<type> lists) as request body and
 * record schema. Nothing is written beside the routes, so the document cannot drift from them.
 * Served without credentials at /api/v2/openApi, /api/v3/openApi and, readable, /api/docs.
 */
import type { FastifyContextConfig, FastifyInstance, FastifySchema } from 'fastify'
import type { AnyEndpoint, FieldSpec } from '../v3/endpoint.js'

/** A registered route as the documents see it. */
export interface RouteSummary {
  method: string
  url: string
  schema?: FastifySchema
  /** The route's `config`: v3 object routes carry their endpoint declaration here. */
  config?: FastifyContextConfig
}

type Json = Record<string, unknown>
export type ApiVersion = 'v2' | 'v3'

const TYPES: Record<string, Json> = {
  String: { type: 'string' }, Integer: { type: 'integer' }, Double: { type: 'number' }, Boolean: { type: 'boolean' },
  Date: { type: 'string', format: 'date-time' }, Object: { type: 'object' },
}

function fieldSchema(field: FieldSpec): Json {
  const base: Json = field.values ? { type: 'string', enum: [...field.values] } : { ...(TYPES[field.type] ?? { type: 'object', title: field.type }) }
  base.description = field.description
  if (field.readOnly) base.readOnly = true
  return field.list ? { type: 'object', description: field.description, properties: { data: { type: 'array', items: base } } } : base
}

/** The request body of POST (create: required fields required) or PUT (update: what may change). */
export function bodySchema(endpoint: AnyEndpoint, action: 'create' | 'update'): Json {
  const fields = endpoint.fields.filter((f) => !f.readOnly && (action === 'create' || f.updatable !== false))
  const required = action === 'create' ? fields.filter((f) => f.required).map((f) => f.name) : []
  return { type: 'object', properties: Object.fromEntries(fields.map((f) => [f.name, fieldSchema(f)])), ...(required.length ? { required } : {}) }
}

function recordSchema(endpoint: AnyEndpoint): Json {
  return { type: 'object', properties: Object.fromEntries(endpoint.fields.map((f) => [f.name, fieldSchema(f)])) }
}

const LIST_QUERY = ['tql', 'fields', 'sorting', 'resultStart', 'resultLimit', 'count', 'owner']

function operation(version: ApiVersion, route: RouteSummary): Json {
  const params = [...route.url.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }))
  const endpoint = route.config?.endpoint
  const base = endpoint ? `/api/v3/${endpoint.path}` : undefined
  const isList = route.method === 'GET' && route.url === base
  const query = isList ? LIST_QUERY : ['owner']
  const op: Json = {
    operationId: `${route.method.toLowerCase()}${route.url.replace(/^\/api\/v[23]/, '').replace(/[:/{}]+(.)/g, (_m, c: string) => c.toUpperCase())}`,
    tags: [route.url.split('/')[3] ?? version],
    parameters: [...params, ...query.map((name) => ({ name, in: 'query', required: false, schema: { type: 'string' } }))],
    responses: {
      [route.method === 'POST' ? '201' : '200']: { description: 'Success', content: { 'application/json': { schema: successSchema(version, endpoint, route) } } },
      '4XX': { description: 'Refused', content: { 'application/json': { schema: { $ref: `#/components/schemas/${version}Error` } } } },
    },
  }
  if (endpoint && route.method === 'POST' && route.url === base) op.requestBody = { required: true, content: { 'application/json': { schema: bodySchema(endpoint, 'create') } } }
  if (endpoint && route.method === 'PUT') op.requestBody = { required: true, content: { 'application/json': { schema: bodySchema(endpoint, 'update') } } }
  if (!endpoint && (route.method === 'POST' || route.method === 'PUT')) op.requestBody = { required: false, content: { 'application/json': { schema: { type: 'object' } } } }
  return op
}

function successSchema(version: ApiVersion, endpoint: AnyEndpoint | undefined, route: RouteSummary): Json {
  const status = { type: 'string', enum: ['Success'] }
  if (version === 'v2') return { type: 'object', properties: { status, data: { type: 'object' } } }
  if (!endpoint || route.method === 'OPTIONS' || route.method === 'DELETE') return { type: 'object', properties: { status } }
  const record = recordSchema(endpoint)
  return route.method === 'GET' && route.url === `/api/v3/${endpoint.path}`
    ? { type: 'object', properties: { status, data: { type: 'array', items: record }, next: { type: 'string' }, prev: { type: 'string' }, count: { type: 'integer' } } }
    : { type: 'object', properties: { status, data: record } }
}

/** The OpenAPI document of one interface, from the routes the app has. */
export function openApiDocument(routes: readonly RouteSummary[], version: ApiVersion, publicUrl: string): Json {
  const paths: Record<string, Json> = {}
  for (const route of routes) {
    if (route.method === 'HEAD' || !route.url.startsWith(`/api/${version}/`) || route.url.endsWith('/openApi')) continue
    const path = route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation(version, route) }
  }
  const error = version === 'v3'
    ? { type: 'object', required: ['errCode', 'message', 'status'], properties: { errCode: { type: 'string' }, message: { type: 'string' }, status: { type: 'string', enum: ['Error'] } } }
    : { type: 'object', required: ['status', 'message'], properties: { status: { type: 'string', enum: ['Error'] }, message: { type: 'string' } } }
  return {
    openapi: '3.1.0',
    info: { title: `Bulwark REST API ${version}`, version: '0.1.0', description: `Generated from the routes this server registered (${Object.keys(paths).length} paths).` },
    servers: [{ url: publicUrl }],
    security: [{ token: [] }, { hmac: [] }],
    paths,
    components: {
      schemas: { [`${version}Error`]: error },
      securitySchemes: {
        token: { type: 'apiKey', in: 'header', name: 'Authorization', description: '`TC-Token <token>` (or `Svc-Token`)' },
        hmac: { type: 'apiKey', in: 'header', name: 'Authorization', description: '`TC <accessId>:<signature>` with a `Timestamp` header' },
      },
    },
  }
}

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

function htmlPage(documents: Json[]): string {
  const sections = documents.map((doc) => {
    const rows = Object.entries(doc.paths as Record<string, Record<string, Json>>).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => {
      const body = (op.requestBody as { content: { 'application/json': { schema: Json } } } | undefined)?.content['application/json'].schema
      const fields = body?.properties ? Object.keys(body.properties as Json).join(', ') : ''
      return `<tr><td><code>${method.toUpperCase()}</code></td><td><code>${escape(path)}</code></td><td>${escape(fields)}</td></tr>`
    }))
    const info = doc.info as { title: string; description: string }
    return `<h2>${escape(info.title)}</h2><p>${escape(info.description)}</p><table><tr><th>Method</th><th>Path</th><th>Body fields</th></tr>${rows.join('')}</table>`
  })
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bulwark REST API</title>
<style>body{font-family:sans-serif;margin:2em}td,th{padding:2px 8px;text-align:left;vertical-align:top}tr:nth-child(even){background:#f4f4f4}</style></head>
<body><h1>Bulwark REST API</h1><p>Machine-readable: <a href="/api/v2/openApi">/api/v2/openApi</a>, <a href="/api/v3/openApi">/api/v3/openApi</a> (OpenAPI 3.1).</p>${sections.join('')}</body></html>`
}

/** Registered last, so the documents see every route; built once, on first request. */
export function installOpenApiRoutes(app: FastifyInstance, publicUrl: string): void {
  const cache = new Map<string, Json | string>()
  const documentFor = (version: ApiVersion) => {
    if (!cache.has(version)) cache.set(version, openApiDocument(app.routeTable, version, publicUrl))
    return cache.get(version) as Json
  }
  for (const version of ['v2', 'v3'] as const) app.get(`/api/${version}/openApi`, (_req, reply) => { reply.send(documentFor(version)) })
  app.get('/api/docs', (_req, reply) => {
    if (!cache.has('html')) cache.set('html', htmlPage([documentFor('v2'), documentFor('v3')]))
    reply.type('text/html; charset=utf-8').send(cache.get('html'))
  })
}

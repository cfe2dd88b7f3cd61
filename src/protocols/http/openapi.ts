/**
 * OpenAPI 3.1 documents of REST v2 and v3, generated from what the app registered: every route
 * of the interface (app.routeTable) with the schema it carries (its path parameters, query
 * string, body and responses, route-schema.ts). Nothing is written beside the routes, so the
 * document cannot drift from them. Served without credentials at /api/v2/openApi and
 * /api/v3/openApi, and readable at /api/docs (Swagger UI, served from the swagger-ui-dist
 * package: no outside host is contacted).
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { FastifyContextConfig, FastifyInstance, FastifySchema } from 'fastify'
import type { JsonSchema, RouteSchema } from './route-schema.js'

/** A registered route as the documents see it. */
export interface RouteSummary {
  method: string
  url: string
  schema?: FastifySchema
  config?: FastifyContextConfig
}

type Json = Record<string, unknown>
export type ApiVersion = 'v2' | 'v3'

const documented = (version: ApiVersion, route: RouteSummary) =>
  route.method !== 'HEAD' && route.url.startsWith(`/api/${version}/`) && !route.url.endsWith('/openApi')

/** The OpenAPI path of a Fastify URL: `/api/v3/cases/:id` → `/api/v3/cases/{id}`. */
export const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')

function parameters(where: 'path' | 'query', schema: JsonSchema | undefined): Json[] {
  const properties = (schema?.properties ?? {}) as Record<string, JsonSchema>
  const required = new Set((schema?.required ?? []) as string[])
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = property
    return {
      name,
      in: where,
      required: where === 'path' || required.has(name),
      ...(description ? { description } : {}),
      schema: rest,
    }
  })
}

function operation(route: RouteSummary): Json {
  const schema = (route.schema ?? {}) as RouteSchema
  const path = route.url.replace(/^\/api\/v[23]/, '')
  const op: Json = {
    operationId: `${route.method.toLowerCase()}${path.replace(/[:/{}]+(.)/g, (_m, c: string) => c.toUpperCase())}`,
    ...(schema.summary ? { summary: schema.summary } : {}),
    tags: [path.split('/')[1]],
    parameters: [...parameters('path', schema.params), ...parameters('query', schema.querystring)],
    responses: schema.response ?? { default: { description: 'Not described' } },
  }
  if (schema.body) {
    const required = Array.isArray(schema.body.required) && schema.body.required.length > 0
    op.requestBody = {
      required,
      content: Object.fromEntries(
        (schema.consumes ?? ['application/json']).map((type) => [type, { schema: schema.body }]),
      ),
    }
  }
  return op
}

/** The OpenAPI document of one interface, from the routes the app has. */
export function openApiDocument(routes: readonly RouteSummary[], version: ApiVersion, publicUrl: string): Json {
  const paths: Record<string, Json> = {}
  for (const route of routes) {
    if (!documented(version, route)) continue
    const path = openApiPath(route.url)
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation(route) }
  }
  const tags = [
    ...new Set(
      Object.values(paths).flatMap((ops) => Object.values(ops).flatMap((op) => (op as { tags: string[] }).tags)),
    ),
  ].sort()
  return {
    openapi: '3.1.0',
    info: {
      title: `Bulwark REST API ${version}`,
      version: '0.1.0',
      description: `Generated from the schemas of the ${Object.keys(paths).length} paths this server registered. ${
        version === 'v2'
          ? 'Errors: `{status: "Error", message}`; with `Accept: application/xml` every envelope comes as XML.'
          : 'Errors: `{errCode, message, status: "Error"}`.'
      } Bad input is refused by the server's own rules (the schemas describe, they do not add checks).`,
    },
    servers: [{ url: publicUrl }],
    security: [{ token: [] }, { hmac: [] }],
    tags: tags.map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        token: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: '`TC-Token <token>` (or `Svc-Token`, or `Basic` for accounts with a password)',
        },
        hmac: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: '`TC <accessId>:<signature>` with a `Timestamp` header',
        },
      },
    },
  }
}

const SWAGGER_UI_FILES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
}

// An initializer of our own (a file, not inline script, so a strict Content-Security-Policy may stay on).
const INITIALIZER = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    urls: [{ url: '/api/v3/openApi', name: 'REST v3' }, { url: '/api/v2/openApi', name: 'REST v2' }],
    dom_id: '#swagger-ui', deepLinking: true, layout: 'StandaloneLayout',
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  })
}
`

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Bulwark REST API</title>
<link rel="stylesheet" href="/api/docs/swagger-ui.css"></head>
<body><noscript>The API explorer needs JavaScript; the documents themselves are at
<a href="/api/v3/openApi">/api/v3/openApi</a> and <a href="/api/v2/openApi">/api/v2/openApi</a> (OpenAPI 3.1).</noscript>
<div id="swagger-ui"></div>
<script src="/api/docs/swagger-ui-bundle.js"></script>
<script src="/api/docs/swagger-ui-standalone-preset.js"></script>
<script src="/api/docs/init.js"></script>
</body></html>
`

/** Registered last, so the documents see every route; each built (or read) once, on first request. */
export function installOpenApiRoutes(app: FastifyInstance, publicUrl: string): void {
  const documents = new Map<ApiVersion, Json>()
  const documentFor = (version: ApiVersion) => {
    if (!documents.has(version)) documents.set(version, openApiDocument(app.routeTable, version, publicUrl))
    return documents.get(version) as Json
  }
  for (const version of ['v2', 'v3'] as const)
    app.get(`/api/${version}/openApi`, (_req, reply) => {
      reply.send(documentFor(version))
    })

  app.get('/api/docs', (_req, reply) => {
    reply.type('text/html; charset=utf-8').send(PAGE)
  })
  app.get('/api/docs/init.js', (_req, reply) => {
    reply.type('text/javascript; charset=utf-8').send(INITIALIZER)
  })
  const assets = new Map<string, Buffer>()
  const uiDir = () => dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))
  for (const [file, type] of Object.entries(SWAGGER_UI_FILES)) {
    app.get(`/api/docs/${file}`, (_req, reply) => {
      if (!assets.has(file)) assets.set(file, readFileSync(join(uiDir(), file)))
      reply.type(type).header('cache-control', 'public, max-age=86400').send(assets.get(file))
    })
  }
}

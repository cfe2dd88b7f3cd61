/**
 * The composition root: builds the HTTP application, one Fastify instance with each interface a
 * plugin under its own prefix with its own error envelope, authentication and content types.
 * Nothing under protocols/ imports it; it sits above them all. Request ids are
 * returned in X-Request-Id and appear on the matching log lines.
 */
import { randomUUID } from 'node:crypto'
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyServerOptions, LogController } from 'fastify'
import type { Caller, RequestContext } from './domain/context.js'
import './protocols/http/request-state.js'
import type { Services } from './domain/services.js'
import type { Store } from './store/connect.js'
import { enterForeground } from './core/foreground.js'
import { registerV2 } from './protocols/v2/plugin.js'
import { v3ErrorBody } from './protocols/v3/present.js'
import { classifyError } from './protocols/http/errors.js'
import { sendJsonExactly } from './protocols/http/media-types.js'
import { readJsonBody } from './protocols/http/body.js'
import { installHealthRoutes, type Readiness } from './protocols/http/health.js'
import { type RouteSummary, installOpenApiRoutes } from './protocols/http/openapi.js'
import { type RouteSchema, schemaCompilers, withPathParams } from './protocols/http/route-schema.js'
import { installMetricsRoute, installRequestMetrics, type Metrics } from './protocols/http/metrics.js'
import { createRateLimiter } from './protocols/http/rate-limit.js'
import {
  MAX_HEAD_BYTES,
  answerClientError,
  keepConnectionAfterRefusedBody,
  uriTooLong,
} from './protocols/http/limits.js'
import { registerV3 } from './protocols/v3/plugin.js'
import { type ConsoleOptions, registerConsole } from './protocols/console/plugin.js'
import { registerTaxii11, sendStatusMessage } from './protocols/taxii11/plugin.js'
import type { PollOptions } from './protocols/taxii11/poll.js'
import { TAXII_PREFIX, registerTaxii21 } from './protocols/taxii21/plugin.js'
import { taxiiError } from './protocols/taxii21/errors.js'
import { TAXII_MEDIA_TYPE } from './protocols/taxii21/negotiate.js'

const REST_ROUTE = /^\/api\/v[23]\//

export interface AppOptions {
  store: Store
  services: Services
  https?: { key: string | Buffer; cert: string | Buffer }
  trustedProxies?: string[]
  bodyLimitBytes?: number
  /** false silences logging (tests); otherwise a pino level. */
  logLevel?: string | false
  /** Where log lines go (default stdout); tests read them from here. */
  logStream?: { write(line: string): void }
  /** TAXII 1.1 result part and Content_Block sizes (tests make them small). */
  taxii11Poll?: Partial<PollOptions>
  /** What /api/ready checks besides the database and its migrations. */
  readiness?: Readiness
  /** Prometheus metrics; without them no per-request metrics hook is installed. */
  metrics?: Metrics
  /** Serves the metrics at /api/metrics to `Authorization: Bearer <token>`. */
  metricsToken?: string
  /** REST requests per account per window on this node; off without max. */
  rateLimit?: { max?: number; windowMs: number }
  /** The analysts' console: where its build is, and (tests) its sign-in throttle and session lifetime. */
  console?: Pick<ConsoleOptions, 'dir' | 'throttle' | 'sessionTtlMs'>
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const bodyLimit = options.bodyLimitBytes ?? 5 * 1024 * 1024
  const serverOptions: FastifyServerOptions & { https?: unknown; http?: unknown } = {
    logger:
      options.logLevel === false
        ? false
        : {
            level: options.logLevel ?? 'info',
            redact: {
              paths: ['req.headers.authorization', 'req.headers.cookie', 'req.headers.timestamp'],
              censor: '[redacted]',
            },
            ...(options.logStream ? { stream: options.logStream } : {}),
          },
    genReqId: () => randomUUID(),
    // One line per request (written when the response is sent) instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: options.trustedProxies?.length ? options.trustedProxies : false,
    bodyLimit,
    // Paths are case-sensitive and may carry URL-encoded indicator values (including %2F).
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 8192 },
    return503OnClosing: true,
    // Errors raised before routing (a badly encoded URL) get the envelope of the interface the path names.
    frameworkErrors: (error, req, res) => {
      const { status, message } = classifyError(uriTooLong(req.url) ?? error)
      const reply = res as unknown as FastifyReply
      if ((req.url ?? '').startsWith('/api/taxii/')) return sendStatusMessage(reply, '0', error, String(req.id))
      if ((req.url ?? '').startsWith(`${TAXII_PREFIX}/`)) {
        const e = taxiiError(error, String(req.id))
        return reply.code(e.status).header('content-type', TAXII_MEDIA_TYPE).send(e.body)
      }
      if ((req.url ?? '').startsWith('/api/v3/')) return sendJsonExactly(reply, status, v3ErrorBody('invalid', message))
      return sendJsonExactly(reply, status, { status: 'Error', message })
    },
    clientErrorHandler: answerClientError,
    http: { maxHeaderSize: MAX_HEAD_BYTES },
  }
  if (options.https) serverOptions.https = { ...options.https, maxHeaderSize: MAX_HEAD_BYTES }
  const app = Fastify(serverOptions as FastifyServerOptions)

  // SDKs send Content-Type: application/json on bodiless POSTs (activate, add a tag…): an empty
  // body means "no body". Every other body goes through the one JSON reader, which refuses
  // inherited key names (__proto__, toString…) at any depth.
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, readJsonBody)

  app.decorate(
    'rateLimiter',
    options.rateLimit?.max
      ? createRateLimiter({ max: options.rateLimit.max, windowMs: options.rateLimit.windowMs })
      : null,
  )
  const routeTable: RouteSummary[] = []
  app.decorate('routeTable', routeTable)
  // Route schemas document the REST routes; the domain validates (route-schema.ts says why).
  app.setValidatorCompiler(schemaCompilers.validator)
  app.setSerializerCompiler(schemaCompilers.serializer)
  app.addHook('onRoute', (route) => {
    if (REST_ROUTE.test(route.url)) route.schema = withPathParams(route.url, route.schema as RouteSchema | undefined)
    for (const method of [route.method].flat())
      routeTable.push({ method, url: route.url, schema: route.schema, config: route.config })
  })

  app.decorateRequest('caller', null as unknown as Caller)
  app.decorateRequest('ctx', null as unknown as RequestContext)
  // Callback-style hooks: these run on every request, and an async hook costs a promise each time.
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('X-Request-Id', req.id)
    // Long work (a job's chunks, a TAXII page's batches) waits while interactive requests are in flight
    // (core/foreground.ts); a route that is itself long work says so in its config.
    if (!req.routeOptions.config?.background) {
      const leave = enterForeground()
      reply.raw.once('finish', leave).once('close', leave)
    }
    done(uriTooLong(req.raw.url))
  })
  // A refused body (too large, malformed): keep the connection, reading and dropping the rest (limits.ts).
  app.addHook('onError', (req, reply, _error, done) => {
    // Fastify asks to close the connection exactly when a body parser failed.
    if (reply.getHeader('connection') === 'close') keepConnectionAfterRefusedBody(req.raw, reply)
    done()
  })
  // The per-request line is written at info; at quieter levels the hook is not installed at all.
  const logsRequests = (app.log as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled?.('info') ?? false
  if (logsRequests) {
    app.addHook('onResponse', (req, reply, done) => {
      req.log.info(
        {
          method: req.method,
          url: req.url,
          statusCode: reply.statusCode,
          responseTime: Math.round(reply.elapsedTime * 100) / 100,
        },
        'request completed',
      )
      done()
    })
  }

  if (options.metrics) installRequestMetrics(app, options.metrics)
  if (options.metrics && options.metricsToken) installMetricsRoute(app, options.metrics, options.metricsToken)
  installHealthRoutes(app, options.store, options.readiness)

  await app.register(registerV2, { prefix: '/api/v2', store: options.store, services: options.services })
  await app.register(registerV3, { prefix: '/api/v3', store: options.store, services: options.services })
  await app.register(registerTaxii11, {
    prefix: '/api/taxii',
    store: options.store,
    services: options.services,
    poll: options.taxii11Poll,
  })
  await app.register(registerTaxii21, {
    prefix: TAXII_PREFIX,
    store: options.store,
    services: options.services,
    bodyLimit,
  })
  await registerConsole(app, { store: options.store, services: options.services, ...options.console })
  installOpenApiRoutes(app, options.services.publicUrl)

  app.setNotFoundHandler((req, reply) => {
    sendJsonExactly(reply, 404, {
      status: 'Error',
      message: `No such endpoint: ${req.method} ${req.url.split('?')[0]}`,
    })
  })
  app.setErrorHandler((error, req, reply) => {
    const status = (error as { statusCode?: number }).statusCode
    if (status && status < 500)
      return sendJsonExactly(reply, status, { status: 'Error', message: (error as Error).message })
    const classified = classifyError(error)
    if (classified.retryAfter) {
      reply.header('retry-after', String(classified.retryAfter))
      return sendJsonExactly(reply, classified.status, { status: 'Error', message: classified.message })
    }
    req.log.error({ err: error }, 'unhandled error')
    return sendJsonExactly(reply, 500, { status: 'Error', message: `Internal error (request ${req.id})` })
  })
  return app
}

/**
 * Builds the HTTP application: one Fastify instance, each interface a plugin under its own
 * prefix with its own error envelope, authentication and content types. Request ids are
 * returned in X-Request-Id and appear on the matching log lines.
 */
import { randomUUID } from 'node:crypto'
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyServerOptions, LogController } from 'fastify'
import type { Caller, RequestContext } from '../../domain/context.js'
import { createJsonBodyParser } from './json-body.js'
import type { Services } from '../../domain/services.js'
import type { Store } from '../../store/connect.js'
import { registerV2 } from '../v2/plugin.js'
import { v3ErrorBody } from '../v3/present.js'
import { classifyError } from './errors.js'
import { registerV3 } from '../v3/plugin.js'

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller
    ctx: RequestContext
  }
}

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
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const serverOptions: FastifyServerOptions & { https?: unknown } = {
    logger: options.logLevel === false ? false : {
      level: options.logLevel ?? 'info',
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'req.headers.timestamp'], censor: '[redacted]' },
      ...(options.logStream ? { stream: options.logStream } : {}),
    },
    genReqId: () => randomUUID(),
    // One line per request (written when the response is sent) instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: options.trustedProxies?.length ? options.trustedProxies : false,
    bodyLimit: options.bodyLimitBytes ?? 5 * 1024 * 1024,
    // Paths are case-sensitive and may carry URL-encoded indicator values (including %2F).
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 8192 },
    return503OnClosing: true,
    // Errors raised before routing (a badly encoded URL) get the envelope of the interface the path names.
    frameworkErrors: (error, req, res) => {
      const { status, message } = classifyError(error)
      const reply = res as unknown as FastifyReply
      if ((req.url ?? '').startsWith('/api/v3/')) return reply.code(status).send(v3ErrorBody('invalid', message))
      return reply.code(status).send({ status: 'Error', message })
    },
  }
  if (options.https) serverOptions.https = options.https
  const app = Fastify(serverOptions as FastifyServerOptions)

  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, createJsonBodyParser(app))

  app.decorateRequest('caller', null as unknown as Caller)
  app.decorateRequest('ctx', null as unknown as RequestContext)
  // Callback-style hooks: these run on every request, and an async hook costs a promise each time.
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('X-Request-Id', req.id)
    done()
  })
  // The per-request line is written at info; at quieter levels the hook is not installed at all.
  const logsRequests = (app.log as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled?.('info') ?? false
  if (logsRequests) {
    app.addHook('onResponse', (req, reply, done) => {
      req.log.info({ method: req.method, url: req.url, statusCode: reply.statusCode, responseTime: Math.round(reply.elapsedTime * 100) / 100 }, 'request completed')
      done()
    })
  }

  await app.register(registerV2, { prefix: '/api/v2', store: options.store, services: options.services })
  await app.register(registerV3, { prefix: '/api/v3', store: options.store, services: options.services })

  app.setNotFoundHandler((req, reply) => {
    reply.code(404).send({ status: 'Error', message: `No such endpoint: ${req.method} ${req.url.split('?')[0]}` })
  })
  app.setErrorHandler((error, req, reply) => {
    const status = (error as { statusCode?: number }).statusCode
    if (status && status < 500) return reply.code(status).send({ status: 'Error', message: (error as Error).message })
    req.log.error({ err: error }, 'unhandled error')
    return reply.code(500).send({ status: 'Error', message: `Internal error (request ${req.id})` })
  })
  return app
}

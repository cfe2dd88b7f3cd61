/**
 * REST API v2: JSON or XML (Accept: application/xml), the spec's envelopes, one route
 * module per resource. Errors of every kind leave here as {status: "Error", message}.
 */
import type { FastifyInstance, FastifyPluginOptions } from 'fastify'
import type { Services } from '../../domain/services.js'
import type { Store } from '../../store/connect.js'
import { classifyError } from '../http/errors.js'
import { installRestAuth } from '../http/rest-auth.js'
import { parseXmlBody } from '../http/xml.js'
import { FASTIFY_JSON, JSON_MEDIA_TYPE } from '../http/media-types.js'
import { sendV2Error } from './present.js'
import { V2_ROUTES } from './routes/index.js'

export async function registerV2(
  app: FastifyInstance,
  options: FastifyPluginOptions & { store: Store; services: Services },
) {
  app.addContentTypeParser(['application/xml', 'text/xml'], { parseAs: 'string' }, (_req, body, done) => {
    try {
      done(null, parseXmlBody(body as string))
    } catch (error) {
      done(error as Error, undefined)
    }
  })
  app.addContentTypeParser(
    ['application/octet-stream', 'text/plain', 'text/csv'],
    { parseAs: 'buffer', bodyLimit: 64 * 1024 * 1024 },
    (_req, body, done) => done(null, body),
  )

  app.setErrorHandler((error, req, reply) => {
    const classified = classifyError(error)
    if (classified.unexpected) req.log.error({ err: error }, 'unhandled error')
    const message = classified.unexpected ? `Internal error (request ${req.id})` : classified.message
    if (classified.retryAfter) reply.header('retry-after', String(classified.retryAfter))
    return sendV2Error(req, reply, classified.status, message)
  })
  app.setNotFoundHandler((req, reply) =>
    sendV2Error(req, reply, 404, `No such v2 endpoint: ${req.method} ${req.url.split('?')[0]}`),
  )

  // The v2 SDK reads a body only when Content-Type equals `application/json`; Fastify appends a
  // charset to every JSON reply (RFC 8259 defines none). Only that default form is rewritten, so a
  // type a route sets on purpose is left alone.
  app.addHook('onSend', (_req, reply, payload, done) => {
    if (reply.getHeader('content-type') === FASTIFY_JSON) reply.header('content-type', JSON_MEDIA_TYPE)
    done(null, payload)
  })

  installRestAuth(app, options.store, options.services)
  for (const register of V2_ROUTES) await register(app)
}

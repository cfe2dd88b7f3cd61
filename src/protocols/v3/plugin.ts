/**
 * REST API v3: JSON only. Errors leave as the platform's v3 body
 * {errCode, message, status: "Error"}.
 */
import type { FastifyInstance, FastifyPluginOptions } from 'fastify'
import type { Services } from '../../domain/services.js'
import type { Store } from '../../store/connect.js'
import { classifyError } from '../http/errors.js'
import { installRestAuth } from '../http/rest-auth.js'
import { v3ErrorBody } from './present.js'
import { V3_ROUTES } from './routes/index.js'

export async function registerV3(app: FastifyInstance, options: FastifyPluginOptions & { store: Store; services: Services }) {
  app.setErrorHandler((error, req, reply) => {
    const classified = classifyError(error)
    if (classified.unexpected) req.log.error({ err: error }, 'unhandled error')
    const message = classified.unexpected ? `Internal error (request ${req.id})` : classified.message
    return reply.code(classified.status).type('application/json; charset=utf-8').send(v3ErrorBody(classified.code, message))
  })
  app.setNotFoundHandler((req, reply) =>
    reply.code(404).send(v3ErrorBody('not_found', `No such v3 endpoint: ${req.method} ${req.url.split('?')[0]}`)))
  installRestAuth(app, options.store, options.services)
  for (const register of V3_ROUTES) await register(app)
}

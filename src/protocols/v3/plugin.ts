/**
 * REST API v3: JSON only. Errors leave as the platform's v3 body
 * {errCode, message, status: "Error"}, with the media type tcex expects.
 *
 * Bodies: JSON. SDKs send `{}` with GET and DELETE and may send OPTIONS with a JSON
 * Content-Type and an empty body, so an empty JSON body reads as no body rather than a 400.
 */
import type { FastifyInstance, FastifyPluginOptions } from 'fastify'
import type { Services } from '../../domain/services.js'
import type { Store } from '../../store/connect.js'
import { readJsonBody } from '../http/body.js'
import { installRestAuth } from '../http/rest-auth.js'
import { sendV3Body, v3ErrorBody, v3ErrorHandler } from './present.js'
import { registerEndpoints } from './routes.js'
import { V3_ENDPOINTS, V3_EXTRA_ROUTES } from './routes/index.js'

export async function registerV3(
  app: FastifyInstance,
  options: FastifyPluginOptions & { store: Store; services: Services },
) {
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, readJsonBody)
  // Python's requests sends `data='{}'` without a Content-Type; read such bodies as JSON too.
  app.addContentTypeParser(['text/plain', '*'], { parseAs: 'string' }, readJsonBody)
  app.setErrorHandler(v3ErrorHandler())
  app.setNotFoundHandler((req, reply) =>
    sendV3Body(reply, 404, v3ErrorBody('not_found', `No such v3 endpoint: ${req.method} ${req.url.split('?')[0]}`)),
  )
  installRestAuth(app, options.store, options.services)
  for (const register of V3_EXTRA_ROUTES) await register(app)
  await registerEndpoints(app, V3_ENDPOINTS)
}

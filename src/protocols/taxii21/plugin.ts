/**
 * The read-only TAXII 2.1 server under `/api/services/taxii`: application 2.0 at `/v2/taxii`,
 * application 1.0 at `/v1`. One set of hooks for both: every response is
 * `application/taxii+json;version=2.1`, Accept is negotiated before anything else, callers
 * authenticate with Basic (TAXII accounts) or Bearer (API tokens), and whatever is thrown
 * becomes the TAXII error resource.
 */
import type { FastifyInstance } from 'fastify'
import { authenticate } from '../../domain/access/authentication.js'
import { storeForRequest } from '../../domain/read-routing.js'
import { forbidden, notFound } from '../../core/errors.js'
import type { Services } from '../../domain/services.js'
import type { Store } from '../../store/connect.js'
import { isSecure } from '../http/rest-auth.js'
import { BASIC_CHALLENGE, TaxiiHttpError, taxiiError } from './errors.js'
import { TAXII_MEDIA_TYPE, acceptsTaxii } from './negotiate.js'
import { registerApplication } from './routes.js'
import { StixIds } from '../../formats/stix2/stix.js'
import { StixIdIndex } from './stix-id-index.js'

export const TAXII_PREFIX = '/api/services/taxii'

export interface TaxiiPluginOptions {
  store: Store
  services: Services
  bodyLimit: number
}

export async function registerTaxii21(app: FastifyInstance, options: TaxiiPluginOptions): Promise<void> {
  const { store, services } = options
  const ids = new StixIds(services.installationId)
  const index = new StixIdIndex(ids)

  app.addHook('onRequest', async (req, reply) => {
    reply.header('content-type', TAXII_MEDIA_TYPE)
    if (!acceptsTaxii(req.headers.accept)) {
      throw new TaxiiHttpError(406, `Accept names no media type this server returns; ask for ${TAXII_MEDIA_TYPE}`)
    }
    if (!isSecure(req)) throw forbidden('HTTPS is required')
    req.caller = await authenticate(
      services,
      {
        authorization: req.headers.authorization,
        timestamp: undefined,
        pathAndQuery: req.raw.url ?? req.url,
        method: req.method,
        nowMs: Date.now(),
      },
      ['basic', 'bearer'],
    )
    req.workStore = await storeForRequest(store, req.caller, true)
  })

  app.setErrorHandler((error, req, reply) => {
    const e = taxiiError(error, req.id)
    if (e.unexpected) req.log.error({ err: error }, 'unhandled error')
    if (e.status === 401) reply.header('WWW-Authenticate', BASIC_CHALLENGE)
    if (e.retryAfter) reply.header('retry-after', String(e.retryAfter))
    return reply.code(e.status).header('content-type', TAXII_MEDIA_TYPE).send(e.body)
  })

  app.setNotFoundHandler(async (req) => {
    throw notFound(`No TAXII endpoint ${req.method} ${req.url.split('?')[0]}`)
  })

  await app.register(
    async (v2) =>
      registerApplication(v2, {
        store,
        services,
        ids,
        index,
        version: '2.0',
        servicePath: `${TAXII_PREFIX}/v2/taxii`,
        bodyLimit: options.bodyLimit,
      }),
    { prefix: '/v2/taxii' },
  )
  await app.register(
    async (v1) =>
      registerApplication(v1, {
        store,
        services,
        ids,
        index,
        version: '1.0',
        servicePath: `${TAXII_PREFIX}/v1`,
        bodyLimit: options.bodyLimit,
      }),
    { prefix: '/v1' },
  )
}

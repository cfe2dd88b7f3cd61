/**
 * TAXII 1.1 services over the TAXII HTTPS 1.0 binding, under /api/taxii: discovery,
 * collection management and poll. The request's binding headers and credentials are checked
 * by one hook; every failure leaves through one error handler as a Status_Message with the
 * binding headers, never as the REST envelope or an HTML page.
 */
import { Readable } from 'node:stream'
import type { FastifyInstance, FastifyPluginOptions, FastifyReply, FastifyRequest } from 'fastify'
import { authenticate } from '../../domain/access/authentication.js'
import { storeForRequest } from '../../domain/read-routing.js'
import { RETRY_AFTER_SECONDS, isDomainError } from '../../core/errors.js'
import { feedOwners } from '../../domain/access/owner-scope.js'
import type { Services } from '../../domain/services.js'
import type { Store } from '../../store/connect.js'
import { classifyError } from '../http/errors.js'
import {
  MESSAGE_BINDING,
  PROTOCOL_HTTP,
  PROTOCOL_HTTPS,
  SERVICES,
  SERVICES_VERSION,
  type ServiceType,
  type StatusType,
} from './constants.js'
import { STATUS_OF_CODE, Taxii11Error, badMessage, httpStatusOf } from './errors.js'
import {
  type PollFulfillment,
  type TaxiiRequest,
  parseTaxiiMessage,
  renderCollectionInformationResponse,
  renderDiscoveryResponse,
  renderStatusMessage,
} from './messages.js'
import { type PollOptions, answerPollFulfillment, answerPollRequest, pollOptions } from './poll.js'

declare module 'fastify' {
  interface FastifyRequest {
    taxiiMessageId?: string
  }
}

/** Requests are small (the largest is a Poll_Request with a query); anything bigger is refused unread. */
export const TAXII_BODY_LIMIT = 1024 * 1024

const BINDING_HEADERS = {
  'x-taxii-content-type': MESSAGE_BINDING,
  'x-taxii-protocol': PROTOCOL_HTTPS,
  'x-taxii-services': SERVICES_VERSION,
}

export interface Taxii11Options extends FastifyPluginOptions {
  store: Store
  services: Services
  poll?: Partial<PollOptions>
}

function header(req: FastifyRequest, name: string): string | undefined {
  const value = req.headers[name]
  return (Array.isArray(value) ? value[0] : value)?.trim()
}

function checkBindingHeaders(req: FastifyRequest): void {
  const contentType = header(req, 'x-taxii-content-type')
  if (contentType !== MESSAGE_BINDING) {
    throw new Taxii11Error(
      'UNSUPPORTED_MESSAGE',
      contentType ? `Unsupported X-TAXII-Content-Type '${contentType}'` : 'X-TAXII-Content-Type is required',
      { SUPPORTED_BINDING: [MESSAGE_BINDING] },
    )
  }
  const accept = header(req, 'x-taxii-accept')
  if (
    accept !== undefined &&
    !accept
      .split(',')
      .map((s) => s.trim())
      .includes(MESSAGE_BINDING)
  ) {
    throw new Taxii11Error('UNSUPPORTED_MESSAGE', `Unsupported X-TAXII-Accept '${accept}'`, {
      SUPPORTED_BINDING: [MESSAGE_BINDING],
    })
  }
  const services = header(req, 'x-taxii-services')
  if (services !== SERVICES_VERSION) {
    throw badMessage(
      services
        ? `Unsupported X-TAXII-Services '${services}': this server speaks ${SERVICES_VERSION}`
        : `X-TAXII-Services is required (${SERVICES_VERSION})`,
    )
  }
  const protocol = header(req, 'x-taxii-protocol')
  // The platform's own sample sends the HTTP binding's id over HTTPS, so both ids are taken.
  if (protocol !== undefined && protocol !== PROTOCOL_HTTPS && protocol !== PROTOCOL_HTTP) {
    throw new Taxii11Error('UNSUPPORTED_PROTOCOL', `Unsupported X-TAXII-Protocol '${protocol}'`, {
      SUPPORTED_PROTOCOL: [PROTOCOL_HTTPS],
    })
  }
  if (req.protocol !== 'https') {
    throw new Taxii11Error('UNSUPPORTED_PROTOCOL', 'The TAXII services are served over HTTPS only', {
      SUPPORTED_PROTOCOL: [PROTOCOL_HTTPS],
    })
  }
}

interface Status {
  type: StatusType
  message: string
  details: Record<string, string[]>
  unexpected: boolean
}

function statusOf(error: unknown): Status {
  if (error instanceof Taxii11Error)
    return { type: error.statusType, message: error.message, details: error.details, unexpected: false }
  if (isDomainError(error) && error.code === 'try_later')
    return {
      type: 'RETRY',
      message: error.message,
      details: { ESTIMATED_WAIT: [String(RETRY_AFTER_SECONDS)] },
      unexpected: false,
    }
  if (isDomainError(error))
    return { type: STATUS_OF_CODE[error.code], message: error.message, details: {}, unexpected: false }
  const code = (error as { code?: string })?.code
  if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return {
      type: 'UNSUPPORTED_MESSAGE',
      message: 'Content-Type must be application/xml',
      details: { SUPPORTED_BINDING: [MESSAGE_BINDING] },
      unexpected: false,
    }
  }
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return {
      type: 'BAD_MESSAGE',
      message: `The message is larger than ${TAXII_BODY_LIMIT} bytes`,
      details: {},
      unexpected: false,
    }
  const classified = classifyError(error)
  return {
    type: classified.unexpected
      ? 'FAILURE'
      : (STATUS_OF_CODE[classified.code as keyof typeof STATUS_OF_CODE] ?? 'BAD_MESSAGE'),
    message: classified.message,
    details: {},
    unexpected: classified.unexpected,
  }
}

/** Sends a Status_Message with the binding headers; also used for errors raised before routing. */
export function sendStatusMessage(
  reply: FastifyReply,
  inResponseTo: string,
  error: unknown,
  requestId: string,
): FastifyReply {
  const status = statusOf(error)
  const message = status.unexpected ? `Internal error (request ${requestId})` : status.message
  if (status.type === 'UNAUTHORIZED') reply.header('www-authenticate', 'Basic realm="Bulwark TAXII"')
  if (status.type === 'RETRY') reply.header('retry-after', String(RETRY_AFTER_SECONDS))
  return reply
    .code(httpStatusOf(status.type, status.unexpected))
    .headers(BINDING_HEADERS)
    .type('application/xml')
    .send(renderStatusMessage(inResponseTo, status.type, message, status.details))
}

export async function registerTaxii11(app: FastifyInstance, options: Taxii11Options) {
  const { store, services } = options
  const poll = pollOptions(options.poll)

  app.removeAllContentTypeParsers()
  app.addContentTypeParser(
    ['application/xml', 'text/xml'],
    { parseAs: 'string', bodyLimit: TAXII_BODY_LIMIT },
    (req, body, done) => {
      try {
        done(
          null,
          parseTaxiiMessage(body as string, (id) => {
            req.taxiiMessageId = id
          }),
        )
      } catch (error) {
        done(error as Error, undefined)
      }
    },
  )

  app.addHook('onRequest', (_req, reply, done) => {
    reply.headers(BINDING_HEADERS)
    done()
  })
  app.addHook('preHandler', async (req) => {
    // Fastify runs a prefix's hooks for its not-found handler too; that handler answers on its own.
    if (req.is404) return
    checkBindingHeaders(req)
    if (!req.body) throw badMessage('The request has no TAXII message')
    req.caller = await authenticate(
      services,
      {
        authorization: req.headers.authorization,
        timestamp: undefined,
        pathAndQuery: req.raw.url ?? req.url,
        method: req.method,
        nowMs: Date.now(),
      },
      ['basic'],
    )
    req.workStore = await storeForRequest(store, req.caller, true)
    // The spec: a TAXII account of the Organization. Every account belongs to one, so this holds by construction.
  })

  app.setErrorHandler((error, req, reply) => {
    if (statusOf(error).unexpected) req.log.error({ err: error }, 'unhandled error')
    return sendStatusMessage(reply, req.taxiiMessageId ?? '0', error, req.id)
  })
  app.setNotFoundHandler((req, reply) => {
    const service = Object.values(SERVICES).some((s) =>
      req.url.split('?')[0].replace(/\/+$/, '').endsWith(`/taxii/${s.path}`),
    )
    const error = service
      ? badMessage(`TAXII services take POST, not ${req.method}`)
      : new Taxii11Error('NOT_FOUND', `No TAXII 1.1 service at ${req.url.split('?')[0]}`, {
          ITEM: [req.url.split('?')[0]],
        })
    reply
      .code(service ? 405 : 404)
      .headers(BINDING_HEADERS)
      .type('application/xml')
      .send(
        renderStatusMessage('0', service ? 'BAD_MESSAGE' : 'NOT_FOUND', error.message, (error as Taxii11Error).details),
      )
  })

  const route = (
    type: ServiceType,
    answer: (req: FastifyRequest, message: TaxiiRequest) => Promise<string | Readable>,
  ) => {
    app.post(`/${SERVICES[type].path}/`, { bodyLimit: TAXII_BODY_LIMIT }, async (req, reply) => {
      const message = req.body as TaxiiRequest
      if (!(SERVICES[type].accepts as readonly string[]).includes(message.type)) throw refuseMessage(type, message)
      const body = await answer(req, message)
      return reply.type('application/xml').send(body)
    })
  }

  route('DISCOVERY', async (req) => renderDiscoveryResponse(req.taxiiMessageId!, services.publicUrl))
  route('COLLECTION_MANAGEMENT', async (req) =>
    renderCollectionInformationResponse(
      req.taxiiMessageId!,
      services.publicUrl,
      feedOwners(req.caller).map((m) => ({
        name: m.ownerName,
        description: `Indicators of the ${m.ownerType} ${m.ownerName}, as STIX 1.1.1, polled by windows of at most 24 hours.`,
      })),
    ),
  )
  route('POLL', async (req, message) => {
    const call = {
      store: req.workStore ?? store,
      caller: req.caller,
      publicUrl: services.publicUrl,
      now: new Date().toISOString(),
      options: poll,
    }
    const answer =
      message.type === 'Poll_Request'
        ? await answerPollRequest(call, message)
        : await answerPollFulfillment(call, message as PollFulfillment)
    return Readable.from(answer.body, { objectMode: false })
  })
}

function refuseMessage(service: ServiceType, message: TaxiiRequest): Taxii11Error {
  const name = message.type === 'Other' ? message.name : message.type
  if (name === 'Inbox_Message') {
    return new Taxii11Error(
      'DESTINATION_COLLECTION_ERROR',
      'No collection accepts content: the TAXII 1.1 collections are read-only',
    )
  }
  const where = Object.entries(SERVICES).find(([, s]) => (s.accepts as readonly string[]).includes(name))
  return new Taxii11Error(
    'UNSUPPORTED_MESSAGE',
    where
      ? `The ${service} service does not take ${name}: send it to ${SERVICES[where[0] as ServiceType].path}/`
      : `${name} is not supported by this server`,
  )
}

/**
 * The REST API's gate, shared by v2 and v3: HTTPS only, a token or an HMAC signature (or, with no
 * Authorization header, a console session cookie, whose writes must carry the session's CSRF
 * token), then the per-account rate limit when one is set, then the owner the call works in.
 * Leaves a RequestContext on the request.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { authenticate } from '../../domain/access/authentication.js'
import { csrfTokenMatches, resumeSession } from '../../domain/access/sessions.js'
import type { Caller } from '../../domain/context.js'
import { selectOwner } from '../../domain/access/owner-scope.js'
import { storeForRequest } from '../../domain/read-routing.js'
import { DomainError } from '../../core/errors.js'
import type { Services } from '../../domain/services.js'
import { isoAt } from '../../core/time.js'
import type { Store } from '../../store/connect.js'
import { rateLimitedError } from './rate-limit.js'
import {
  CSRF_HEADER,
  WAL_POSITION_COOKIE,
  WAL_POSITION_HEADER,
  cookieOf,
  isSafeMethod,
  sessionTokenOf,
  walPositionCookie,
} from './session-cookie.js'

/**
 * A route's own word on the gate: `anyCredential` also takes Basic (a TAXII account's user name and
 * password, as TAXII does; a person's password stays behind the console's throttled sign-in) and
 * `Bearer <API token>`, for readers that can send nothing else — firewalls reading an outbound list
 * (protocols/v3/routes/lists.ts).
 */
export interface RestAuthConfig {
  anyCredential?: boolean
}

export function isSecure(req: FastifyRequest): boolean {
  return req.protocol === 'https'
}

export function firstQueryValue(req: FastifyRequest, name: string): string | undefined {
  const value = (req.query as Record<string, unknown> | undefined)?.[name]
  const first = Array.isArray(value) ? value[0] : value
  return typeof first === 'string' ? first : undefined
}

function firstHeader(req: FastifyRequest, name: string): string | undefined {
  const value = req.headers[name]
  return Array.isArray(value) ? value[0] : value
}

export function installRestAuth(app: FastifyInstance, store: Store, services: Services): void {
  const limiter = app.rateLimiter
  if (store.replicas) {
    // A write's answer names the WAL position it reached, for the caller's reads on other nodes.
    app.addHook('onSend', async (req, reply, payload) => {
      const position = await req.ctx?.store.writtenPosition?.().catch(() => undefined)
      if (position) {
        reply.header(WAL_POSITION_HEADER, position)
        const cookies = reply.getHeader('set-cookie')
        const list = cookies === undefined ? [] : Array.isArray(cookies) ? cookies : [String(cookies)]
        reply.header('set-cookie', [...list, walPositionCookie(position)])
      }
      return payload
    })
  }
  app.addHook('preHandler', async (req, reply) => {
    if (!isSecure(req)) throw new DomainError('no_credentials', 'HTTPS is required')
    const nowMs = Date.now()
    const sessionToken = req.headers.authorization === undefined ? sessionTokenOf(req) : undefined
    let caller: Caller
    if (sessionToken !== undefined) {
      const active = await resumeSession(services, sessionToken, nowMs)
      if (!isSafeMethod(req.method) && !csrfTokenMatches(active.session, firstHeader(req, CSRF_HEADER)))
        throw new DomainError(
          'no_credentials',
          `A write from the console must carry its session's ${CSRF_HEADER} header`,
        )
      caller = active.caller
    } else {
      const anyCredential = (req.routeOptions.config as RestAuthConfig | undefined)?.anyCredential === true
      caller = await authenticate(
        services,
        {
          authorization: req.headers.authorization,
          timestamp: req.headers.timestamp as string | undefined,
          pathAndQuery: req.raw.url ?? req.url,
          method: req.method,
          nowMs,
        },
        anyCredential ? ['token', 'hmac', 'bearer', 'basic'] : ['token', 'hmac'],
      )
    }
    const retryAfter = limiter?.take(caller.account.id, nowMs)
    if (retryAfter !== undefined) {
      reply.header('retry-after', String(retryAfter))
      throw rateLimitedError(limiter!, retryAfter)
    }
    const membership = selectOwner(caller, firstQueryValue(req, 'owner'))
    req.caller = caller
    req.ctx = {
      store: await storeForRequest(
        store,
        caller,
        isSafeMethod(req.method),
        firstHeader(req, WAL_POSITION_HEADER) ?? cookieOf(req, WAL_POSITION_COOKIE),
      ),
      services,
      caller,
      membership,
      now: isoAt(nowMs),
      owner: { id: membership.ownerId, name: membership.ownerName, type: membership.ownerType },
    }
  })
}

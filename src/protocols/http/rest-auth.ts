/**
 * The REST API's gate, shared by v2 and v3: HTTPS only, a token or an HMAC signature,
 * then the per-account rate limit when one is set, then the owner the call works in. Leaves a
 * RequestContext on the request.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { authenticate } from '../../domain/access/authentication.js'
import { selectOwner } from '../../domain/access/owner-scope.js'
import { DomainError } from '../../core/errors.js'
import type { Services } from '../../domain/services.js'
import { isoAt } from '../../core/time.js'
import type { Store } from '../../store/connect.js'
import { rateLimitedError } from './rate-limit.js'

export function isSecure(req: FastifyRequest): boolean {
  return req.protocol === 'https'
}

export function firstQueryValue(req: FastifyRequest, name: string): string | undefined {
  const value = (req.query as Record<string, unknown> | undefined)?.[name]
  const first = Array.isArray(value) ? value[0] : value
  return typeof first === 'string' ? first : undefined
}

export function installRestAuth(app: FastifyInstance, store: Store, services: Services): void {
  const limiter = app.rateLimiter
  app.addHook('preHandler', async (req, reply) => {
    if (!isSecure(req)) throw new DomainError('no_credentials', 'HTTPS is required')
    const nowMs = Date.now()
    const caller = await authenticate(
      services,
      {
        authorization: req.headers.authorization,
        timestamp: req.headers.timestamp as string | undefined,
        pathAndQuery: req.raw.url ?? req.url,
        method: req.method,
        nowMs,
      },
      ['token', 'hmac'],
    )
    const retryAfter = limiter?.take(caller.account.id, nowMs)
    if (retryAfter !== undefined) {
      reply.header('retry-after', String(retryAfter))
      throw rateLimitedError(limiter!, retryAfter)
    }
    const membership = selectOwner(caller, firstQueryValue(req, 'owner'))
    req.caller = caller
    req.ctx = {
      store,
      services,
      caller,
      membership,
      now: isoAt(nowMs),
      owner: { id: membership.ownerId, name: membership.ownerName, type: membership.ownerType },
    }
  })
}

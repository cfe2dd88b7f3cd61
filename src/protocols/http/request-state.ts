/**
 * What every request and the app carry besides Fastify's own: the caller and its context (left by
 * a protocol's gate), the route table and the rate limiter (left by the composition root, app.ts), and a route's
 * config flag for long work.
 * Types only; importing this module is what makes them known.
 */
import type { Caller, RequestContext } from '../../domain/context.js'
import type { Store } from '../../store/connect.js'
import type { RouteSummary } from './openapi.js'
import type { RateLimiter } from './rate-limit.js'

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller
    ctx: RequestContext
    /** The store a TAXII request works on (domain/read-routing.ts); REST requests carry theirs in ctx. */
    workStore?: Store
  }
  interface FastifyInstance {
    /** Every route registered, in order: what the fuzz test walks and the API documents list. */
    routeTable: readonly RouteSummary[]
    /** Per-account REST rate limit, or null when off. */
    rateLimiter: RateLimiter | null
  }
  interface FastifyContextConfig {
    /** The route is long work (a TAXII collection's pages): it does not hold back other long work (core/foreground.ts). */
    background?: boolean
  }
}

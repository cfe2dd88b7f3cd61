/**
 * Per-account request rate limiting for the REST API, off unless BULWARK_RATE_LIMIT is set: a
 * fixed window per account, counted in this node's memory. Nodes do not share counts, so behind
 * a balancer over N nodes an account may make up to N times the limit; a shared count would cost
 * a database write on every request. Refusals are 429 in the interface's envelope, with Retry-After.
 */

export interface RateLimiter {
  /** Counts one request; returns the seconds to wait when it is over the limit, else undefined. */
  take(accountId: number, nowMs: number): number | undefined
  readonly max: number
  readonly windowMs: number
}

/** Windows that ended are dropped once this many accounts are tracked. */
const SWEEP_AT = 10_000

export function createRateLimiter(options: { max: number; windowMs: number }): RateLimiter {
  const windows = new Map<number, { start: number; count: number }>()
  return {
    max: options.max,
    windowMs: options.windowMs,
    take(accountId, nowMs) {
      let w = windows.get(accountId)
      if (!w || nowMs - w.start >= options.windowMs) {
        if (!w && windows.size >= SWEEP_AT)
          for (const [id, old] of windows) if (nowMs - old.start >= options.windowMs) windows.delete(id)
        w = { start: nowMs, count: 0 }
        windows.set(accountId, w)
      }
      if (++w.count <= options.max) return undefined
      return Math.max(1, Math.ceil((w.start + options.windowMs - nowMs) / 1000))
    },
  }
}

export function rateLimitedError(limiter: RateLimiter, retryAfterSeconds: number): Error {
  // A framework-style error (a status, no domain code), so each interface wraps it in its own envelope.
  return Object.assign(
    new Error(
      `Rate limit exceeded: at most ${limiter.max} requests per ${limiter.windowMs / 1000} s for this account; retry after ${retryAfterSeconds} s`,
    ),
    { statusCode: 429 },
  )
}

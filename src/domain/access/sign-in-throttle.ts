/**
 * Failed console sign-ins, counted per user name (as typed, whether or not such an account exists,
 * so the throttle tells nothing about which names are real) and per client address, in fixed
 * windows in this node's memory. Once either count reaches its limit, further attempts are
 * refused without looking at the password until the window ends. Behind a balancer over N nodes a
 * guesser gets at most N times the limits, as with the REST rate limit (protocols/http/rate-limit.ts).
 */

export interface ThrottleLimits {
  /** Failures per user name per window. */
  perAccount: number
  /** Failures per client address per window (many names tried from one place). */
  perAddress: number
  windowMs: number
}

export const DEFAULT_THROTTLE: ThrottleLimits = { perAccount: 5, perAddress: 20, windowMs: 15 * 60_000 }

/** Windows that ended are dropped once this many keys are tracked. */
const SWEEP_AT = 10_000

export interface SignInThrottle {
  /** Seconds to wait before this name may be tried from this address again, or undefined when it may now. */
  wait(userName: string, address: string, nowMs: number): number | undefined
  failed(userName: string, address: string, nowMs: number): void
  /** A success forgets the name's failures (not the address's: one good account does not excuse a spray). */
  succeeded(userName: string): void
  readonly limits: ThrottleLimits
}

export function createSignInThrottle(limits: ThrottleLimits = DEFAULT_THROTTLE): SignInThrottle {
  const windows = new Map<string, { start: number; count: number }>()
  const current = (key: string, nowMs: number) => {
    const w = windows.get(key)
    return w && nowMs - w.start < limits.windowMs ? w : undefined
  }
  const waitFor = (key: string, max: number, nowMs: number) => {
    const w = current(key, nowMs)
    return w && w.count >= max ? Math.max(1, Math.ceil((w.start + limits.windowMs - nowMs) / 1000)) : undefined
  }
  const count = (key: string, nowMs: number) => {
    let w = current(key, nowMs)
    if (!w) {
      if (windows.size >= SWEEP_AT)
        for (const [k, old] of windows) if (nowMs - old.start >= limits.windowMs) windows.delete(k)
      w = { start: nowMs, count: 0 }
      windows.set(key, w)
    }
    w.count++
  }
  const nameKey = (userName: string) => `u:${userName.trim().toLowerCase()}`
  return {
    limits,
    wait(userName, address, nowMs) {
      const byName = waitFor(nameKey(userName), limits.perAccount, nowMs)
      const byAddress = waitFor(`a:${address}`, limits.perAddress, nowMs)
      return byName === undefined && byAddress === undefined ? undefined : Math.max(byName ?? 0, byAddress ?? 0)
    },
    failed(userName, address, nowMs) {
      count(nameKey(userName), nowMs)
      count(`a:${address}`, nowMs)
    },
    succeeded(userName) {
      windows.delete(nameKey(userName))
    },
  }
}

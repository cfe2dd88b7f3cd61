/**
 * Interactive requests before long work. One event loop serves a node's requests and its long work, which goes on
 * in steps: a batch job's chunks, a TAXII page's batches. Steps that merely yielded (setImmediate) took turns with
 * every step of a request: a TQL search makes several awaits on its way (authentication, the page, the count), and
 * behind each one waited a 20 ms step of a TAXII page or of a job, so its p99 went from 7 ms to 64 ms beside one
 * TAXII reader and to 135 ms during a load (issue 28, point 5). A long step now waits for `backgroundTurn()`, which
 * lets it go on once no interactive request is in flight: a request then waits at most for the one step running
 * when it came. Work is never starved: a step waits at most BACKGROUND_WAIT_MS.
 *
 * @example
 *   const leave = enterForeground()          // a request came in (app.ts)
 *   reply.raw.once('close', leave)
 *   for (const chunk of chunks) { await backgroundTurn(); write(chunk) }   // a batch job
 */
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises'

/** The longest a step of long work waits for interactive requests to finish. */
export const BACKGROUND_WAIT_MS = 50

let inFlight = 0
/** Since when a request has been in flight, and the spans (performance.now()) with one in flight before it. */
let busySince = 0
let busySpans: [number, number][] = []
/** The longest window busyShare is asked about: older spans are dropped. */
const BUSY_MEMORY_MS = 2_000
/** Resolved when the last interactive request in flight finishes; replaced when the next one starts. */
let idle: Promise<void> = Promise.resolve()
let becomeIdle: () => void = () => undefined

/** Counts an interactive request in; the function returned counts it out (once, however often it is called). */
export function enterForeground(): () => void {
  if (inFlight++ === 0) {
    idle = new Promise((resolve) => (becomeIdle = resolve))
    busySince = performance.now()
  }
  let left = false
  return () => {
    if (left) return
    left = true
    if (--inFlight > 0) return
    const now = performance.now()
    busySpans.push([busySince, now])
    if (busySpans[0]![1] < now - BUSY_MEMORY_MS) busySpans = busySpans.filter(([, end]) => end >= now - BUSY_MEMORY_MS)
    becomeIdle()
  }
}

/** The share of the last `windowMs` (up to BUSY_MEMORY_MS) during which at least one request was in flight. */
export function busyShare(windowMs: number): number {
  const now = performance.now()
  const from = now - windowMs
  let busy = inFlight > 0 ? now - Math.max(busySince, from) : 0
  for (const [start, end] of busySpans) if (end > from) busy += end - Math.max(start, from)
  return busy / windowMs
}

/** Interactive requests in flight on this node. */
export const foregroundInFlight = (): number => inFlight

/**
 * Before a step of long work: yields to what the event loop has queued (so requests that arrived are read), then
 * waits while interactive requests are in flight, BACKGROUND_WAIT_MS at most.
 */
export async function backgroundTurn(): Promise<void> {
  await nextTurn()
  if (inFlight === 0) return
  await idleOr(BACKGROUND_WAIT_MS)
}

/**
 * Before a step of work that is to use only what requests leave idle: waits while requests kept the node busy for
 * more than `rule.share` of the last `rule.windowMs`, `rule.waitMs` at most. A share, not the requests in flight at
 * the moment: a client reading page after page leaves the node idle for an instant between two pages, and a step
 * that went on then would compete with the next page; a client asking how its job is doing every few milliseconds
 * keeps the node busy for a small share, and need not hold the work up.
 */
export async function spareTurn(rule: { share: number; windowMs: number; waitMs: number }): Promise<void> {
  await nextTurn()
  const until = performance.now() + rule.waitMs
  while (busyShare(rule.windowMs) > rule.share && performance.now() < until)
    await sleep(Math.min(SPARE_POLL_MS, until - performance.now()))
}

/** How often spareTurn looks at the share again. */
const SPARE_POLL_MS = 20

async function idleOr(ms: number): Promise<void> {
  const timeout = new AbortController()
  await Promise.race([idle, sleep(ms, undefined, { signal: timeout.signal }).catch(() => undefined)])
  timeout.abort()
}

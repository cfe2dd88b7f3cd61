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
/** Resolved when the last interactive request in flight finishes; replaced when the next one starts. */
let idle: Promise<void> = Promise.resolve()
let becomeIdle: () => void = () => undefined

/** Counts an interactive request in; the function returned counts it out (once, however often it is called). */
export function enterForeground(): () => void {
  if (inFlight++ === 0) idle = new Promise((resolve) => (becomeIdle = resolve))
  let left = false
  return () => {
    if (left) return
    left = true
    if (--inFlight === 0) becomeIdle()
  }
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
  const timeout = new AbortController()
  await Promise.race([idle, sleep(BACKGROUND_WAIT_MS, undefined, { signal: timeout.signal }).catch(() => undefined)])
  timeout.abort()
}

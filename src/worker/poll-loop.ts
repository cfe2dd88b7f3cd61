/**
 * The loop every worker of a node runs (batch jobs, imports, scheduled tasks): one round at a time, the
 * next `pollMs` after the last ended, or at once when woken; a wake-up during a round brings another
 * round right after it (the round may have looked before the wake-up's work was there). A round that
 * fails is reported and the loop carries on, so a database that stops answering never ends the process.
 * Stopping lets the round in hand finish (its `stopping()` turns true, so it stops at its next safe point).
 */

export interface PollLoopOptions {
  /** One round; it checks `stopping()` between steps. */
  round(stopping: () => boolean): Promise<unknown>
  pollMs: number
  /** When the first round comes (default: after one `pollMs`). */
  firstAfterMs?: number
  onError(error: unknown): void
  /** After each round, unless stopping (the batch worker listens again for wake-ups here). */
  afterRound?(): void
  /** On stop, before waiting for the round in hand (the batch worker stops listening here). */
  onStop?(): Promise<unknown>
}

export interface PollLoop {
  /** Runs a round now, or right after the one in hand. */
  wake(): void
  /** True from start until stop() is called. */
  running(): boolean
  /** No more rounds; resolves once the round in hand has ended. */
  stop(): Promise<void>
}

export function startPollLoop(options: PollLoopOptions): PollLoop {
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  let busy = false
  let wokenWhileBusy = false
  let current: Promise<unknown> = Promise.resolve()
  const stopping = () => stopped
  const report = (error: unknown) => {
    try {
      options.onError(error)
    } catch {
      // A failing logger must not end the loop either.
    }
  }
  // The loop alone does not keep the process alive: the server does, or a caller that stops it.
  const schedule = (ms: number) => {
    timer = setTimeout(round, ms)
    timer.unref()
  }
  const round = () => {
    if (timer) clearTimeout(timer)
    timer = undefined
    busy = true
    wokenWhileBusy = false
    current = Promise.resolve()
      .then(() => options.round(stopping))
      .catch(report)
      .finally(() => {
        busy = false
        if (stopped) return
        try {
          options.afterRound?.()
        } catch (error) {
          report(error)
        }
        if (wokenWhileBusy) setImmediate(() => stopped || round())
        else schedule(options.pollMs)
      })
  }
  const wake = () => {
    if (stopped) return
    if (busy) wokenWhileBusy = true
    else round()
  }
  schedule(options.firstAfterMs ?? options.pollMs)
  return {
    wake,
    running: () => !stopped,
    async stop() {
      stopped = true
      if (timer) clearTimeout(timer)
      await options.onStop?.()
      await current
    },
  }
}

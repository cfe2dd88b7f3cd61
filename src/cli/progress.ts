/**
 * The progress line of long commands (import, export) on standard error: a bar when the share
 * done is known, else a count, redrawn in place at most every PROGRESS_INTERVAL_MS. Only on a
 * terminal and never with --json, so scripts and logs never see carriage returns.
 */
export const PROGRESS_INTERVAL_MS = 100
const BAR_WIDTH = 30

export interface Progress {
  update(label: string, fraction?: number): void
  /** Draws the last state and ends the line. */
  done(): void
}

export function progressOn(stream: NodeJS.WriteStream, json: boolean): Progress | undefined {
  if (json || !stream.isTTY) return undefined
  let shownAt = 0
  let last: string | undefined
  const draw = () => {
    if (last !== undefined) stream.write(`\r${last}\x1b[K`)
  }
  return {
    update(label, fraction) {
      last = fraction === undefined ? label : `${bar(fraction)} ${label}`
      const now = Date.now()
      if (now - shownAt < PROGRESS_INTERVAL_MS) return
      shownAt = now
      draw()
    },
    done() {
      draw()
      if (last !== undefined) stream.write('\n')
    },
  }
}

function bar(fraction: number): string {
  const share = Math.max(0, Math.min(1, fraction))
  const filled = Math.round(share * BAR_WIDTH)
  return `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${String(Math.floor(share * 100)).padStart(3)}%`
}

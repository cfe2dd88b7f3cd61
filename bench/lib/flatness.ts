/** Flatness of a load (issue 28, point 3): how the time per job and per item moves from the first tenth of the jobs to the last. */

export interface Tenth {
  jobs: number
  secondsPerJob: number
  /** Seconds over items sent (jobs of an owner's last file are smaller), when the item counts are known. */
  microsPerItem?: number
}

export interface Flatness {
  /** Each tenth of the jobs in order (a tenth holds at least one job). */
  tenths: Tenth[]
  firstTenthSecondsPerJob: number
  lastTenthSecondsPerJob: number
  /** last ÷ first, per job. */
  ratio: number
  firstTenthMicrosPerItem?: number
  lastTenthMicrosPerItem?: number
  ratioPerItem?: number
}

/** Ten slices of the jobs in order; with fewer than ten jobs a job stands for more than one tenth. */
export function flatness(seconds: number[], items?: number[]): Flatness {
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0)
  const perItem = items && items.length === seconds.length
  const tenths: Tenth[] = Array.from({ length: 10 }, (_, k) => {
    const from = Math.min(Math.floor((k * seconds.length) / 10), seconds.length - 1)
    const to = Math.max(Math.floor(((k + 1) * seconds.length) / 10), from + 1)
    const s = sum(seconds.slice(from, to))
    const n = sum(items?.slice(from, to) ?? [])
    return {
      jobs: to - from,
      secondsPerJob: round(s / (to - from)),
      ...(perItem && n > 0 ? { microsPerItem: round((s / n) * 1e6) } : {}),
    }
  })
  const first = tenths[0]!
  const last = tenths[9]!
  return {
    tenths,
    firstTenthSecondsPerJob: first.secondsPerJob,
    lastTenthSecondsPerJob: last.secondsPerJob,
    ratio: round(last.secondsPerJob / first.secondsPerJob),
    ...(first.microsPerItem !== undefined && last.microsPerItem !== undefined
      ? {
          firstTenthMicrosPerItem: first.microsPerItem,
          lastTenthMicrosPerItem: last.microsPerItem,
          ratioPerItem: round(last.microsPerItem / first.microsPerItem),
        }
      : {}),
  }
}

const round = (n: number) => Math.round(n * 100) / 100

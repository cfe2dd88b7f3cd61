/** Load generation with autocannon, reduced to the figures the reports keep. */
import autocannon from 'autocannon'

export interface LoadFigures {
  requestsPerSecond: number
  /** Server CPU per answered request: the cost that does not depend on what else runs on the machine. */
  serverCpuMicrosPerRequest?: number
  latencyMs: { average: number; p50: number; p99: number }
  requests: number
  non2xx: number
  errors: number
}

export const LOAD = {
  connections: Number(process.env.BENCH_CONNECTIONS ?? 50),
  /** Length of one measured run; each target is measured once per round. */
  durationSeconds: Number(process.env.BENCH_DURATION ?? 4),
  warmupSeconds: Number(process.env.BENCH_WARMUP ?? 2),
  rounds: Number(process.env.BENCH_ROUNDS ?? 5),
}

/** Loads the server for `seconds`, reading its CPU use around the run. Headers are made afresh for each run (signatures carry a time). */
export async function measureFor(
  seconds: number,
  target: { url: string; headers?: () => Record<string, string> },
  serverCpuMicros?: () => number | undefined,
): Promise<LoadFigures> {
  const cpuBefore = serverCpuMicros?.()
  const result = await autocannon({
    url: target.url,
    headers: target.headers?.(),
    connections: LOAD.connections,
    duration: seconds,
    tlsOptions: { rejectUnauthorized: false },
  })
  const cpuAfter = serverCpuMicros?.()
  const ok = Object.entries(result.statusCodeStats)
    .filter(([code]) => code.startsWith('2'))
    .reduce((n, [, s]) => n + Number(s.count), 0)
  const answered = ok + result.non2xx
  return {
    requestsPerSecond: Math.round(result.requests.average),
    serverCpuMicrosPerRequest:
      cpuBefore !== undefined && cpuAfter !== undefined && answered > 0
        ? round((cpuAfter - cpuBefore) / answered)
        : undefined,
    latencyMs: { average: round(result.latency.average), p50: result.latency.p50, p99: result.latency.p99 },
    requests: answered,
    non2xx: result.non2xx,
    errors: result.errors,
  }
}

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

const round = (n: number) => Math.round(n * 100) / 100

/** A target's figures over the rounds, with its same-round ratios to the bare server when given. */
export interface RoundsSummary extends LoadFigures {
  target: string
  /** Median over the rounds of (requests/s of this target ÷ the bare server's in the same round). */
  ratioToBare?: number
  /** Lowest and highest per-round ratio. */
  ratioRange?: [number, number]
  /** Median over the rounds of (bare CPU per request ÷ this target's): the same ratio, less sensitive to machine load. */
  cpuRatioToBare?: number
  rounds: LoadFigures[]
}

/** Medians of a target's rounds; `bareRuns` (the bare server's rounds, in the same order) adds the ratios. */
export function summariseRounds(target: string, runs: LoadFigures[], bareRuns?: LoadFigures[]): RoundsSummary {
  const m = (pick: (f: LoadFigures) => number | undefined) => {
    const values = runs.map(pick).filter((v): v is number => v !== undefined)
    return values.length ? median(values) : undefined
  }
  const row: RoundsSummary = {
    target,
    requestsPerSecond: Math.round(m((f) => f.requestsPerSecond)!),
    serverCpuMicrosPerRequest: roundTenth(m((f) => f.serverCpuMicrosPerRequest)),
    latencyMs: {
      average: roundTenth(m((f) => f.latencyMs.average))!,
      p50: m((f) => f.latencyMs.p50)!,
      p99: m((f) => f.latencyMs.p99)!,
    },
    requests: runs.reduce((n, f) => n + f.requests, 0),
    non2xx: runs.reduce((n, f) => n + f.non2xx, 0),
    errors: runs.reduce((n, f) => n + f.errors, 0),
    rounds: runs,
  }
  if (!bareRuns) return row
  const perRound = runs.map((f, i) => ratio(f.requestsPerSecond, bareRuns[i].requestsPerSecond))
  const cpuPerRound = runs.flatMap((f, i) => {
    const own = f.serverCpuMicrosPerRequest,
      base = bareRuns[i].serverCpuMicrosPerRequest
    return own && base ? [ratio(base, own)] : []
  })
  return {
    ...row,
    ratioToBare: median(perRound),
    ratioRange: [Math.min(...perRound), Math.max(...perRound)],
    ...(cpuPerRound.length ? { cpuRatioToBare: median(cpuPerRound) } : {}),
  }
}

export const ratio = (value: number, base: number) => Math.round((value / base) * 100) / 100
const roundTenth = (n: number | undefined) => (n === undefined ? undefined : Math.round(n * 10) / 10)

/** The environment benchmark children get: ours without any BULWARK_* a developer may have set. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BULWARK_'))), ...extra }
}

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
export async function measureFor(seconds: number, target: { url: string; headers?: () => Record<string, string> }, serverCpuMicros?: () => number | undefined): Promise<LoadFigures> {
  const cpuBefore = serverCpuMicros?.()
  const result = await autocannon({
    url: target.url, headers: target.headers?.(), connections: LOAD.connections, duration: seconds, tlsOptions: { rejectUnauthorized: false },
  })
  const cpuAfter = serverCpuMicros?.()
  const ok = Object.entries(result.statusCodeStats).filter(([code]) => code.startsWith('2')).reduce((n, [, s]) => n + Number(s.count), 0)
  const answered = ok + result.non2xx
  return {
    requestsPerSecond: Math.round(result.requests.average),
    serverCpuMicrosPerRequest: cpuBefore !== undefined && cpuAfter !== undefined && answered > 0 ? round((cpuAfter - cpuBefore) / answered) : undefined,
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

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
  durationSeconds: Number(process.env.BENCH_DURATION ?? 10),
  warmupSeconds: Number(process.env.BENCH_WARMUP ?? 2),
}

/**
 * Warms up, then loads the server for the configured time, reading its CPU use around the
 * timed part. Headers are made afresh for each of the two runs (signatures carry a time).
 */
export async function measure(target: { url: string; headers?: () => Record<string, string> }, serverCpuMicros?: () => number | undefined): Promise<LoadFigures> {
  const run = (duration: number) => autocannon({
    url: target.url, headers: target.headers?.(), connections: LOAD.connections, duration, tlsOptions: { rejectUnauthorized: false },
  })
  if (LOAD.warmupSeconds > 0) await run(LOAD.warmupSeconds)
  const cpuBefore = serverCpuMicros?.()
  const result = await run(LOAD.durationSeconds)
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

const round = (n: number) => Math.round(n * 100) / 100

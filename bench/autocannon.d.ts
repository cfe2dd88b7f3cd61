/** The slice of autocannon's API the benchmarks use (the package ships no types). */
declare module 'autocannon' {
  interface Histogram {
    average: number
    mean: number
    stddev: number
    min: number
    max: number
    p50: number
    p90: number
    p99: number
  }
  export interface Options {
    url: string
    connections?: number
    duration?: number
    headers?: Record<string, string>
    tlsOptions?: { rejectUnauthorized?: boolean }
  }
  export interface Result {
    requests: Histogram
    latency: Histogram
    throughput: Histogram
    duration: number
    errors: number
    timeouts: number
    non2xx: number
    statusCodeStats: Record<string, { count: number }>
  }
  export default function autocannon(options: Options): Promise<Result>
}

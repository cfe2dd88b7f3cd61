/**
 * The read-while-write benchmark's TQL reader, on an event loop of its own (a worker thread). On the benchmark's
 * main thread it was timed late: that loop also reads the TAXII reader's pages (10 MB of JSON parsed at once) and
 * writes and sends the load's files, so an answer already in its socket waited for them, and the benchmark
 * charged the server for the client's own pauses.
 *
 * @example
 *   const reader = startTqlReader({ port, token, perSecond: 20 })
 *   await load()
 *   const figures = await reader.stop()   // { requests, p50Ms, p99Ms, maxMs, errors, queries }
 */
import { Agent, request } from 'node:https'
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads'
import { QUERIES } from '../tql.js'

export interface TqlReaderOptions {
  port: number
  token: string
  perSecond: number
}

export interface TqlFigures {
  requests: number
  p50Ms: number
  p99Ms: number
  maxMs: number
  errors: number
  /** Each query's own p50 and p99, to tell which one a slow tail comes from. */
  queries: { name: string; requests: number; p50Ms: number; p99Ms: number }[]
}

const round = (n: number) => Math.round(n * 100) / 100
const percentile = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : 0

/** Starts the reader in a worker thread; `stop` ends it after its request in flight and gives its figures. */
export function startTqlReader(options: TqlReaderOptions): { stop(): Promise<TqlFigures> } {
  // Workers do not inherit tsx's loader: the worker registers it, then loads this module.
  const worker = new Worker(
    `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(import.meta.url)}) })`,
    { eval: true, workerData: { tqlReader: options } },
  )
  const figures = new Promise<TqlFigures>((resolve, reject) => {
    worker.once('message', resolve)
    worker.once('error', reject)
  })
  return {
    async stop() {
      worker.postMessage('stop')
      try {
        return await figures
      } finally {
        await worker.terminate()
      }
    },
  }
}

async function read(options: TqlReaderOptions, stopped: Promise<void>): Promise<TqlFigures> {
  let stopping = false
  void stopped.then(() => (stopping = true))
  const agent = new Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false })
  const headers = { authorization: `TC-Token ${options.token}` }
  const get = (path: string) => {
    const started = performance.now()
    return new Promise<{ status: number; ms: number }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: options.port, path, method: 'GET', agent, headers }, (res) => {
        res
          .on('data', () => undefined)
          .on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }))
      })
      req.on('error', reject)
      req.end()
    })
  }
  const times: number[] = []
  const byQuery = QUERIES.map(() => [] as number[])
  let errors = 0
  const interval = 1000 / options.perSecond
  let due = performance.now()
  for (let k = 0; !stopping; k++) {
    const q = QUERIES[k % QUERIES.length]!
    const res = await get(`/api/v3/indicators?resultLimit=100&tql=${encodeURIComponent(q.tql)}`)
    if (res.status !== 200) errors++
    else {
      times.push(res.ms)
      byQuery[k % QUERIES.length]!.push(res.ms)
    }
    due += interval
    const wait = due - performance.now()
    if (wait > 0) await Promise.race([new Promise((r) => setTimeout(r, wait)), stopped])
    else due = performance.now()
  }
  agent.destroy()
  times.sort((a, b) => a - b)
  return {
    requests: times.length + errors,
    p50Ms: round(percentile(times, 50)),
    p99Ms: round(percentile(times, 99)),
    maxMs: round(times.at(-1) ?? 0),
    errors,
    queries: QUERIES.map((q, i) => {
      const sorted = byQuery[i]!.sort((a, b) => a - b)
      return {
        name: q.name,
        requests: sorted.length,
        p50Ms: round(percentile(sorted, 50)),
        p99Ms: round(percentile(sorted, 99)),
      }
    }),
  }
}

if (!isMainThread && (workerData as { tqlReader?: TqlReaderOptions } | undefined)?.tqlReader) {
  const stopped = new Promise<void>((resolve) => parentPort!.once('message', () => resolve()))
  void read((workerData as { tqlReader: TqlReaderOptions }).tqlReader, stopped).then((figures) =>
    parentPort!.postMessage(figures),
  )
}

/**
 * Server CPU per object of a whole-collection TAXII 2.1 read: the dataset of bench/taxii21.ts
 * (cached by bench/lib/dataset.ts) served by a compiled Bulwark child, walked over HTTPS at one
 * limit for a few rounds. On a shared machine the server's CPU time per object moves far less
 * than objects per second, so this is the figure to iterate on. Also times the feed alone
 * (domain/listing/feed.ts readFeed) in this process, to split reading rows from the rest.
 *
 *   npx tsx bench/taxii21-profile.ts
 *
 * Environment: BENCH_DB=sqlite|postgres, BENCH_TAXII_INDICATORS (default 100,000), BENCH_PROFILE_LIMIT
 * (default 10,000), BENCH_PROFILE_ROUNDS (default 3), BENCH_PROFILE_CPUPROF=<dir> (the server
 * writes a V8 CPU profile there when it stops), BENCH_PROFILE_NODE_ARGS (more node flags for the
 * server, e.g. --trace-gc), BENCH_PROFILE_LOG (the server's output file).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { Agent, request } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAccount } from '../src/domain/access/accounts.js'
import { authenticate } from '../src/domain/access/authentication.js'
import { feedOwners } from '../src/domain/access/owner-scope.js'
import { type FeedPosition, readFeed } from '../src/domain/listing/feed.js'
import { createServices } from '../src/domain/services.js'
import { isoNow } from '../src/core/time.js'
import { openStore } from '../src/store/connect.js'
import { startDatasetServer } from './lib/dataset.js'

const DIALECT = (process.env.BENCH_DB ?? 'sqlite') as 'sqlite' | 'postgres'
const TOTAL = Number(process.env.BENCH_TAXII_INDICATORS ?? 100_000)
const LIMIT = Number(process.env.BENCH_PROFILE_LIMIT ?? 10_000)
const ROUNDS = Number(process.env.BENCH_PROFILE_ROUNDS ?? 3)
const CPU_PROFILE = process.env.BENCH_PROFILE_CPUPROF
const OBJECTS = `/api/services/taxii/v2/taxii/svc_taxii/collections/${encodeURIComponent('Bench Organization')}/objects/`
const agent = new Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false })

function get(port: number, path: string, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, agent, headers }, (res) => {
      const chunks: Buffer[] = []
      res
        .on('data', (c) => chunks.push(c))
        .on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }))
    })
      .on('error', reject)
      .end()
  })
}

function rssMB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Number(m[1]) / 1024 : 0
}

const work = mkdtempSync(join(tmpdir(), 'bulwark-taxii-profile-'))
const ds = await startDatasetServer({ dialect: DIALECT, indicators: TOTAL, ownerShares: [1], groups: 0 }, work, {
  env: { BULWARK_BATCH_WORKER: 'off' },
  logFile: process.env.BENCH_PROFILE_LOG,
  nodeArgs: [
    ...(CPU_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROFILE}`] : []),
    ...(process.env.BENCH_PROFILE_NODE_ARGS ?? '').split(' ').filter(Boolean),
  ],
})
const store = openStore(ds.databaseUrl)
try {
  await createAccount(
    store.db,
    {
      userName: 'profile',
      kind: 'taxii',
      organization: 'Bench Organization',
      role: 'Standard User',
      password: 'profile-password',
    },
    isoNow(),
  )
  const headers = {
    authorization: `Basic ${Buffer.from('profile:profile-password').toString('base64')}`,
    accept: 'application/taxii+json;version=2.1',
  }
  await get(ds.port, '/api/services/taxii/v2/taxii/svc_taxii/collections/', headers)
  const pid = ds.pid
  for (let round = 0; round < ROUNDS; round++) {
    let objects = 0
    let bytes = 0
    let maxRss = 0
    let next: string | undefined
    const cpu0 = ds.server.cpuMicros()!
    const wall0 = performance.now()
    for (;;) {
      const res = await get(ds.port, `${OBJECTS}?limit=${LIMIT}${next ? `&next=${next}` : ''}`, headers)
      maxRss = Math.max(maxRss, rssMB(pid))
      if (res.status !== 200) throw new Error(`${res.status} ${res.text.slice(0, 300)}`)
      bytes += res.text.length
      const body = JSON.parse(res.text) as { more: boolean; next?: string; objects?: unknown[] }
      objects += body.objects?.length ?? 0
      if (!body.more) break
      next = body.next
    }
    const seconds = (performance.now() - wall0) / 1000
    const cpu = ds.server.cpuMicros()! - cpu0
    console.log(
      `${DIALECT} limit=${LIMIT} round ${round + 1}: ${objects} objects, ${(bytes / objects).toFixed(0)} B/object; ` +
        `server ${(cpu / objects).toFixed(2)} µs CPU/object; ${Math.round(objects / seconds)} objects/s; max RSS ${maxRss.toFixed(0)} MB`,
    )
  }

  // The feed alone, in this process (the server's connection is idle by now).
  const services = createServices(store, { serverKey: 'profile-key', publicUrl: 'https://bulwark.test' })
  const caller = await authenticate(
    services,
    { authorization: headers.authorization, timestamp: undefined, pathAndQuery: '/', method: 'GET', nowMs: Date.now() },
    ['basic'],
  )
  const ownerId = feedOwners(caller)[0].ownerId
  for (let round = 0; round < 2; round++) {
    let rows = 0
    let after: FeedPosition | undefined
    const c0 = process.cpuUsage()
    for (;;) {
      const page = await readFeed(store, caller, { ownerId, after, limit: LIMIT })
      rows += page.indicators.length
      if (!page.more) break
      after = page.last
    }
    const c = process.cpuUsage(c0)
    console.log(`${DIALECT} feed alone, round ${round + 1}: ${((c.user + c.system) / rows).toFixed(2)} µs CPU/row`)
  }
} finally {
  agent.destroy()
  await store.close()
  await ds.close()
  rmSync(work, { recursive: true, force: true })
}

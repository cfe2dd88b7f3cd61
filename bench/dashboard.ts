/**
 * GET /api/v3/dashboard on a large store (issue 26, point 2: the whole page in under 1 s at 1,000,000 Indicators).
 * The store is written straight to the Indicator table in multi-row INSERTs, as a bulk load would (every trigger
 * runs, so the tallies are the database's own), spread like the realistic dataset: three owners of 92 / 4 / 4 %,
 * eight types, ratings 0–5 and unrated, a tenth inactive, added over the last 400 days. The caller reads all three
 * owners and has two pinned saved searches. Reported: the load's rate with the per-day tally's triggers and without
 * them (rounds of 20,000 rows on the loaded table, migration 0146 undone for every second round: its write cost),
 * the dashboard's p50 / p95 / max over BENCH_DASHBOARD_RUNS requests (app.inject, as the API answers them), with
 * and without the pins, and the plan of each statement the dashboard runs (SQLite: EXPLAIN QUERY PLAN).
 *
 * Environment: BENCH_DB=sqlite|postgres (default sqlite; the harness's stores: SQLite in memory, PostgreSQL at
 * BULWARK_TEST_POSTGRES_URL), BENCH_INDICATORS (default 1,000,000), BENCH_DASHBOARD_RUNS (default 21).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { isoNow } from '../src/core/time.js'
import { setMembership } from '../src/domain/access/accounts.js'
import { median } from './lib/load.js'
import { ROOT } from './lib/processes.js'

const DB = (process.env.BENCH_DB ?? 'sqlite') as 'sqlite' | 'postgres'
process.env.BULWARK_TEST_DB = DB
const TOTAL = Number(process.env.BENCH_INDICATORS ?? 1_000_000)
const RUNS = Number(process.env.BENCH_DASHBOARD_RUNS ?? 21)
const TYPES = ['Address', 'Host', 'URL', 'File', 'EmailAddress', 'CIDR', 'ASN', 'Mutex'] as const
const TYPE_SHARE = [0.35, 0.25, 0.15, 0.1, 0.06, 0.04, 0.03, 0.02]
const DAY_MS = 86_400_000
const ROWS_PER_STATEMENT = 400
const ROWS_PER_TRANSACTION = 20_000
const COST_ROUNDS = 3

const round = (n: number) => Math.round(n * 10) / 10
const p95 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.ceil(values.length * 0.95) - 1]!
const summary = (values: number[]) => ({
  p50: round(median(values)),
  p95: round(p95(values)),
  max: round(Math.max(...values)),
})

function typeOf(i: number): string {
  let x = ((i * 2654435761) % 1000) / 1000
  for (let k = 0; k < TYPES.length; k++) if ((x -= TYPE_SHARE[k]!) < 0) return TYPES[k]!
  return TYPES[0]
}

function row(i: number, owners: number[], now: number) {
  const o = i % 25 === 0 ? owners[1]! : i % 25 === 1 ? owners[2]! : owners[0]!
  const added = new Date(now - Math.floor(((TOTAL - i) / TOTAL) * 400 * DAY_MS)).toISOString()
  const summary = `bench-${i}.example`
  return {
    owner_id: o,
    type: typeOf(i),
    summary,
    value1: summary,
    rating: i % 7 === 6 ? null : (i * 7919) % 6,
    confidence: i % 100,
    active: i % 10 === 0 ? 0 : 1,
    date_added: added,
    last_modified: added,
  }
}

export async function run() {
  const { createTestApp } = await import('../src/test/harness.js')
  const t = await createTestApp()
  const db = t.store.db
  const owners = [
    Number((await db.selectFrom('owner').select('id').executeTakeFirstOrThrow()).id),
    await t.createOwner('Bench Community', 'Community'),
    await t.createOwner('Bench Source', 'Source'),
  ]
  for (const name of ['Bench Community', 'Bench Source'])
    await setMembership(db, t.admin.userName, name, 'Director', isoNow())
  const now = Date.now()

  const insertRows = async (first: number, count: number, suffix = '') =>
    db.transaction().execute(async (trx) => {
      for (let i = first; i < first + count; i += ROWS_PER_STATEMENT)
        await trx
          .insertInto('indicator')
          .values(
            Array.from({ length: Math.min(ROWS_PER_STATEMENT, first + count - i) }, (_, k) => {
              const r = row(i + k, owners, now)
              return suffix ? { ...r, summary: `${r.summary}${suffix}`, value1: `${r.summary}${suffix}` } : r
            }),
          )
          .execute()
    })

  const started = performance.now()
  for (let first = 0; first < TOTAL; first += ROWS_PER_TRANSACTION)
    await insertRows(first, Math.min(ROWS_PER_TRANSACTION, TOTAL - first))
  const loadSeconds = (performance.now() - started) / 1000

  // The write cost of the per-day tally, on the loaded table: rounds of the same rows (new summaries) written with
  // 0146's triggers and without them (the migration undone, then done again, which counts the tally anew).
  const day = await import('../src/store/migrations/0146-indicator-day-tally.js')
  const writes = { withTally: [] as number[], without: [] as number[] }
  for (let round = 0; round < COST_ROUNDS; round++) {
    let t0 = performance.now()
    await insertRows(round * ROWS_PER_TRANSACTION, ROWS_PER_TRANSACTION, `.with${round}`)
    writes.withTally.push(performance.now() - t0)
    await day.down(db)
    t0 = performance.now()
    await insertRows(round * ROWS_PER_TRANSACTION, ROWS_PER_TRANSACTION, `.without${round}`)
    writes.without.push(performance.now() - t0)
    await day.up(db)
  }
  await sql`analyze`.execute(db)

  const dashboard = async () => {
    const t0 = performance.now()
    const res = await t.request({ url: '/api/v3/dashboard' })
    if (res.statusCode !== 200) throw new Error(res.body)
    return { ms: performance.now() - t0, data: res.json().data }
  }
  // Statements are prepared once and reused (store/connect.ts), so the texts are caught on the first requests.
  const seen: string[] = []
  const sqlite = t.store.sqlite
  const prepare = sqlite?.prepare.bind(sqlite)
  if (sqlite && prepare)
    sqlite.prepare = ((text: string) => {
      seen.push(text)
      return prepare(text)
    }) as typeof sqlite.prepare
  await dashboard()
  const plain: number[] = []
  for (let k = 0; k < RUNS; k++) plain.push((await dashboard()).ms)

  for (const [name, tql] of [
    ['Hot hosts', 'typeName = "Host" and rating >= 4'],
    ['One prefix', 'summary startswith "bench-12345"'],
  ])
    await t.request({ method: 'POST', url: '/api/v3/savedSearches', payload: { name, tql, pinned: true } })
  await dashboard()
  const plans: Record<string, string[]> = {}
  if (sqlite && prepare) {
    sqlite.prepare = prepare
    for (const text of new Set(seen.filter((s) => /^\s*select/i.test(s)))) {
      const params = (text.match(/\?/g) ?? []).map(() => 1)
      plans[text] = (prepare(`explain query plan ${text}`).all(...params) as { detail: string }[]).map((p) => p.detail)
    }
  }
  const pinned: number[] = []
  let last: Record<string, unknown> = {}
  for (let k = 0; k < RUNS; k++) {
    const r = await dashboard()
    pinned.push(r.ms)
    last = r.data
  }

  // The highest-rated read's worst case: one Indicator of the top rating, the oldest, so the read goes down the
  // whole primary key before it finds it (the tally says one exists, so it stops there).
  await db.updateTable('indicator').set({ rating: 4 }).where('rating', '=', 5).execute()
  const oldest = await db.selectFrom('indicator').select('id').orderBy('id').limit(1).executeTakeFirstOrThrow()
  await db.updateTable('indicator').set({ rating: 5 }).where('id', '=', oldest.id).execute()
  const worst: number[] = []
  for (let k = 0; k < Math.min(RUNS, 7); k++) worst.push((await dashboard()).ms)
  await t.close()

  const withTally = writes.withTally.reduce((a, b) => a + b, 0)
  const without = writes.without.reduce((a, b) => a + b, 0)
  const figures = {
    db: DB,
    indicators: TOTAL + COST_ROUNDS * 2 * ROWS_PER_TRANSACTION,
    machine: { cpus: cpus().length, loadavg: loadavg().map(round) },
    loadSeconds: round(loadSeconds),
    loadRowsPerSecond: Math.round(TOTAL / loadSeconds),
    dayTallyWriteCost: {
      rows: COST_ROUNDS * ROWS_PER_TRANSACTION,
      withTriggersMs: round(withTally),
      withoutTriggersMs: round(without),
      ratio: Math.round((withTally / without) * 100) / 100,
    },
    dashboardMs: summary(plain),
    dashboardWithTwoPinsMs: summary(pinned),
    dashboardOneOldTopRatedMs: summary(worst),
    answer: {
      total: last.total,
      byOwner: last.byOwner,
      lastDay: (last.addedPerDay as unknown[] | undefined)?.at(-1),
      pinned: last.pinned,
    },
    plans,
  }
  console.log(JSON.stringify(figures, null, 2))
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true })
  writeFileSync(join(ROOT, 'bench', 'results', `dashboard-${DB}.json`), `${JSON.stringify(figures, null, 2)}\n`)
}

import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ORG, TEST_DB, type TestApp, createTestApp } from '../../test/harness.js'
import { runPendingJobs } from '../../worker/batch-worker.js'
import type { Store } from '../connect.js'
import { CHUNK_SIZE, setFixedChunkSize } from '../../domain/batch/chunk-size.js'
import { refreshAtStart, setRefreshThreshold } from './planner-statistics.js'

let t: TestApp
beforeAll(async () => {
  // Statistics are refreshed between a job's chunks; with SQLite's time-sized chunks the commit points, and so the
  // row counts the statistics describe, would move with the machine's speed. Fixed chunks make them exact.
  setFixedChunkSize(CHUNK_SIZE)
  t = await createTestApp()
})
afterAll(async () => {
  setFixedChunkSize(undefined)
  await t.close()
})

/** Tables with planner statistics: sqlite_stat1 rows, or pg_stats columns from an ANALYZE. */
async function analyzedTables(store: Store): Promise<string[]> {
  if (store.sqlite) {
    const exists = store.sqlite.prepare("select 1 from sqlite_master where name = 'sqlite_stat1'").get()
    if (!exists) return []
    return (store.sqlite.prepare('select distinct tbl from sqlite_stat1 order by tbl').all() as { tbl: string }[]).map(
      (r) => r.tbl,
    )
  }
  const r = await sql<{
    relname: string
  }>`select relname from pg_stat_user_tables where last_analyze is not null order by relname`.execute(store.db)
  return r.rows.map((row) => row.relname)
}

async function runJob(indicators: unknown[], app = t) {
  const created = await app.request({
    method: 'POST',
    url: '/api/v2/batch',
    payload: { owner: ORG, haltOnError: false, action: 'Create', attributeWriteType: 'Append' },
  })
  const id = created.json().data.batchId
  const uploaded = await app.request({
    method: 'POST',
    url: `/api/v2/batch/${id}`,
    payload: JSON.stringify({ indicator: indicators }),
    headers: { 'content-type': 'application/octet-stream' },
  })
  expect(uploaded.statusCode).toBe(202)
  expect(await runPendingJobs(app.store, app.services)).toBe(1)
}

/** PostgreSQL: for the three tables a load fills most, whether every page is all-visible, and its analyses. */
async function pageVisibility(store: Store) {
  return (
    await sql<{
      relname: string
      visible: boolean
      analyzes: number
    }>`select c.relname, c.relallvisible = pg_relation_size(c.oid) / 8192 as visible, s.analyze_count::int as analyzes
      from pg_class c join pg_stat_user_tables s on s.relid = c.oid
      where c.relname in ('indicator', 'item_tag', 'attribute') order by c.relname`.execute(store.db)
  ).rows
}

const visibility = (rows: { relname: string; visible: boolean }[]) => rows.map((r) => [r.relname, r.visible])
const allThree = (visible: boolean) => [
  ['attribute', visible],
  ['indicator', visible],
  ['item_tag', visible],
]

const hosts = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({
    type: 'Host',
    summary: `${prefix}${i}.example`,
    tag: [{ name: 'feed' }],
    attribute: [{ type: 'Description', value: `d${i}` }],
  }))

describe('planner statistics kept by the server', () => {
  it('a small job leaves them alone; a large one leaves the written tables analyzed, with nobody running ANALYZE', async () => {
    setRefreshThreshold(t.store, 500)
    await runJob(hosts('small', 20))
    expect(await analyzedTables(t.store)).not.toContain('indicator')
    await runJob(hosts('large', 600))
    const analyzed = await analyzedTables(t.store)
    expect(analyzed).toEqual(expect.arrayContaining(['indicator', 'item_tag', 'attribute']))
    if (t.store.sqlite) {
      // The Indicator indexes have row estimates now (the first number of each stat).
      const stat = t.store.sqlite
        .prepare("select stat from sqlite_stat1 where idx = 'indicator_owner_type_summary'")
        .get() as { stat: string }
      expect(Number(stat.stat.split(' ')[0])).toBeGreaterThanOrEqual(620)
    } else {
      const r = await sql<{ n: number }>`select reltuples::int as n from pg_class where relname = 'indicator'`.execute(
        t.store.db,
      )
      expect(r.rows[0].n).toBe(620)
      // Vacuumed as well: with autovacuum off, nothing else marks pages all-visible for index-only scans.
      const vacuumed = await sql<{
        relname: string
      }>`select relname from pg_stat_user_tables where last_vacuum is not null order by relname`.execute(t.store.db)
      expect(vacuumed.rows.map((row) => row.relname)).toEqual(
        expect.arrayContaining(['indicator', 'item_tag', 'attribute']),
      )
      const visible = await sql<{
        all: number
        pages: number
      }>`select relallvisible as all, relpages as pages from pg_class where relname = 'indicator'`.execute(t.store.db)
      expect(visible.rows[0].all).toBe(visible.rows[0].pages)
    }
  })

  it.runIf(TEST_DB === 'postgres')(
    'between analyses, PostgreSQL marks the pages written since all-visible once a fifth more rows were written, and when the queue drains',
    async () => {
      const grown = await createTestApp()
      try {
        setRefreshThreshold(grown.store, 500)
        const job = (prefix: string, n: number) => runJob(hosts(prefix, n), grown)
        const tables = () => pageVisibility(grown.store)
        // 2,000 rows analyzed (and vacuumed); then 200 more, under the threshold: their pages are not all-visible.
        await job('first', 2000)
        await job('second', 200)
        const written = await tables()
        expect(visibility(written)).toEqual(allThree(false))
        // 500 more: a fifth of 2,000 and the threshold passed, the analysis (at 4,000) not yet: vacuumed, not analyzed.
        await job('third', 500)
        const after = await tables()
        expect(visibility(after)).toEqual(allThree(true))
        expect(after.map((r) => r.analyzes)).toEqual(written.map((r) => r.analyzes))
        // 500 more, under a fifth of the 2,700 now: vacuumed when the job ends and the queue is empty.
        await job('fourth', 500)
        expect(visibility(await tables())).toEqual(allThree(true))
      } finally {
        await grown.close()
      }
    },
  )

  it.runIf(TEST_DB === 'postgres')(
    'at start, PostgreSQL marks all-visible the pages a node stopped before its queue-drained pass left behind',
    async () => {
      const stopped = await createTestApp()
      try {
        setRefreshThreshold(stopped.store, 500)
        const job = (prefix: string, n: number) => runJob(hosts(prefix, n), stopped)
        // Analyzed and vacuumed at 2,000 rows; 150 more are under the drain pass's 500 and under a tenth of 2,000
        // (so the start's analysis leaves them too): left on pages not all-visible, as a node stopped mid-load leaves.
        await job('first', 2000)
        await job('second', 150)
        expect(visibility(await pageVisibility(stopped.store))).toEqual(allThree(false))
        // A node starting finds what the stopped one's backends reported on exit; these are alive, and an idle
        // backend reports its counts within about ten seconds.
        for (const deadline = Date.now() + 20_000; Date.now() < deadline;) {
          const counted = await sql<{
            n: number
          }>`select min(n_ins_since_vacuum)::int as n from pg_stat_user_tables
              where relname in ('indicator', 'item_tag', 'attribute')`.execute(stopped.store.db)
          if (counted.rows[0]!.n >= 150) break
          await new Promise((resolve) => setTimeout(resolve, 250))
        }
        setRefreshThreshold(stopped.store, 100)
        await refreshAtStart(stopped.store)
        expect(visibility(await pageVisibility(stopped.store))).toEqual(allThree(true))
      } finally {
        await stopped.close()
      }
    },
  )

  it('at start analyzes tables that hold rows but have no statistics', async () => {
    const fresh = await createTestApp()
    try {
      setRefreshThreshold(fresh.store, 1_000_000)
      const created = await fresh.request({
        method: 'POST',
        url: '/api/v2/batch',
        payload: { owner: ORG, haltOnError: false, action: 'Create', attributeWriteType: 'Append' },
      })
      const id = created.json().data.batchId
      await fresh.request({
        method: 'POST',
        url: `/api/v2/batch/${id}`,
        payload: JSON.stringify({ indicator: hosts('restart', 50) }),
        headers: { 'content-type': 'application/octet-stream' },
      })
      expect(await runPendingJobs(fresh.store, fresh.services)).toBe(1)
      expect(await analyzedTables(fresh.store)).not.toContain('indicator')
      // SQLite keeps no statistics of a table smaller than the refresh threshold: lowered below these 50 rows.
      setRefreshThreshold(fresh.store, 20)
      await refreshAtStart(fresh.store)
      expect(await analyzedTables(fresh.store)).toEqual(expect.arrayContaining(['indicator', 'item_tag', 'attribute']))
    } finally {
      await fresh.close()
    }
  })

  it('follow the table as imports through the API grow it, each doubling', async () => {
    const grown = await createTestApp()
    try {
      // The production threshold (MIN_ROWS, 5,000 rows) lowered so a few small jobs make the doublings.
      setRefreshThreshold(grown.store, 500)
      const described = async (): Promise<number> => {
        if (grown.store.sqlite) {
          const row = grown.store.sqlite
            .prepare("select stat from sqlite_stat1 where idx = 'indicator_owner_type_summary'")
            .get() as { stat: string } | undefined
          return Number(row?.stat.split(' ')[0] ?? 0)
        }
        const r = await sql<{
          n: number
        }>`select reltuples::int as n from pg_class where relname = 'indicator' and relkind = 'r'`.execute(
          grown.store.db,
        )
        return r.rows[0]!.n
      }
      const load = async (prefix: string, n: number) => {
        const created = await grown.request({
          method: 'POST',
          url: '/api/v2/batch',
          payload: { owner: ORG, haltOnError: false, action: 'Create', attributeWriteType: 'Append' },
        })
        const id = created.json().data.batchId
        const uploaded = await grown.request({
          method: 'POST',
          url: `/api/v2/batch/${id}`,
          payload: JSON.stringify({ indicator: hosts(prefix, n).map(({ attribute: _, ...host }) => host) }),
          headers: { 'content-type': 'application/octet-stream' },
        })
        expect(uploaded.statusCode).toBe(202)
        expect(await runPendingJobs(grown.store, grown.services)).toBe(1)
      }
      const seen: number[] = []
      for (const [prefix, n] of [
        ['first', 600],
        ['second', 1400],
        ['third', 2000],
      ] as const) {
        await load(prefix, n)
        seen.push(await described())
      }
      // 600 rows, then 2,000 (3.3-fold: SQLite's PRAGMA optimize would have left 600), then 4,000.
      expect(seen).toEqual([600, 2000, 4000])
    } finally {
      await grown.close()
    }
  })

  it('at the production threshold, follow a load of 2 MB jobs of Hosts and Files: rows, hash indexes, NULL shares', async () => {
    const grown = await createTestApp()
    try {
      // Jobs of 6,000 Indicators (what a 2 MB upload of a feed holds): half Hosts, a quarter SHA-256-only Files,
      // a quarter MD5-only Files. MIN_ROWS (5,000) and the doubling rule as in production.
      let next = 0
      const job = async () => {
        const items = Array.from({ length: 6000 }, (_, k) => {
          const n = next++
          const hash = (width: number) => n.toString(16).padStart(width, '0').toUpperCase()
          if (k % 4 === 1) return { type: 'File', summary: hash(64) }
          if (k % 4 === 3) return { type: 'File', summary: hash(32) }
          return { type: 'Host', summary: `g${n}.stats.example` }
        })
        const created = await grown.request({
          method: 'POST',
          url: '/api/v2/batch',
          payload: { owner: ORG, haltOnError: false, action: 'Create', attributeWriteType: 'Append' },
        })
        const id = created.json().data.batchId
        await grown.request({
          method: 'POST',
          url: `/api/v2/batch/${id}`,
          payload: JSON.stringify({ indicator: items }),
          headers: { 'content-type': 'application/octet-stream' },
        })
        expect(await runPendingJobs(grown.store, grown.services)).toBe(1)
      }
      /** Indicator rows, SHA-256 Files and the share of NULL value3 the statistics describe. */
      const described = async () => {
        if (grown.store.sqlite) {
          const stat = (idx: string) =>
            Number(
              (
                grown.store.sqlite!.prepare('select stat from sqlite_stat1 where idx = ?').get(idx) as
                  { stat: string } | undefined
              )?.stat.split(' ')[0] ?? 0,
            )
          const rows = stat('indicator_owner_type_summary')
          const sha256 = stat('indicator_file_sha256')
          return { rows, sha256, nullShare: rows ? Math.round((1 - sha256 / rows) * 100) / 100 : 0 }
        }
        // Between analyses a vacuum (autovacuum's insert rule) sets reltuples too, to its own estimate.
        const r = await sql<{ rows: number; nulls: number | null }>`select c.reltuples::int as rows,
            (select s.null_frac from pg_stats s where s.tablename = 'indicator' and s.attname = 'value3') as nulls
          from pg_class c where c.relname = 'indicator' and c.relkind = 'r'`.execute(grown.store.db)
        const sha256 = await sql<{ n: number }>`select reltuples::int as n from pg_class
          where relname = 'indicator_file_sha256'`.execute(grown.store.db)
        return {
          rows: r.rows[0]!.rows,
          sha256: sha256.rows[0]!.n,
          nullShare: Math.round(Number(r.rows[0]!.nulls ?? 0) * 100) / 100,
        }
      }
      const seen: { rows: number; sha256: number; nullShare: number }[] = []
      for (let k = 0; k < 4; k++) {
        await job()
        seen.push(await described())
      }
      // Analyzed after the first job (6,000 ≥ 5,000), the second (6,000 more: the table doubled), not after the
      // third (18,000 < 2 × 12,000), again after the fourth (24,000). A quarter of the rows carry a SHA-256.
      // PostgreSQL vacuums after the third (6,000 ≥ a fifth of 12,000), which estimates the rows from the pages
      // it read: the new ones.
      const third = seen[2]!
      if (grown.store.sqlite) expect(third.rows).toBe(12000)
      else expect(Math.abs(third.rows - 18000)).toBeLessThan(180)
      expect(seen.map((s, k) => (k === 2 ? { ...s, rows: 0 } : s))).toEqual([
        { rows: 6000, sha256: 1500, nullShare: 0.75 },
        { rows: 12000, sha256: 3000, nullShare: 0.75 },
        { rows: 0, sha256: 3000, nullShare: 0.75 },
        { rows: 24000, sha256: 6000, nullShare: 0.75 },
      ])
    } finally {
      await grown.close()
    }
  }, 120_000)
})

/**
 * The plans of the batch writer's look-ups and of the API's Indicator and File look-ups by value and hash,
 * on three databases in turn: empty (no rows, no statistics), stale (statistics gathered on 100 rows, then
 * the tables grew to thousands) and skewed (fresh statistics of one owner holding thousands of SHA-256-only
 * Files beside a thousand MD5-only ones). Each statement must seek its rows on its own index in all three:
 * a plan that reads every File of the owner is correct, but at a million Indicators it cost each batch chunk
 * 300 ms. Statistics are gathered as the server gathers them (planner-statistics.ts: SQLite reads at most
 * 1,000 entries of an index). SQLite: EXPLAIN QUERY PLAN; PostgreSQL: EXPLAIN (FORMAT JSON). The index and
 * the column it seeks on are asserted, not the plan text.
 */
import { type CompiledQuery, type Kysely, type KyselyPlugin, sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestStore } from '../../test/harness.js'
import type { Store } from '../connect.js'
import type { Database } from '../database.js'
import {
  findFilesByHashes,
  findGroupsByXids,
  findIndicatorsBySummaries,
  findOrCreateTags,
} from './batch-write.repository.js'
import { findFileRowsByHashes, findIndicatorRowBySummary } from './indicator.repository.js'
import { type PlanNode, planNodes } from '../../test/statement-plans.js'

const AT = '2026-03-14T00:00:00.000Z'
const SHA256_FILES = 6000
const MD5_FILES = 1000
const SHA1_FILES = 200

let store: Store
let drop: () => Promise<void>
let big: number
let small: number
/** An owner whose rows all came after the last analysis (PostgreSQL estimates it at 1 row). */
let late: number

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0')

async function insert(table: 'indicator' | 'tag' | 'intel_group', rows: Record<string, unknown>[]) {
  for (let i = 0; i < rows.length; i += 400)
    await (store.db as Kysely<any>)
      .insertInto(table)
      .values(rows.slice(i, i + 400))
      .execute()
}

const range = <T>(from: number, count: number, row: (k: number) => T) =>
  Array.from({ length: count }, (_, k) => row(from + k))

const sha256Files = (owner: number, from: number, count: number) =>
  range(from, count, (k) => {
    const sha256 = hex(k, 64)
    return { owner_id: owner, type: 'File', summary: sha256, value3: sha256, date_added: AT, last_modified: AT }
  })

const md5Files = (owner: number, from: number, count: number) =>
  range(from, count, (k) => {
    const md5 = hex(k, 32)
    return { owner_id: owner, type: 'File', summary: md5, value1: md5, date_added: AT, last_modified: AT }
  })

const sha1Files = (owner: number, from: number, count: number) =>
  range(from, count, (k) => {
    const sha1 = hex(k, 40)
    return { owner_id: owner, type: 'File', summary: sha1, value2: sha1, date_added: AT, last_modified: AT }
  })

const hosts = (owner: number, from: number, count: number) =>
  range(from, count, (k) => {
    const host = `h${k}.plans.example`
    return { owner_id: owner, type: 'Host', summary: host, value1: host, date_added: AT, last_modified: AT }
  })

const tags = (owner: number, from: number, count: number) =>
  range(from, count, (k) => ({ owner_id: owner, name: `tag ${k}`, date_added: AT }))

const groups = (owner: number, from: number, count: number) =>
  range(from, count, (k) => ({
    owner_id: owner,
    type: 'Incident',
    name: `incident ${k}`,
    xid: `xid-${k}`,
    date_added: AT,
    last_modified: AT,
  }))

async function analyze() {
  if (store.sqlite) store.sqlite.exec('PRAGMA analysis_limit = 1000; ANALYZE')
  else await sql`ANALYZE`.execute(store.db)
}

/** The statements a repository function runs, compiled as the database receives them. */
async function statementsOf(run: (db: Kysely<Database>) => Promise<unknown>): Promise<CompiledQuery[]> {
  const seen: CompiledQuery[] = []
  const capture: KyselyPlugin = {
    transformQuery: (args) => {
      seen.push(store.db.getExecutor().compileQuery(args.node, args.queryId))
      return args.node
    },
    transformResult: async (args) => args.result,
  }
  await run(store.db.withPlugin(capture))
  return seen
}

interface Read {
  index: string
  /** What the index is searched by: SQLite's `owner_id=? AND value1=?`, PostgreSQL's Index Cond. */
  seek: string
}

/** How a statement reads `table`: through which index, searched by what; `(scan)` for the whole table. */
async function readsOf(statement: CompiledQuery, table: string): Promise<Read[]> {
  if (store.sqlite) {
    const lines = store
      .sqlite!.prepare(`EXPLAIN QUERY PLAN ${statement.sql}`)
      .all(...(statement.parameters as unknown[]))
      .map((r) => (r as { detail: string }).detail)
    return lines.flatMap((line) => {
      if (line === `SCAN ${table}`) return [{ index: '(scan)', seek: '' }]
      const m = new RegExp(`^(?:SEARCH|SCAN) ${table} USING (?:COVERING )?INDEX (\\w+)(?: \\((.*)\\))?`).exec(line)
      return m ? [{ index: m[1]!, seek: m[2] ?? '' }] : []
    })
  }
  const result = await store.db.executeQuery<{ 'QUERY PLAN': { Plan: PlanNode }[] }>({
    ...statement,
    sql: `EXPLAIN (FORMAT JSON) ${statement.sql}`,
  })
  return planNodes(result.rows[0]!['QUERY PLAN'][0]!.Plan).flatMap((n) => {
    if (n['Node Type'] === 'Seq Scan' && n['Relation Name'] === table) return [{ index: '(scan)', seek: '' }]
    if (n['Index Name'] && (n['Relation Name'] === table || n['Node Type'] === 'Bitmap Index Scan'))
      return [{ index: n['Index Name'], seek: n['Index Cond'] ?? '' }]
    return []
  })
}

interface Case {
  name: string
  table: string
  /** The indexes the statements may read through; with `every`, each at least once. */
  indexes: string[]
  /** PostgreSQL's, where they differ. */
  postgresIndexes?: string[]
  every?: boolean
  /** The columns the index must be searched by: a read that seeks the owner and filters the rest is no seek. */
  seeks: RegExp
  run(db: Kysely<Database>, owner: number): Promise<unknown>
}

/**
 * Twenty hashes of one kind: what a 2,000-item chunk of a feed whose Files are a sixth carries, scaled to these
 * tables as a chunk's 160 hashes are to a million Indicators (and still a hundred times their share).
 */
const chunkOf = (width: number) => range(0, 20, (k) => hex(k * 7919, width))

const CASES: Case[] = [
  {
    name: 'batch: Indicators by summary',
    table: 'indicator',
    indexes: ['indicator_owner_type_summary'],
    postgresIndexes: ['indicator_summary_lower_prefix'],
    seeks: /summary/,
    run: (db, owner) =>
      findIndicatorsBySummaries(
        db,
        owner,
        range(0, 20, (k) => ({ type: 'Host', summary: `h${k * 13}.plans.example` })),
      ),
  },
  {
    name: 'batch: Files by MD5',
    table: 'indicator',
    indexes: ['indicator_file_md5'],
    seeks: /value1/,
    run: (db, owner) => findFilesByHashes(db, owner, { md5: chunkOf(32), sha1: [], sha256: [] }),
  },
  {
    name: 'batch: Files by SHA-1',
    table: 'indicator',
    indexes: ['indicator_file_sha1'],
    seeks: /value2/,
    run: (db, owner) => findFilesByHashes(db, owner, { md5: [], sha1: chunkOf(40), sha256: [] }),
  },
  {
    name: 'batch: Files by SHA-256',
    table: 'indicator',
    indexes: ['indicator_file_sha256'],
    seeks: /value3/,
    run: (db, owner) => findFilesByHashes(db, owner, { md5: [], sha1: [], sha256: chunkOf(64) }),
  },
  {
    name: 'batch: Groups by xid',
    table: 'intel_group',
    indexes: ['intel_group_owner_xid'],
    seeks: /xid/,
    run: (db, owner) => findGroupsByXids(db, owner, ['xid-1', 'xid-2', 'xid-3']),
  },
  {
    name: 'batch: tags by name',
    table: 'tag',
    indexes: ['tag_owner_name', 'tag_name'],
    seeks: /name/,
    run: (db, owner) => findOrCreateTags(db, owner, ['feed 1', 'feed 2'], AT),
  },
  {
    name: 'API: Indicator by summary',
    table: 'indicator',
    indexes: ['indicator_owner_type_summary'],
    postgresIndexes: ['indicator_summary_lower_prefix'],
    seeks: /summary/,
    run: (db, owner) => findIndicatorRowBySummary(db, [owner, small], 'Host', 'h1.plans.example'),
  },
  {
    name: 'API: Indicator by summary, in one owner',
    table: 'indicator',
    indexes: ['indicator_owner_type_summary'],
    postgresIndexes: ['indicator_summary_lower_prefix'],
    seeks: /summary/,
    run: (db, owner) => findIndicatorRowBySummary(db, [owner], 'Host', 'h1.plans.example'),
  },
  {
    name: 'API: File by MD5',
    table: 'indicator',
    indexes: ['indicator_file_md5'],
    seeks: /value1/,
    run: (db, owner) => findFileRowsByHashes(db, [owner, small], [hex(7, 32), null, null]),
  },
  {
    name: 'API: File by its three hashes',
    table: 'indicator',
    indexes: ['indicator_file_md5', 'indicator_file_sha1', 'indicator_file_sha256'],
    every: true,
    seeks: /value[123]/,
    run: (db, owner) => findFileRowsByHashes(db, [owner], [hex(7, 32), hex(7, 40), hex(7, 64)]),
  },
]

/**
 * On tables that hold no rows PostgreSQL estimates every path at one row, the costs tie, and it may take an
 * owner index and filter: a read of nothing. There it is held only to reading through an index of the table.
 */
async function expectSeeks(c: Case, tablesEmpty = false, owner = big) {
  const tie = tablesEmpty && store.dialect === 'postgres'
  const indexes = (store.dialect === 'postgres' && c.postgresIndexes) || c.indexes
  // The reads of the case's table: not the catalog read of a table's column types (insertRows, once a process).
  const statements = (await statementsOf((db) => c.run(db, owner))).filter(
    (s) => /^\s*select/i.test(s.sql) && !/\bpg_attribute\b/.test(s.sql),
  )
  expect(statements.length).toBeGreaterThan(0)
  const used = new Set<string>()
  for (const statement of statements) {
    const reads = await readsOf(statement, c.table)
    expect(reads.length).toBeGreaterThan(0)
    for (const read of reads) {
      if (tie) {
        // A look-up that finds rows by value first may scan an empty table, as well as read any of its indexes.
        expect(read.index).toMatch(new RegExp(`^(${c.table}_|\\(scan\\)$)`))
        continue
      }
      expect(indexes).toContain(read.index)
      expect(read.seek).toMatch(c.seeks)
      used.add(read.index)
    }
  }
  if (c.every && !tie) expect([...used].sort()).toEqual([...indexes].sort())
}

beforeAll(async () => {
  ;({ store, drop } = await createTestStore())
  const owner = async (name: string) =>
    (
      await store.db
        .insertInto('owner')
        .values({ name, type: 'Organization', date_added: AT })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id
  big = await owner('Plans big')
  small = await owner('Plans small')
  late = await owner('Plans late')
})
afterAll(async () => {
  await drop?.()
})

// In this order: each database is the one before with more rows or newer statistics.
describe('on an empty database, no statistics', () => {
  it.each(CASES)('$name', (c) => expectSeeks(c, true))
})

describe('on stale statistics: gathered on 100 rows, then the tables grew seventy-fold', () => {
  beforeAll(async () => {
    await insert('indicator', [...sha256Files(big, 0, 50), ...hosts(big, 0, 25), ...hosts(small, 0, 25)])
    await insert('tag', tags(big, 0, 10))
    await insert('intel_group', groups(big, 0, 10))
    await analyze()
    await insert('indicator', [
      ...sha256Files(big, 50, SHA256_FILES - 50),
      ...md5Files(big, 0, MD5_FILES),
      ...sha1Files(big, 0, SHA1_FILES),
      ...hosts(big, 25, 1000),
      ...hosts(small, 25, 100),
    ])
    await insert('tag', tags(big, 10, 2000))
    await insert('intel_group', groups(big, 10, 2000))
  })
  it.each(CASES)('$name', (c) => expectSeeks(c))
})

describe('on fresh statistics of a skewed owner: six thousand SHA-256-only Files', () => {
  beforeAll(async () => {
    await analyze()
    if (store.sqlite) {
      const stat = store.sqlite
        .prepare("SELECT stat FROM sqlite_stat1 WHERE idx = 'indicator_owner_type_summary'")
        .get() as { stat: string }
      expect(Number(stat.stat.split(' ')[0])).toBe(SHA256_FILES + MD5_FILES + SHA1_FILES + 1150)
    }
  })
  it.each(CASES)('$name', (c) => expectSeeks(c))
})

describe('on the same statistics, for an owner whose every row came after them', () => {
  // The owners the analysis saw sum to the whole owner column, so PostgreSQL estimates this one at 1 row
  // whatever it holds, and a look-up that may seek the owner reads all of its rows (session 17's ramp).
  beforeAll(async () => {
    await insert('indicator', [
      ...sha256Files(late, 0, 2000),
      ...md5Files(late, 0, 500),
      ...sha1Files(late, 0, 200),
      ...hosts(late, 0, 1000),
    ])
    await insert('tag', tags(late, 0, 500))
    await insert('intel_group', groups(late, 0, 500))
  })
  it.each(CASES)('$name', (c) => expectSeeks(c, false, late))
})

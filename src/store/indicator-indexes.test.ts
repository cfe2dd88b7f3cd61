/**
 * Issue 28: the Indicator table, and the tables a batch job writes per Indicator, keep only the indexes some
 * statement reads through (each one costs every Indicator written). INDEXES below is the audit of
 * docs/benchmarks.md ("The Indicator table's indexes"): each index of those tables with what needs it, either
 * a read (the statements of READS, recorded at the drivers as they run through the API and the batch worker, and
 * explained here) or a constraint (a unique key the writers rely on, kept even when no plan reads it). The test
 * fails when the schema holds an index the audit does not name, when the audit names one the schema lacks, and
 * when an index kept for reads is read by none of the statements: such an index is a candidate to drop.
 * PostgreSQL explains with `enable_seqscan = off`, so that on these small tables it shows the index it would seek
 * rather than a scan. BULWARK_INDEX_REPORT=<file> writes each index with the statements that read it.
 */
import { writeFileSync } from 'node:fs'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ORG, type TestApp, createTestApp } from '../test/harness.js'
import {
  type CapturedStatement,
  captureStatements,
  explain,
  installStatementCapture,
  isPlannable,
  shapeOf,
} from '../test/statement-plans.js'
import { cleanBatchThroughApi } from '../test/batch.js'

installStatementCapture()

const SMALL = 'Index Audit Community'
const TABLES = [
  'indicator',
  'item_tag',
  'attribute',
  'association',
  'indicator_tally',
  'indicator_confidence_tally',
  'indicator_score_tally',
]

type Need = { read: string } | { constraint: string }

/** The partial indexes of migration 0273, alike on both databases. */
const PARTIAL_INDEXES: Record<string, Need> = {
  indicator_owner_false_positives: {
    read: 'the v2 falsePositive filter: the few Indicators reported, and their count',
  },
  indicator_owner_dns_active: { read: 'the v2 dnsActive filter: the few Hosts tracked, and their count' },
  indicator_owner_whois_active: { read: 'the v2 whoisActive filter: the few Hosts tracked, and their count' },
  indicator_owner_geolocated: { read: 'the v2 Address data filters (city, countryCode, …): the Addresses with any' },
}

/** The audit: every index of TABLES on each database, and why it is kept. */
const INDEXES: Record<'sqlite' | 'postgres', Record<string, Need>> = {
  sqlite: {
    indicator_owner_type_summary: { constraint: 'one copy of an Indicator per owner; the look-ups by summary' },
    indicator_file_md5: { constraint: 'one File per MD5 and owner; the look-ups by hash' },
    indicator_file_sha1: { constraint: 'one File per SHA-1 and owner; the look-ups by hash' },
    indicator_file_sha256: { constraint: 'one File per SHA-256 and owner; the look-ups by hash' },
    indicator_stix_id: {
      constraint: 'one Indicator per source STIX id and owner; TAXII 2.1 objects/{id} and match[id] by a source id',
    },
    indicator_owner_id: { read: "an owner's listing page in id order" },
    indicator_owner_modified: { read: 'the feeds (TAXII 2.1 and 1.1) and the lifecycle, by owner and last change' },
    indicator_owner_added: { read: "the v2 dateAdded filter: a window of an owner's rows; TQL dateAdded counts" },
    indicator_summary_lower: { read: 'TQL summary (=, in, startswith); the v2 summary= filter' },
    sqlite_autoindex_item_tag_1: { constraint: "the primary key (item_kind, item_id, tag_id): an item's tags" },
    item_tag_tag: { read: 'TQL tag: the items of a tag' },
    attribute_item: { read: "an item's attributes" },
    sqlite_autoindex_association_1: { constraint: "the primary key: an item's associations" },
    indicator_tally_key: { constraint: 'the upsert key of the tally trigger' },
    indicator_confidence_tally_key: { constraint: 'the upsert key of the confidence tally trigger' },
    indicator_score_tally_key: { constraint: 'the upsert key of the score tally trigger' },
    ...PARTIAL_INDEXES,
  },
  postgres: {
    indicator_pkey: { constraint: 'the primary key' },
    indicator_owner_type_summary: { constraint: 'one copy of an Indicator per owner; the look-ups by summary' },
    indicator_file_md5: { constraint: 'one File per MD5 and owner; the look-ups by hash' },
    indicator_file_sha1: { constraint: 'one File per SHA-1 and owner; the look-ups by hash' },
    indicator_file_sha256: { constraint: 'one File per SHA-256 and owner; the look-ups by hash' },
    indicator_stix_id: {
      constraint: 'one Indicator per source STIX id and owner; TAXII 2.1 objects/{id} and match[id] by a source id',
    },
    indicator_owner_id: { read: "an owner's listing page in id order" },
    indicator_owner_modified: { read: 'the feeds (TAXII 2.1 and 1.1) and the lifecycle, by owner and last change' },
    indicator_owner_added: { read: "the v2 dateAdded filter: a window of an owner's rows; TQL dateAdded counts" },
    indicator_summary_lower_prefix: { read: 'TQL summary (=, in, startswith); the v2 summary= filter' },
    item_tag_pk: { constraint: "the primary key (item_kind, item_id, tag_id): an item's tags" },
    item_tag_tag: { read: 'TQL tag: the items of a tag' },
    attribute_pkey: { constraint: 'the primary key' },
    attribute_item: { read: "an item's attributes" },
    association_pk: { constraint: "the primary key: an item's associations" },
    indicator_tally_key: { read: "the tally's sums by owner" },
    indicator_confidence_tally_key: { read: "the confidence tally's sums by owner" },
    indicator_score_tally_key: { read: "the ThreatAssess score tally's sums by owner" },
    ...PARTIAL_INDEXES,
  },
}

let t: TestApp

async function ok(method: string, url: string, payload?: unknown) {
  const res = await t.request({ method: method as 'GET', url, payload: payload as object })
  expect(res.statusCode, `${method} ${url}: ${res.body.slice(0, 300)}`).toBeLessThan(300)
  return res
}

const batch = (file: unknown, options: Record<string, unknown> = {}, owner = ORG) =>
  cleanBatchThroughApi(t, file, options, owner)

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0').toUpperCase()

function indicators(from: number, count: number, tag: string) {
  return Array.from({ length: count }, (_, j) => {
    const k = from + j
    const common = {
      rating: (k % 5) + 1,
      tag: [{ name: `${tag}-${k % 50}` }],
      attribute: [{ type: 'Description', value: `audit ${k}` }],
      ...(k % 14 === 0 ? { associatedGroups: [{ groupXid: 'audit-group' }] } : {}),
    }
    const summary = [hex(k, 32), hex(k, 40), hex(k, 64), `${hex(k, 32)} : ${hex(k, 40)} : ${hex(k, 64)}`][k % 4]!
    if (k % 3 === 0) return { ...common, type: 'File', summary }
    if (k % 3 === 1) return { ...common, type: 'Address', summary: `10.9.${(k >> 8) & 255}.${k & 255}` }
    return { ...common, type: 'Host', summary: `h${k}.index-audit.example` }
  })
}

/** Writes through the batch path (creates, updates, a delete) and the API, then the reads that might need an index. */
async function workload(since: string) {
  await batch({
    group: [{ type: 'Adversary', name: 'Audit group', xid: 'audit-group' }],
    indicator: indicators(0, 40, 'w'),
  })
  await batch(
    { indicator: indicators(0, 40, 'w').map((i) => ({ ...i, rating: 2 })) },
    { attributeWriteType: 'Replace' },
  )
  await batch({ indicator: [{ type: 'Host', summary: 'h2.index-audit.example' }] }, { action: 'Delete' })
  await ok('POST', '/api/v2/indicators/hosts', { hostName: 'api.index-audit.example', rating: 2 })
  await ok('PUT', '/api/v2/indicators/hosts/api.index-audit.example', { rating: 4 })
  await ok('POST', '/api/v2/indicators/hosts/api.index-audit.example/tags/audit-api')
  await ok('GET', '/api/v2/indicators/hosts/api.index-audit.example/tags')
  await ok('GET', '/api/v2/indicators/hosts/api.index-audit.example/attributes')
  await ok('DELETE', '/api/v2/indicators/hosts/api.index-audit.example')
  const owner = encodeURIComponent(ORG)
  const v2 = (query: string) => ok('GET', `/api/v2/indicators?owner=${owner}&resultLimit=100&${query}`)
  await v2('')
  // The small owner's page: on the big one's (95 % of the rows) a planner may rightly read in id order and filter.
  await ok('GET', `/api/v2/indicators?owner=${encodeURIComponent(SMALL)}&resultLimit=100`)
  await v2('filters=rating%3E2')
  await v2('filters=confidence%3E50')
  await v2('filters=threatAssessScore%3E500')
  await v2('filters=falsePositive%3E0')
  const typed = (type: string, filters: string) =>
    ok('GET', `/api/v2/indicators/${type}?owner=${owner}&resultLimit=100&filters=${encodeURIComponent(filters)}`)
  await typed('hosts', 'dnsActive=true')
  await typed('hosts', 'whoisActive=true')
  await typed('addresses', 'city=Paris')
  await v2(`filters=${encodeURIComponent('summary=h5.index-audit.example')}`)
  await v2(`filters=${encodeURIComponent(`dateAdded>${since}`)}`)
  await v2(`modifiedSince=${encodeURIComponent(since)}`)
  await ok('GET', `/api/v2/indicators?resultLimit=100&filters=${encodeURIComponent('summary=h5.index-audit.example')}`)
  const v3 = (tql: string) => ok('GET', `/api/v3/indicators?resultLimit=100&count=true&tql=${encodeURIComponent(tql)}`)
  await v3('summary = "h5.index-audit.example"')
  await v3('summary in ("h5.index-audit.example", "h8.index-audit.example")')
  await v3('summary startswith "h1"')
  await v3(`dateAdded > "${since}"`)
  await v3(`lastModified > "${since}"`)
  await v3('tag = "w-3"')
}

/** Index → the statement shapes whose plans read it. */
const readers = new Map<string, Set<string>>()
/** Each shape's plan, for the report. */
const plans = new Map<string, string[]>()

beforeAll(async () => {
  t = await createTestApp()
  await t.createOwner(SMALL, 'Community')
  const { setMembership } = await import('../domain/access/accounts.js')
  await setMembership(t.store.db, t.admin.userName, SMALL, 'Director', new Date().toISOString())
  // A store with rows and statistics, so plans are those of a store in use.
  await batch({ group: [{ type: 'Adversary', name: 'Audit group', xid: 'audit-group' }] })
  for (let from = 1000; from < 5000; from += 2000) await batch({ indicator: indicators(from, 2000, 'seed') })
  await batch(
    {
      group: [{ type: 'Adversary', name: 'Audit group', xid: 'audit-group' }],
      indicator: indicators(9000, 200, 'small'),
    },
    {},
    SMALL,
  )
  if (t.store.sqlite) t.store.sqlite.exec('ANALYZE')
  else await sql`vacuum analyze`.execute(t.store.db)
  const since = new Date(Date.now() - 1000).toISOString()
  const captured = await captureStatements(() => workload(since))
  const byShape = new Map<string, CapturedStatement>()
  for (const statement of captured) if (isPlannable(statement.sql)) byShape.set(shapeOf(statement.sql), statement)
  for (const [shape, statement] of byShape) {
    const settings = t.store.dialect === 'postgres' ? { ...statement.settings, enable_seqscan: 'off' } : {}
    const plan = await explain(t.store, { ...statement, settings })
    plans.set(shape, plan.lines)
    for (const read of plan.reads) {
      if (!TABLES.includes(read.table)) continue
      const set = readers.get(read.index) ?? new Set<string>()
      set.add(shape)
      readers.set(read.index, set)
    }
  }
}, 300_000)

afterAll(async () => {
  await t?.close()
  const file = process.env.BULWARK_INDEX_REPORT
  if (file) {
    const lines = [...readers].flatMap(([index, shapes]) => [
      `## ${index}`,
      ...[...shapes].map((s) => `  ${s.slice(0, 300)}\n      ${(plans.get(s) ?? []).join('\n      ')}`),
    ])
    writeFileSync(file, `${lines.join('\n')}\n`)
  }
})

async function schemaIndexes(): Promise<string[]> {
  const list = `(${TABLES.map((x) => `'${x}'`).join(', ')})`
  if (t.store.sqlite)
    return (
      t.store.sqlite.prepare(`select name from sqlite_master where type = 'index' and tbl_name in ${list}`).all() as {
        name: string
      }[]
    ).map((r) => r.name)
  const rows = await sql<{ name: string }>`select indexname as name from pg_indexes
    where schemaname = current_schema() and tablename in (${sql.join(TABLES)})`.execute(t.store.db)
  return rows.rows.map((r) => r.name)
}

describe('the indexes of the Indicator table and of the rows written with each Indicator', () => {
  it('are exactly the audited ones', async () => {
    const audit = INDEXES[t.store.dialect]
    expect((await schemaIndexes()).sort()).toEqual(Object.keys(audit).sort())
  })

  it('are each read by some statement, unless kept as a constraint', () => {
    const unread = Object.entries(INDEXES[t.store.dialect])
      .filter(([index, need]) => 'read' in need && !readers.has(index))
      .map(([index, need]) => `${index} (${(need as { read: string }).read})`)
    expect(unread).toEqual([])
  })

  it('the v2 summary= filter and TQL summary read the lower(summary) index', () => {
    const index = t.store.dialect === 'sqlite' ? 'indicator_summary_lower' : 'indicator_summary_lower_prefix'
    const shapes = [...(readers.get(index) ?? [])]
    expect(shapes.some((s) => /"indicator"\."summary" = \?/.test(s) && /lower\("indicator"\."summary"\)/.test(s))).toBe(
      true,
    )
    expect(shapes.some((s) => /like|~>=~|>= ?\?/i.test(s) || /lower\(/.test(s))).toBe(true)
  })
})

/**
 * Test support for plan tests over the statements the code actually runs: every statement executed while
 * `captureStatements` runs is recorded as the database received it (text and parameters), at the drivers
 * themselves (better-sqlite3's Statement, pg's Client), so Kysely queries, the batch writer's own INSERT texts
 * and the prepared reads by id are all seen. `shapeOf` folds IN lists, VALUES tuples and CASE arms of any
 * length into one shape; `readsOf` explains a statement (SQLite EXPLAIN QUERY PLAN, PostgreSQL EXPLAIN) and
 * says how it reads each table: through which index, sought by which columns.
 */
import SqliteDatabase from 'better-sqlite3'
import pg from 'pg'
import type { Store } from '../store/connect.js'

export interface CapturedStatement {
  sql: string
  parameters: readonly unknown[]
  /** PostgreSQL: planner settings the statement ran under (`enable_sort = off` of the listings). */
  settings: Record<string, string>
  /** Milliseconds from the call to its result (SQLite: the synchronous call; PostgreSQL: until the answer). */
  ms?: number
}

let recording: CapturedStatement[] | undefined
let installed = false
const settingsOf = new WeakMap<object, Record<string, string>>()

/** Planner settings a transaction sets for its statements; the time limit does not change a plan. */
const PLANNER_SETTING = /^enable_/

function trackSettings(client: object, text: string, values: readonly unknown[]): void {
  const lower = text.trim().toLowerCase()
  if (/^(begin|commit|rollback)\b/.test(lower)) {
    settingsOf.delete(client)
    return
  }
  const current = settingsOf.get(client) ?? {}
  const local = /^set local (\w+)\s*(?:=|to)\s*(\w+)/.exec(lower)
  if (local) {
    if (local[2] === 'default') delete current[local[1]!]
    else current[local[1]!] = local[2]!
  }
  if (lower.includes('set_config(')) {
    for (let k = 0; k + 1 < values.length; k += 2) {
      const name = String(values[k])
      if (PLANNER_SETTING.test(name)) current[name] = String(values[k + 1])
    }
  }
  settingsOf.set(client, current)
}

/** Patches the two drivers once per process; they record only while a capture runs. */
function install(): void {
  if (installed) return
  installed = true
  const probe = new SqliteDatabase(':memory:')
  const proto = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, (...args: unknown[]) => unknown>
  probe.close()
  for (const method of ['all', 'get', 'run', 'iterate']) {
    const original = proto[method]!
    proto[method] = function (this: { source: string }, ...args: unknown[]) {
      if (!recording) return original.apply(this, args)
      const parameters = args.length === 1 && Array.isArray(args[0]) ? (args[0] as unknown[]) : args
      const entry: CapturedStatement = { sql: this.source, parameters, settings: {} }
      recording.push(entry)
      const started = performance.now()
      try {
        return original.apply(this, args)
      } finally {
        entry.ms = performance.now() - started
      }
    }
  }
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const [config, values] = args as [unknown, unknown]
    const text = typeof config === 'string' ? config : (config as { text?: string } | undefined)?.text
    const parameters = (Array.isArray(values) ? values : (config as { values?: unknown[] })?.values) ?? []
    if (typeof text !== 'string') return query.apply(this, args)
    trackSettings(this, text, parameters)
    if (!recording) return query.apply(this, args)
    const entry: CapturedStatement = { sql: text, parameters, settings: { ...(settingsOf.get(this) ?? {}) } }
    recording.push(entry)
    const started = performance.now()
    const result = query.apply(this, args)
    if (result instanceof Promise)
      result.then(
        () => (entry.ms = performance.now() - started),
        () => (entry.ms = performance.now() - started),
      )
    return result
  } as typeof pg.Client.prototype.query
}

/** Installs the recording (call before the store's first statement, so no driver statement escapes it). */
export function installStatementCapture(): void {
  install()
}

/** The statements `run` executes, in order. */
export async function captureStatements(run: () => Promise<unknown>): Promise<CapturedStatement[]> {
  install()
  if (recording) throw new Error('captureStatements: a capture is already running')
  const seen: CapturedStatement[] = []
  recording = seen
  try {
    await run()
  } finally {
    recording = undefined
  }
  return seen
}

/** Transaction control, settings, planner statistics and pings: nothing to plan. */
export function isPlannable(sql: string): boolean {
  const s = sql.trim().toLowerCase()
  if (/^(begin|commit|rollback|savepoint|release|set |pragma|analyze|vacuum|listen|notify|unlisten)\b/.test(s))
    return false
  if (/^select (set_config|1$|pg_notify|pg_advisory)/.test(s)) return false
  return /^(select|insert|update|delete|with)\b/.test(s)
}

/**
 * The statement's shape: placeholders as `?`, every list of placeholders as `(?…)`, repeated VALUES tuples, calls
 * (`lower(?…), lower(?…)`) and CASE arms as one followed by `…`. Two executions of one code path have one shape
 * whatever their list lengths.
 */
export function shapeOf(sql: string): string {
  let s = sql
    .replace(/\$\d+(?:::[a-z ]+)?/g, '?')
    .replace(/\s+/g, ' ')
    .trim()
  s = s.replace(/\((?:\?, ?)*\?\)/g, '(?…)')
  s = s.replace(/(\w*\([^()]*\))(?:, ?\1)+/g, '$1…')
  s = s.replace(/(?:when \? then cast\(\? as [a-z ]+\) ?)+/g, 'when … ')
  return s
}

export interface Read {
  table: string
  /** The index read, `(scan)` for the whole table, `(pk)` for SQLite's rowid, `(automatic)` for a temporary index. */
  index: string
  /** The columns the index is sought by (empty: read in index order from one end); a rowid is `id`. */
  seek: string[]
  /** The index alone answers (SQLite COVERING INDEX, PostgreSQL Index Only Scan). */
  covering: boolean
}

export interface Explained {
  /** The plan lines as the database gives them (SQLite's EXPLAIN QUERY PLAN details; PostgreSQL's node summary). */
  lines: string[]
  reads: Read[]
}

/** A node of PostgreSQL's `EXPLAIN (FORMAT JSON)`, as far as the plan tests read it. */
export interface PlanNode {
  'Node Type': string
  'Relation Name'?: string
  'Index Name'?: string
  'Index Cond'?: string
  'Recheck Cond'?: string
  Filter?: string
  Plans?: PlanNode[]
}

/** The node and every node below it, depth first. */
export function planNodes(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(planNodes)]
}

/** Columns an index condition compares: `owner_id=? AND value1=?`, `((item_kind = 'x'::text) AND (item_id = ANY …))`. */
function seekColumns(condition: string): string[] {
  const out: string[] = []
  for (const m of condition.matchAll(/(<expr>|lower\(\(?\w+\)?\)|\b[a-z_][a-z0-9_]*\b)\)?\s*(?:=|>=|<=|<|>|~>=~|~<~)/g))
    out.push(m[1]!.replace(/^lower\(\(?(\w+)\)?\)$/, 'lower($1)').replace(/^rowid$/, 'id'))
  return out
}

const indexTables = new WeakMap<object, Map<string, string>>()

async function tableOfIndex(store: Store): Promise<Map<string, string>> {
  const handle = store.sqlite ?? store.pool ?? store.db
  let map = indexTables.get(handle)
  if (!map) {
    const rows = store.sqlite
      ? (store.sqlite.prepare("select name, tbl_name as t from sqlite_master where type = 'index'").all() as {
          name: string
          t: string
        }[])
      : ((
          await store.pool!.query(
            "select indexname as name, tablename as t from pg_indexes where schemaname = 'public'",
          )
        ).rows as { name: string; t: string }[])
    map = new Map(rows.map((r) => [r.name, r.t]))
    indexTables.set(handle, map)
  }
  return map
}

/** Table names behind the aliases a statement gives them (`from "indicator" as "i"`). */
function aliases(sql: string): Map<string, string> {
  const map = new Map<string, string>()
  for (const m of sql.matchAll(/\b(?:from|join)\s+"?(\w+)"?\s+(?:as\s+)?"?(\w+)"?/gi)) {
    const alias = m[2]!.toLowerCase()
    if (!['where', 'on', 'inner', 'left', 'cross', 'join', 'order', 'group', 'limit', 'using', 'set'].includes(alias))
      map.set(alias, m[1]!)
  }
  return map
}

/** How the statement reads each table, on the store's database as it is now. */
export async function explain(store: Store, statement: CapturedStatement): Promise<Explained> {
  const tables = await tableOfIndex(store)
  if (store.sqlite) {
    const rows = store
      .sqlite!.prepare(`EXPLAIN QUERY PLAN ${statement.sql}`)
      .all(...(statement.parameters as unknown[])) as { detail: string }[]
    const named = aliases(statement.sql)
    const reads: Read[] = []
    for (const { detail } of rows) {
      const m =
        /^(SCAN|SEARCH) (\w+)(?: USING (?:(COVERING )?INDEX (\w+)|(INTEGER PRIMARY KEY)|(AUTOMATIC)[\w ]*INDEX)(?: \((.*)\))?)?/.exec(
          detail,
        )
      if (!m || /^(json_each|CO-ROUTINE|MATERIALIZE)/.test(m[2]!)) continue
      const table = named.get(m[2]!.toLowerCase()) ?? m[2]!
      const index = m[4] ? m[4] : m[5] ? '(pk)' : m[6] ? '(automatic)' : '(scan)'
      reads.push({
        table: m[4] ? (tables.get(m[4]) ?? table) : table,
        index,
        seek: m[1] === 'SEARCH' ? seekColumns(m[7] ?? '') : [],
        covering: !!m[3],
      })
    }
    return { lines: rows.map((r) => r.detail), reads }
  }
  const client = await store.pool!.connect()
  try {
    await client.query('begin')
    for (const [name, value] of Object.entries(statement.settings))
      await client.query('select set_config($1, $2, true)', [name, value])
    const result = await client.query(`EXPLAIN (FORMAT JSON) ${statement.sql}`, statement.parameters as unknown[])
    const plan = (result.rows[0]['QUERY PLAN'] as { Plan: PlanNode }[])[0]!.Plan
    const reads: Read[] = []
    const lines: string[] = []
    const walk = (node: PlanNode, depth: number) => {
      const what = node['Index Name'] ?? node['Relation Name'] ?? ''
      const cond = node['Index Cond'] ? ` (${node['Index Cond']})` : ''
      lines.push(`${'  '.repeat(depth)}${node['Node Type']}${what ? ` ${what}` : ''}${cond}`)
      if (node['Node Type'] === 'Seq Scan' && node['Relation Name'])
        reads.push({ table: node['Relation Name'], index: '(scan)', seek: [], covering: false })
      else if (node['Index Name'])
        reads.push({
          table: node['Relation Name'] ?? tables.get(node['Index Name']) ?? '?',
          index: node['Index Name'],
          seek: seekColumns(node['Index Cond'] ?? ''),
          covering: node['Node Type'] === 'Index Only Scan',
        })
      for (const child of node.Plans ?? []) walk(child, depth + 1)
    }
    walk(plan, 0)
    return { lines, reads }
  } finally {
    await client.query('rollback').catch(() => {})
    client.release()
  }
}

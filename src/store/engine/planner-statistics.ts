/**
 * Planner statistics kept current by the server itself. Nobody can be relied on to run ANALYZE
 * (and PostgreSQL may run with autovacuum off), yet plans go wrong without statistics: the
 * batch writer's `owner_id = ? AND type = ? AND summary IN (…)` look-up, planned for an empty
 * table, turned a long PostgreSQL import quadratic. So:
 * - at start, SQLite runs `PRAGMA optimize` over every table and PostgreSQL analyzes the
 *   written tables never analyzed or changed by more than a tenth since (autovacuum's rule);
 * - writers report the rows they wrote (noteRowsWritten); once those pass a share of the
 *   rows the tables held at the last analysis (at least MIN_ROWS), the next refreshIfDue
 *   analyzes the written tables — during a long import as well as after it.
 * SQLite's analysis is bounded by analysis_limit, PostgreSQL's by its sampling, so a refresh
 * costs milliseconds to a few hundred at a million rows.
 *
 * On PostgreSQL a refresh is `VACUUM (ANALYZE)`: with autovacuum off nothing else marks pages
 * all-visible, so index-only scans (a feed page's positions, counts, link look-ups) would visit
 * the table for every row, the first reader of each new row would dirty its page setting hint
 * bits, and the dead versions that updates and deletes leave would never be reclaimed. VACUUM
 * skips pages already all-visible, so over an import it passes over each page about once.
 *
 * Between two analyses (the table doubles) PostgreSQL also vacuums the written tables, without analysis and without
 * index cleanup, each time a fifth more rows were written: autovacuum's insert rule. Otherwise the pages written since
 * the last analysis stay not all-visible, and an index-only scan visits the table for each of their rows: TQL's
 * `tag =` read its 1,000 tag links on a 1,000,000-Indicator store with 1,000 heap fetches (the last 13 % of the pages
 * written after the last analysis), and at 10,000,000 it took 14.6 ms p50 where SQLite took 3.3.
 */
import { sql } from 'kysely'
import type { Store } from '../connect.js'

/** The tables bulk writes (batch jobs) fill; the ones whose statistics steer the hot look-ups. */
export const WRITTEN_TABLES = ['indicator', 'item_tag', 'attribute', 'tag', 'association', 'intel_group'] as const

/** SQLite: rows each index's analysis reads at most (an approximate, bounded ANALYZE). */
const SQLITE_ANALYSIS_LIMIT = 1000
/** Fewer rows written than this never trigger a refresh. */
export const MIN_ROWS = 5000
/**
 * The written rows, as a share of the rows at the last analysis, that make statistics stale: once the tables
 * have doubled. Plans change with the order of magnitude of a table, not with a fifth more rows, and each
 * PostgreSQL ANALYZE of the written tables costs seconds at a million rows (every column of a 30,000-row sample,
 * expression indexes included): refreshing at every fifth spent a third of a million-row import's database time
 * on them, doubling spends a few percent.
 */
const STALE_SHARE = 1
/** PostgreSQL: the written rows, as a share of the rows at the last vacuum, after which the written tables are vacuumed. */
const UNVISIBLE_SHARE = 0.2

interface State {
  /** Rows the tables held at the last analysis (Indicators, the largest of them). */
  rowsAtAnalysis: number
  writtenSince: number
  /** PostgreSQL: rows at the last vacuum (analyses vacuum too), and written since. */
  rowsAtVacuum: number
  writtenSinceVacuum: number
  minRows: number
  running?: Promise<void>
}

/** Keyed by the connection handle, shared by a Store and its transaction-scoped copies. */
const states = new WeakMap<object, State>()

const handleOf = (store: Store): object => store.sqlite ?? store.pool ?? store.db

function stateOf(store: Store): State {
  let state = states.get(handleOf(store))
  if (!state) {
    state = { rowsAtAnalysis: 0, writtenSince: 0, rowsAtVacuum: 0, writtenSinceVacuum: 0, minRows: MIN_ROWS }
    states.set(handleOf(store), state)
  }
  return state
}

/** Tests lower the threshold so a small job counts as a large write. */
export function setRefreshThreshold(store: Store, minRows: number): void {
  stateOf(store).minRows = minRows
}

async function indicatorRows(store: Store): Promise<number> {
  if (store.sqlite) {
    return (store.sqlite.prepare('select max(rowid) as n from indicator').get() as { n: number | null }).n ?? 0
  }
  const r = await sql<{
    n: number
  }>`select greatest(reltuples, 0)::bigint as n from pg_class where relname = 'indicator' and relkind = 'r'`.execute(
    store.db,
  )
  return Number(r.rows[0]?.n ?? 0)
}

/**
 * SQLite: `optimize` re-analyzes a table only once it has grown or shrunk tenfold since its last analysis,
 * so as the refresh during an import it left the statistics of a table that had grown 8.7-fold untouched
 * (115,250 rows described, 1,000,000 held). It serves at start, where it is the right test; the refresh
 * names its tables.
 */
async function analyze(store: Store, tables: readonly string[], how: 'optimize' | 'analyze'): Promise<void> {
  const sqlite = store.sqlite
  if (sqlite) {
    // Under the writer's lock, as Kysely's writes are: another store of this process over the file may be writing.
    await store.sqliteWriterLock!.whileHeld(() => {
      sqlite.pragma(`analysis_limit = ${SQLITE_ANALYSIS_LIMIT}`)
      // 0x10002: consider every table, not only those this connection has queried; ANALYZE the ones whose size moved.
      if (how === 'optimize') sqlite.pragma('optimize = 0x10002')
      else for (const table of tables) sqlite.exec(`analyze "${table}"`)
      forgetSmallTables(sqlite, stateOf(store).minRows)
      if (store.sqliteReader) describeToOtherConnections(sqlite)
    })
    return
  }
  await sql`vacuum (analyze) ${sql.join(tables.map((t) => sql.table(t)))}`.execute(store.db)
}

/**
 * PostgreSQL: marks the pages written since the last vacuum all-visible. Without index cleanup, which would read every
 * index of the tables whole; the next analysis (a full VACUUM) reclaims what updates left.
 */
async function markVisible(store: Store, tables: readonly string[]): Promise<void> {
  await sql`vacuum (index_cleanup off, truncate off) ${sql.join(tables.map((t) => sql.table(t)))}`.execute(store.db)
}

/**
 * SQLite loads a connection's statistics with its schema, so the reading connection (store/connect.ts) planned with
 * those of its first read until the schema changed again: on a store loaded after start, the empty store's. A view
 * made and dropped changes the schema, which makes every connection read it again, statistics included, at its
 * next statement (each re-compiles its statements once).
 */
function describeToOtherConnections(db: NonNullable<Store['sqlite']>): void {
  db.exec('create view statistics_refreshed as select 1; drop view statistics_refreshed')
}

/**
 * SQLite: a written table is described only once it holds the rows that trigger a refresh (MIN_ROWS); below, its
 * statistics are dropped after each analysis and SQLite plans it as it plans a table it knows nothing of: large,
 * every index selective (the plans the empty database is tested on). Statistics gathered on a few dozen Groups told
 * the planner that reading them all cost less than seeking the few a related item names, and a table that small
 * can grow by MIN_ROWS, a hundredfold, before the next refresh. From MIN_ROWS on, a table is refreshed before it
 * doubles, so its description stays within half of the truth.
 */
function forgetSmallTables(db: NonNullable<Store['sqlite']>, describedFrom: number): void {
  const tables = [...WRITTEN_TABLES]
  const listed = tables.map(() => '?').join(', ')
  // A stat1 row begins with the rows its index holds; the table's largest index holds them all.
  const small = db
    .prepare(`select tbl from sqlite_stat1 where tbl in (${listed}) group by tbl having max(cast(stat as integer)) < ?`)
    .pluck()
    .all(...tables, describedFrom) as string[]
  if (small.length === 0) return
  const named = small.map(() => '?').join(', ')
  const hasStat4 = db.prepare("select 1 from sqlite_schema where name = 'sqlite_stat4'").get() !== undefined
  db.transaction(() => {
    db.prepare(`delete from sqlite_stat1 where tbl in (${named})`).run(...small)
    if (hasStat4) db.prepare(`delete from sqlite_stat4 where tbl in (${named})`).run(...small)
  })()
  // The documented way to make a connection load statistics edited by hand.
  db.exec('analyze sqlite_schema')
}

/**
 * At start: SQLite's `PRAGMA optimize`; on PostgreSQL, ANALYZE of the written tables without
 * statistics or with stale ones (a database filled by a server that did not keep them), and the pass
 * markVisibleAfterLoad makes when a queue drains, for the tables that took MIN_ROWS rows or more since their last
 * vacuum: a node stopped as its last job ended owes it, and without it the newest rows' index-only scans visit the
 * table (TQL `tag =` 11 ms at 10,000,000 Indicators, 7 with it).
 */
export async function refreshAtStart(store: Store): Promise<void> {
  const state = stateOf(store)
  if (store.sqlite) {
    await analyze(store, WRITTEN_TABLES, 'optimize')
  } else {
    // Never analyzed, or changed since by more than autovacuum's default share would allow.
    const stale = await sql<{
      relname: string
    }>`select s.relname from pg_stat_user_tables s join pg_class c on c.oid = s.relid
      where s.relname in (${sql.join([...WRITTEN_TABLES])})
        and ((s.last_analyze is null and s.last_autoanalyze is null) or s.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0))`.execute(
      store.db,
    )
    if (stale.rows.length)
      await analyze(
        store,
        stale.rows.map((r) => r.relname),
        'analyze',
      )
    // Rows inserted since the table's last vacuum, as PostgreSQL counts them (kept across clean restarts). Not the
    // visibility map's gaps: pages holding dead items (a load's updates) stay outside it until an index cleanup.
    const unvisible = await sql<{ relname: string }>`select relname from pg_stat_user_tables
      where relname in (${sql.join([...WRITTEN_TABLES])}) and n_ins_since_vacuum >= ${state.minRows}`.execute(store.db)
    if (unvisible.rows.length)
      await markVisible(
        store,
        unvisible.rows.map((r) => r.relname),
      )
  }
  state.rowsAtAnalysis = await indicatorRows(store)
  state.writtenSince = 0
  state.rowsAtVacuum = state.rowsAtAnalysis
  state.writtenSinceVacuum = 0
}

/** Analyzes the written tables now, as a due refresh does (the plan tests gather their statistics so). */
export async function refreshNow(store: Store): Promise<void> {
  await analyze(store, WRITTEN_TABLES, 'analyze')
}

/** Counts rows a bulk writer committed; refreshIfDue decides whether they make statistics stale. */
export function noteRowsWritten(store: Store, rows: number): void {
  const state = stateOf(store)
  state.writtenSince += rows
  state.writtenSinceVacuum += rows
}

/** True when the rows written since the last analysis call for a new one. */
export function refreshDue(store: Store): boolean {
  const state = stateOf(store)
  return state.writtenSince >= Math.max(state.minRows, state.rowsAtAnalysis * STALE_SHARE)
}

/**
 * PostgreSQL, when a node's batch queue has drained: vacuums the written tables (as markVisible) if MIN_ROWS or more
 * rows were written since the last vacuum. The insert rule leaves up to a fifth of the rows unvacuumed after a load:
 * at 1,000,000 Indicators the last 130,000, which the smallest owner's tag links lay in. A load is over when its
 * queue is empty, so this is the pass autovacuum would make once the writes stop.
 */
export async function markVisibleAfterLoad(store: Store): Promise<void> {
  const state = stateOf(store)
  if (store.sqlite || state.running || state.writtenSinceVacuum < state.minRows) return
  await upkeep(store, state, false)
}

/**
 * PostgreSQL, when a node's batch queue has drained: vacuums the queue's own tables. A job's uploaded text is deleted
 * from `batch_input` when the job completes, and each chunk writes a new version of its `batch_job` row; with
 * autovacuum off nothing else reclaims them, and a realistic 1,000,000-Indicator load left 64.6 MB of dead uploads in
 * `batch_input` (docs/benchmarks.md, session 21). What is left there between loads is a few queued jobs' text, so
 * the vacuum reads little but the dead pages. SQLite reuses the pages of deleted rows by itself.
 */
export async function vacuumBatchQueue(store: Store): Promise<void> {
  if (store.sqlite) return
  await sql`vacuum batch_input, batch_job`.execute(store.db)
}

/** PostgreSQL: true when the rows written since the last vacuum call for one (markVisible). */
function vacuumDue(store: Store): boolean {
  const state = stateOf(store)
  return !store.sqlite && state.writtenSinceVacuum >= Math.max(state.minRows, state.rowsAtVacuum * UNVISIBLE_SHARE)
}

/**
 * Analyzes the written tables when enough rows were written since the last analysis, or on PostgreSQL vacuums them
 * when enough were written since the last vacuum; callers await it between commits (not inside a transaction), so
 * what follows plans with the new statistics. Concurrent callers share one run.
 */
export async function refreshIfDue(store: Store): Promise<boolean> {
  const state = stateOf(store)
  if (state.running) {
    await state.running
    return false
  }
  const analysis = refreshDue(store)
  if (!analysis && !vacuumDue(store)) return false
  await upkeep(store, state, analysis)
  return true
}

/**
 * One run of upkeep, which concurrent callers share: an analysis (with its VACUUM) or, on PostgreSQL, a vacuum that
 * marks the new pages all-visible; then the rows it covered are booked as covered.
 */
async function upkeep(store: Store, state: State, analysis: boolean): Promise<void> {
  state.running = (async () => {
    const written = state.writtenSince
    const writtenSinceVacuum = state.writtenSinceVacuum
    if (analysis) await analyze(store, WRITTEN_TABLES, 'analyze')
    else await markVisible(store, WRITTEN_TABLES)
    // The table as it is, not as this process counted it: other nodes write too.
    const rows = await indicatorRows(store)
    state.rowsAtVacuum = Math.max(state.rowsAtVacuum + writtenSinceVacuum, rows)
    state.writtenSinceVacuum -= writtenSinceVacuum
    if (!analysis) return
    state.rowsAtAnalysis = Math.max(state.rowsAtAnalysis + written, rows)
    state.writtenSince -= written
  })()
  try {
    await state.running
  } finally {
    state.running = undefined
  }
}

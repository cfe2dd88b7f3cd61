/**
 * What a benchmark's store occupies on disk, per table and per index, so the bytes an Indicator costs (its tags and
 * attributes included) can be read off and the indexes weighed against each other (issue 28, point 3).
 *
 * SQLite: the main database file after a TRUNCATE checkpoint (page_count × page_size; the WAL is empty then), split
 * by the dbstat virtual table. PostgreSQL: pg_database_size, split into pg_table_size (heap, TOAST, free-space and
 * visibility maps) of each table and pg_relation_size of each index in the public schema.
 */
import SqliteDatabase from 'better-sqlite3'
import pg from 'pg'

export interface RelationSize {
  name: string
  /** The table an index belongs to (indexes only). */
  table?: string
  bytes: number
}

export interface DiskUsage {
  /** The whole database: SQLite's main file, PostgreSQL's pg_database_size (catalogs included). */
  bytes: number
  /** The user tables and their indexes alone. */
  relationBytes: number
  indicators: number
  bytesPerIndicator: number
  /** relationBytes ÷ indicators: what the stored data costs, without the empty database's own size. */
  relationBytesPerIndicator: number
  /** Every user table's own bytes (without its indexes), largest first. */
  tables: RelationSize[]
  /** The largest ten indexes (SQLite: a WITHOUT ROWID table's primary key counts as the table). */
  indexes: RelationSize[]
  /** All indexes together. */
  indexBytes: number
}

const TOP_INDEXES = 10

/** Measures the database at `url` (`sqlite:<file>` or a PostgreSQL URL), which nothing is writing to. */
export async function diskUsage(url: string, indicators: number): Promise<DiskUsage> {
  const { bytes, relations } = url.startsWith('sqlite:') ? sqliteSizes(url.slice('sqlite:'.length)) : await pgSizes(url)
  const tables = relations.filter((r) => r.table === undefined).sort((a, b) => b.bytes - a.bytes)
  const indexes = relations.filter((r) => r.table !== undefined).sort((a, b) => b.bytes - a.bytes)
  const relationBytes = relations.reduce((n, r) => n + r.bytes, 0)
  const per = (n: number) => (indicators > 0 ? Math.round(n / indicators) : 0)
  return {
    bytes,
    relationBytes,
    indicators,
    bytesPerIndicator: per(bytes),
    relationBytesPerIndicator: per(relationBytes),
    tables,
    indexes: indexes.slice(0, TOP_INDEXES),
    indexBytes: indexes.reduce((n, r) => n + r.bytes, 0),
  }
}

function sqliteSizes(file: string): { bytes: number; relations: RelationSize[] } {
  const db = new SqliteDatabase(file)
  try {
    db.pragma('wal_checkpoint(TRUNCATE)')
    const pages = Number(db.pragma('page_count', { simple: true }))
    const pageSize = Number(db.pragma('page_size', { simple: true }))
    const rows = db
      .prepare(
        `SELECT s.name AS name, m.type AS type, m.tbl_name AS tbl, SUM(s.pgsize) AS bytes
         FROM dbstat s LEFT JOIN sqlite_schema m ON m.name = s.name
         WHERE s.name NOT LIKE 'sqlite_%' OR m.type = 'index'
         GROUP BY s.name`,
      )
      .all() as { name: string; type: string | null; tbl: string | null; bytes: number }[]
    return {
      bytes: pages * pageSize,
      relations: rows.map((r) =>
        r.type === 'index'
          ? { name: r.name, table: r.tbl ?? undefined, bytes: r.bytes }
          : { name: r.name, bytes: r.bytes },
      ),
    }
  } finally {
    db.close()
  }
}

async function pgSizes(url: string): Promise<{ bytes: number; relations: RelationSize[] }> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const total = await client.query('SELECT pg_database_size(current_database())::bigint AS bytes')
    const rows = await client.query(
      `SELECT c.relname AS name, c.relkind AS kind, t.relname AS tbl,
              (CASE WHEN c.relkind = 'i' THEN pg_relation_size(c.oid) ELSE pg_table_size(c.oid) END)::bigint AS bytes
       FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace
       LEFT JOIN pg_index i ON i.indexrelid = c.oid
       LEFT JOIN pg_class t ON t.oid = i.indrelid
       WHERE n.nspname = 'public' AND c.relkind IN ('r', 'i', 'm')`,
    )
    return {
      bytes: Number(total.rows[0].bytes),
      relations: (rows.rows as { name: string; kind: string; tbl: string | null; bytes: string }[]).map((r) =>
        r.kind === 'i'
          ? { name: r.name, table: r.tbl ?? undefined, bytes: Number(r.bytes) }
          : { name: r.name, bytes: Number(r.bytes) },
      ),
    }
  } finally {
    await client.end()
  }
}

/** One line: total, per Indicator, and the largest tables and indexes in MB. */
export function describeDisk(label: string, d: DiskUsage): string {
  const mb = (n: number) => (n / 1024 / 1024).toFixed(1)
  return (
    `${label}: ${mb(d.bytes)} MB on disk, ${d.bytesPerIndicator} bytes per Indicator ` +
    `(tables and indexes ${mb(d.relationBytes)} MB, ${d.relationBytesPerIndicator} bytes; indexes ${mb(d.indexBytes)} MB)\n` +
    `  tables: ${d.tables
      .filter((t) => t.bytes > 0)
      .slice(0, 6)
      .map((t) => `${t.name} ${mb(t.bytes)}`)
      .join(', ')}\n` +
    `  largest indexes: ${d.indexes.map((i) => `${i.name} ${mb(i.bytes)}`).join(', ')}`
  )
}

/**
 * Set-based reads and writes for batch jobs: one IN query per chunk to find what exists,
 * multi-row INSERTs, and one UPDATE per chunk with a CASE per column. Statements are split
 * so no statement binds more than PARAM_BUDGET values (SQLite allows 32,766, PostgreSQL 65,535).
 */
import { CompiledQuery, type Kysely, type RawBuilder, sql } from 'kysely'
import type { ItemKind } from '../../model/kinds.js'
import type { CredentialTable } from '../engine/credential-cache.js'
import type { Database } from '../database.js'
import { dialectOf, lookUpOwners, summaryIn } from '../engine/list-conditions.js'
import { deleteAssociationsOfItems } from './metadata.repository.js'

const PARAM_BUDGET = 30_000
const IN_CHUNK = 5_000

export type ColumnType = 'text' | 'integer' | 'double'

function slices<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}

/**
 * Columns an INSERT computes in SQL from the inserted values (for example scores derived from them), so a
 * rule kept in SQL needs no second UPDATE of the rows just written. `expressions` gets a reference to an
 * inserted column and returns SQL text per computed column; it names no request value.
 */
export interface DerivedColumns {
  columns: readonly string[]
  expressions(ref: (column: string) => string): readonly string[]
  /** The type of every inserted column, so PostgreSQL can type the VALUES list the expressions read. */
  types: Record<string, ColumnType>
}

/**
 * Multi-row INSERT of rows that all have the same columns; returns the requested columns of every inserted row.
 * The statement text is written here, not built through Kysely's query builder: a chunk binds tens of
 * thousands of values, and building one AST node per value and compiling them cost the batch writer as much
 * CPU as the database spent inserting. Table and column names come from code, never from input. The credential
 * tables are excluded: their writes must reach the credential cache's query-builder plugin.
 */
export async function insertRows<R extends Record<string, unknown>>(
  db: Kysely<Database>,
  table: Exclude<keyof Database, CredentialTable>,
  rows: readonly Record<string, unknown>[],
  returning: readonly string[] = [],
  options: { ignoreConflicts?: boolean; derived?: DerivedColumns } = {},
): Promise<R[]> {
  if (rows.length === 0) return []
  const columns = Object.keys(rows[0])
  if (!rows.every((row) => hasExactly(row, columns))) {
    // Rows of different columns, or an undefined value (the column's default): the query builder says that, per row.
    if (options.derived)
      throw new Error(`insertRows: rows of ${table} with derived columns must all have the same columns`)
    return insertBuiltRows<R>(db, table, rows, returning, !!options.ignoreConflicts)
  }
  const perStatement = Math.max(1, Math.floor(PARAM_BUDGET / columns.length))
  const out: R[] = []
  for (const part of slices(rows, perStatement)) {
    const params: unknown[] = []
    for (const row of part) for (const column of columns) params.push(row[column])
    const text = insertText(dialectOf(db), {
      table,
      columns,
      rows: part.length,
      returning,
      ignoreConflicts: !!options.ignoreConflicts,
      derived: options.derived,
    })
    const result = await db.executeQuery<R>(CompiledQuery.raw(text, params))
    if (returning.length) out.push(...result.rows)
  }
  return out
}

/** The row holds these columns, each with a value (null included), and no other. */
function hasExactly(row: Record<string, unknown>, columns: readonly string[]): boolean {
  let keys = 0
  for (const key in row) {
    if (row[key] === undefined) return false
    keys++
  }
  return keys === columns.length && columns.every((column) => column in row)
}

async function insertBuiltRows<R>(
  db: Kysely<Database>,
  table: string,
  rows: readonly Record<string, unknown>[],
  returning: readonly string[],
  ignoreConflicts: boolean,
): Promise<R[]> {
  const width = new Set(rows.flatMap((row) => Object.keys(row))).size
  const out: R[] = []
  for (const part of slices(rows, Math.max(1, Math.floor(PARAM_BUDGET / width)))) {
    let q = (db as Kysely<any>).insertInto(table).values(part)
    if (ignoreConflicts) q = q.onConflict((oc: any) => oc.doNothing())
    if (returning.length) out.push(...((await q.returning(returning as string[]).execute()) as R[]))
    else await q.execute()
  }
  return out
}

interface InsertShape {
  table: string
  columns: readonly string[]
  rows: number
  returning: readonly string[]
  ignoreConflicts: boolean
  derived?: DerivedColumns
}

const insertTexts = new Map<string, string>()
const PG_TYPES: Record<ColumnType, string> = { text: 'text', integer: 'integer', double: 'double precision' }
const quote = (name: string) => `"${name}"`

/**
 * The INSERT statement of a shape, written once per shape (a chunk repeats few). With derived columns the
 * rows go through `SELECT … FROM (VALUES …)`, whose columns both databases name column1, column2, ….
 */
function insertText(dialect: 'sqlite' | 'postgres', shape: InsertShape): string {
  const { table, columns, rows, returning, ignoreConflicts, derived } = shape
  const key = `${dialect}|${table}|${columns.join(',')}|${rows}|${returning.join(',')}|${ignoreConflicts}|${derived ? derived.columns.join(',') : ''}`
  let text = insertTexts.get(key)
  if (text !== undefined) return text
  let n = 0
  // The first row's types type the whole VALUES list (PostgreSQL resolves the other rows' parameters to them);
  // a cast on every parameter cost the database a third more per row.
  const placeholder = (column: string, typed: boolean) => {
    if (dialect !== 'postgres') return '?'
    const type = typed ? derived?.types[column] : undefined
    return type ? `$${++n}::${PG_TYPES[type]}` : `$${++n}`
  }
  const tuples: string[] = []
  for (let i = 0; i < rows; i++) tuples.push(`(${columns.map((column) => placeholder(column, i === 0)).join(', ')})`)
  const target = [...columns, ...(derived?.columns ?? [])].map(quote).join(', ')
  let source = `values ${tuples.join(', ')}`
  if (derived) {
    const ref = (column: string) => {
      const k = columns.indexOf(column)
      if (k < 0) throw new Error(`insertRows: a derived column reads ${table}.${column}, which is not inserted`)
      return `v.column${k + 1}`
    }
    const selected = [...columns.map((_, k) => `v.column${k + 1}`), ...derived.expressions(ref)]
    // SQLite reads `ON CONFLICT` after `SELECT … FROM …` as a join constraint unless a WHERE comes first.
    source = `select ${selected.join(', ')} from (${source}) as v where true`
  }
  text =
    `insert into ${quote(table)} (${target}) ${source}` +
    (ignoreConflicts ? ' on conflict do nothing' : '') +
    (returning.length ? ` returning ${returning.map(quote).join(', ')}` : '')
  if (insertTexts.size > 200) insertTexts.clear()
  insertTexts.set(key, text)
  return text
}

export interface RowUpdate {
  id: number
  changes: Record<string, unknown>
}

const CASTS: Record<ColumnType, RawBuilder<unknown>> = {
  text: sql.raw('text'),
  integer: sql.raw('integer'),
  double: sql.raw('double precision'),
}

/**
 * Applies different changes to many rows in one statement per slice:
 * `SET col = CASE id WHEN ? THEN CAST(? AS type) … ELSE col END`. Values are cast so
 * PostgreSQL knows their types; rows that leave a column alone keep it.
 */
export async function updateRowsById(
  db: Kysely<Database>,
  table: 'indicator' | 'intel_group',
  updates: readonly RowUpdate[],
  types: Record<string, ColumnType>,
): Promise<void> {
  const withChanges = updates.filter((u) => Object.keys(u.changes).length > 0)
  if (withChanges.length === 0) return
  if (dialectOf(db) === 'sqlite') return updateRowsOneByOne(db, table, withChanges, types)
  const columns = [...new Set(withChanges.flatMap((u) => Object.keys(u.changes)))]
  const perStatement = Math.max(1, Math.floor(PARAM_BUDGET / (columns.length * 2 + 1)))
  for (const part of slices(withChanges, perStatement)) {
    const set: Record<string, RawBuilder<unknown>> = {}
    for (const column of columns) {
      const rows = part.filter((u) => column in u.changes)
      if (rows.length === 0) continue
      const type = types[column]
      if (!type) throw new Error(`No column type for ${table}.${column}`)
      const whens = rows.map((u) => sql`when ${u.id} then cast(${u.changes[column]} as ${CASTS[type]})`)
      set[column] = sql`case ${sql.ref('id')} ${sql.join(whens, sql` `)} else ${sql.ref(column)} end`
    }
    await (db as Kysely<any>)
      .updateTable(table)
      .set(set)
      .where(
        'id',
        'in',
        part.map((u) => u.id),
      )
      .execute()
  }
}

/**
 * SQLite: one `UPDATE … WHERE id = ?` per row, its text written once per set of columns and compiled once (the
 * connection's statement cache). A rowid equality is a look-up whatever the statistics say. One statement with
 * `id IN (…)` over a chunk's rows was weighed against a scan of the table as the statistics described it, and
 * with statistics older than the table's growth SQLite scanned the whole table for every chunk; in-process calls
 * cost SQLite microseconds each, no round trip.
 */
async function updateRowsOneByOne(
  db: Kysely<Database>,
  table: 'indicator' | 'intel_group',
  updates: readonly RowUpdate[],
  types: Record<string, ColumnType>,
): Promise<void> {
  for (const u of updates) {
    const columns = Object.keys(u.changes)
    for (const column of columns) if (!types[column]) throw new Error(`No column type for ${table}.${column}`)
    const key = `${table}|${columns.join(',')}`
    let text = updateTexts.get(key)
    if (text === undefined) {
      text = `update ${quote(table)} set ${columns.map((c) => `${quote(c)} = ?`).join(', ')} where "id" = ?`
      if (updateTexts.size > 200) updateTexts.clear()
      updateTexts.set(key, text)
    }
    await db.executeQuery(CompiledQuery.raw(text, [...columns.map((c) => u.changes[c]), u.id]))
  }
}

const updateTexts = new Map<string, string>()

export interface ExistingIndicator {
  id: number
  type: string
  summary: string
  value1: string | null
  value2: string | null
  value3: string | null
  last_modified: string
  external_last_modified: string | null
  active: number
  active_locked: number
  last_sighted: string | null
  stale_since: string | null
}

const INDICATOR_KEY_COLUMNS = [
  'id',
  'type',
  'summary',
  'value1',
  'value2',
  'value3',
  'last_modified',
  'external_last_modified',
  'active',
  'active_locked',
  'last_sighted',
  'stale_since',
] as const

/** One query per type, by summary (summaryIn) and owner (lookUpOwners). */
export async function findIndicatorsBySummaries(
  db: Kysely<Database>,
  ownerId: number,
  keys: readonly { type: string; summary: string }[],
): Promise<ExistingIndicator[]> {
  const byType = new Map<string, Set<string>>()
  for (const k of keys) byType.set(k.type, (byType.get(k.type) ?? new Set()).add(k.summary))
  const out: ExistingIndicator[] = []
  for (const [type, summaries] of byType) {
    for (const part of slices([...summaries], IN_CHUNK)) {
      out.push(
        ...(await db
          .selectFrom('indicator')
          .select(INDICATOR_KEY_COLUMNS)
          .where((eb) => lookUpOwners(db, eb, 'owner_id', [ownerId]))
          .where('type', '=', type)
          .where((eb) => summaryIn(db, eb, 'summary', part))
          .execute()),
      )
    }
  }
  return out
}

/**
 * Files holding any of the hashes (value1 MD5, value2 SHA-1, value3 SHA-256). `IS NOT NULL` matches the hash
 * indexes' own predicate (migration 0130), which hold only the Files that have that hash; on PostgreSQL the hash
 * leads them and the owner is checked on the Files found (lookUpOwners).
 */
export async function findFilesByHashes(
  db: Kysely<Database>,
  ownerId: number,
  hashes: { md5: string[]; sha1: string[]; sha256: string[] },
): Promise<ExistingIndicator[]> {
  const byId = new Map<number, ExistingIndicator>()
  const lists = [
    ['value1', hashes.md5],
    ['value2', hashes.sha1],
    ['value3', hashes.sha256],
  ] as const
  const sqlite = dialectOf(db) === 'sqlite'
  for (const [column, values] of lists) {
    for (const part of slices([...new Set(values)], IN_CHUNK)) {
      const rows = sqlite
        ? await filesByHashOnSqlite(db, ownerId, column, part)
        : await db
            .selectFrom('indicator')
            .select(INDICATOR_KEY_COLUMNS)
            .where((eb) => lookUpOwners(db, eb, 'owner_id', [ownerId]))
            .where('type', '=', 'File')
            .where(column, 'in', part)
            .where(column, 'is not', null)
            .execute()
      for (const row of rows) byId.set(row.id, row)
    }
  }
  return [...byId.values()]
}

/**
 * SQLite: the hashes lead a CROSS JOIN (which SQLite never reorders) and each is one probe of the unique
 * `(owner_id, valueN)` hash index, whose every column is then an equality: one row, whatever the statistics say.
 * As `valueN IN (…)`, the plan turned with the length of the list and with the statistics: on a 100,000-Indicator
 * store loaded through the API (statistics from `analysis_limit`, which described 501 rows per owner and type where
 * the owner held 14,720 Files), a chunk's 190 hashes were looked up by reading every File of the owner through
 * `(owner_id, type, summary)`.
 */
async function filesByHashOnSqlite(
  db: Kysely<Database>,
  ownerId: number,
  column: 'value1' | 'value2' | 'value3',
  hashes: readonly string[],
): Promise<ExistingIndicator[]> {
  const columns = sql.join(INDICATOR_KEY_COLUMNS.map((c) => sql.ref(`indicator.${c}`)))
  const result = await sql<ExistingIndicator>`select ${columns}
    from json_each(${JSON.stringify(hashes)}) as h cross join ${sql.table('indicator')}
    where indicator.owner_id = ${ownerId} and indicator.type = 'File' and ${sql.ref(`indicator.${column}`)} = h.value
      and ${sql.ref(`indicator.${column}`)} is not null`.execute(db)
  return result.rows
}

/** The owner's Groups of these xids: on PostgreSQL sought by xid (migration 0272), the owner checked after. */
export async function findGroupsByXids(db: Kysely<Database>, ownerId: number, xids: readonly string[]) {
  const out: { id: number; xid: string | null; type: string; external_last_modified: string | null }[] = []
  for (const part of slices([...new Set(xids)], IN_CHUNK)) {
    out.push(
      ...(await db
        .selectFrom('intel_group')
        .select(['id', 'xid', 'type', 'external_last_modified'])
        .where((eb) => lookUpOwners(db, eb, 'owner_id', [ownerId]))
        .where('xid', 'in', part)
        .execute()),
    )
  }
  return out
}

export async function findItemIdsInOwner(
  db: Kysely<Database>,
  table: 'indicator' | 'intel_group',
  ownerId: number,
  ids: readonly number[],
) {
  const out: { id: number; type: string }[] = []
  for (const part of slices([...new Set(ids)], IN_CHUNK)) {
    out.push(
      ...(await (db as Kysely<any>)
        .selectFrom(table)
        .select(['id', 'type'])
        .where((eb) => lookUpOwners(db, eb, 'owner_id', [ownerId]))
        .where('id', 'in', part)
        .execute()),
    )
  }
  return out
}

/** The owner's tags of these names, creating the missing ones (safe against a concurrent creator). */
export async function findOrCreateTags(
  db: Kysely<Database>,
  ownerId: number,
  names: readonly string[],
  now: string,
): Promise<Map<string, number>> {
  const wanted = [...new Set(names)]
  const found = new Map<string, number>()
  const load = async (list: string[]) => {
    for (const part of slices(list, IN_CHUNK)) {
      for (const r of await db
        .selectFrom('tag')
        .select(['id', 'name'])
        .where((eb) => lookUpOwners(db, eb, 'owner_id', [ownerId]))
        .where('name', 'in', part)
        .execute())
        found.set(r.name, r.id)
    }
  }
  await load(wanted)
  const missing = wanted.filter((n) => !found.has(n))
  if (missing.length) {
    await insertRows(
      db,
      'tag',
      missing.map((name) => ({
        owner_id: ownerId,
        name,
        description: null,
        technique_id: null,
        date_added: now,
        last_used: now,
      })),
      [],
      { ignoreConflicts: true },
    )
    await load(missing)
  }
  return found
}

export async function touchTags(db: Kysely<Database>, tagIds: readonly number[], now: string) {
  for (const part of slices([...new Set(tagIds)], IN_CHUNK))
    await db.updateTable('tag').set({ last_used: now }).where('id', 'in', part).execute()
}

export async function deleteItemLinks(
  db: Kysely<Database>,
  table: 'item_tag' | 'item_security_label',
  kind: ItemKind,
  ids: readonly number[],
) {
  for (const part of slices([...new Set(ids)], IN_CHUNK))
    await db.deleteFrom(table).where('item_kind', '=', kind).where('item_id', 'in', part).execute()
}

/** The attributes the items carry, by type and value: what an import of a newer source version need not add again. */
export async function listAttributeValues(db: Kysely<Database>, kind: ItemKind, ids: readonly number[]) {
  const out: { item_id: number; type_id: number; value: string }[] = []
  for (const part of slices([...new Set(ids)], IN_CHUNK)) {
    out.push(
      ...(await db
        .selectFrom('attribute')
        .select(['item_id', 'type_id', 'value'])
        .where('item_kind', '=', kind)
        .where('item_id', 'in', part)
        .execute()),
    )
  }
  return out
}

export async function listAttributeKeys(db: Kysely<Database>, kind: ItemKind, ids: readonly number[]) {
  const out: { id: number; item_id: number; type_id: number }[] = []
  for (const part of slices([...new Set(ids)], IN_CHUNK)) {
    out.push(
      ...(await db
        .selectFrom('attribute')
        .select(['id', 'item_id', 'type_id'])
        .where('item_kind', '=', kind)
        .where('item_id', 'in', part)
        .execute()),
    )
  }
  return out
}

/** Deletes attributes and the labels on them. */
export async function deleteAttributesById(db: Kysely<Database>, ids: readonly number[]) {
  for (const part of slices([...new Set(ids)], IN_CHUNK)) {
    await db
      .deleteFrom('item_security_label')
      .where('item_kind', '=', 'attribute')
      .where('item_id', 'in', part)
      .execute()
    await db.deleteFrom('attribute').where('id', 'in', part).execute()
  }
}

/** date_added of each of the Indicators, by id. */
export async function findIndicatorDatesAdded(
  db: Kysely<Database>,
  ids: readonly number[],
): Promise<Map<number, string>> {
  const rows = await db.selectFrom('indicator').select(['id', 'date_added']).where('id', 'in', ids).execute()
  return new Map(rows.map((r) => [r.id, r.date_added]))
}

export async function deleteRowsById(db: Kysely<Database>, table: 'indicator' | 'intel_group', ids: readonly number[]) {
  if (dialectOf(db) === 'sqlite') {
    // One rowid look-up each, whatever the statistics say (updateRowsOneByOne says why).
    for (const id of new Set(ids))
      await db.executeQuery(CompiledQuery.raw(`delete from ${quote(table)} where "id" = ?`, [id]))
    return
  }
  for (const part of slices([...new Set(ids)], IN_CHUNK))
    await (db as Kysely<any>).deleteFrom(table).where('id', 'in', part).execute()
}

/**
 * Moves everything attached to the secondary Files onto the primary (attributes, tags, labels,
 * associations, occurrences, observations, actions), then deletes the secondaries.
 */
export async function mergeFilesInto(db: Kysely<Database>, primaryId: number, secondaryIds: readonly number[]) {
  if (secondaryIds.length === 0) return
  const ids = [...secondaryIds]
  await db
    .updateTable('attribute')
    .set({ item_id: primaryId })
    .where('item_kind', '=', 'indicator')
    .where('item_id', 'in', ids)
    .execute()
  for (const table of ['item_tag', 'item_security_label'] as const) {
    const rows = await (db as Kysely<any>)
      .selectFrom(table)
      .selectAll()
      .where('item_kind', '=', 'indicator')
      .where('item_id', 'in', ids)
      .execute()
    await insertRows(
      db,
      table,
      rows.map((r: Record<string, unknown>) => ({ ...r, item_id: primaryId })),
      [],
      { ignoreConflicts: true },
    )
    await db.deleteFrom(table).where('item_kind', '=', 'indicator').where('item_id', 'in', ids).execute()
  }
  const links = await db
    .selectFrom('association')
    .selectAll()
    .where('from_kind', '=', 'indicator')
    .where('from_id', 'in', ids)
    .execute()
  const moved = links.filter((l) => !(l.to_kind === 'indicator' && (l.to_id === primaryId || ids.includes(l.to_id))))
  await insertRows(
    db,
    'association',
    moved.flatMap((l) => [
      { ...l, from_id: primaryId },
      { ...l, from_kind: l.to_kind, from_id: l.to_id, to_kind: 'indicator', to_id: primaryId },
    ]),
    [],
    { ignoreConflicts: true },
  )
  await deleteAssociationsOfItems(db, 'indicator', ids)
  await db.updateTable('file_occurrence').set({ indicator_id: primaryId }).where('indicator_id', 'in', ids).execute()
  // One sighting imported on two of the merged Files is one observation of the merged File: the primary's is kept.
  await db
    .deleteFrom('indicator_observation')
    .where('indicator_id', 'in', ids)
    .where('source_ref', 'in', (eb) =>
      eb
        .selectFrom('indicator_observation as held')
        .select('held.source_ref')
        .where('held.indicator_id', '=', primaryId)
        .where('held.source_ref', 'is not', null),
    )
    .execute()
  await db
    .updateTable('indicator_observation')
    .set({ indicator_id: primaryId })
    .where('indicator_id', 'in', ids)
    .execute()
  await db.updateTable('file_action').set({ indicator_id: primaryId }).where('indicator_id', 'in', ids).execute()
  await db.deleteFrom('indicator').where('id', 'in', ids).execute()
}

/** The owner's Indicators served under these source STIX ids (migration 0139's index; PostgreSQL's is id-first, 0272). */
export function findIndicatorsByStixIds(db: Kysely<Database>, ownerId: number, stixIds: readonly string[]) {
  if (stixIds.length === 0) return Promise.resolve([])
  return db
    .selectFrom('indicator')
    .select(['id', 'stix_id', 'external_last_modified'])
    .where((eb) => lookUpOwners(db, eb, 'owner_id', [ownerId]))
    .where('stix_id', 'is not', null)
    .where('stix_id', 'in', stixIds)
    .execute()
}

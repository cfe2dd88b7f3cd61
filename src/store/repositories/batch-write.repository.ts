/**
 * Set-based reads and writes for batch jobs: one IN query per chunk to find what exists,
 * multi-row INSERTs and UPDATEs (on PostgreSQL one array a column; on SQLite a VALUES list, or one rowid UPDATE a row).
 * Statements are split so no statement binds more than PARAM_BUDGET values (SQLite allows 32,766, PostgreSQL 65,535).
 */
import { CompiledQuery, type Kysely, sql } from 'kysely'
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
  const dialect = dialectOf(db)
  const shape = { table, columns, returning, ignoreConflicts: !!options.ignoreConflicts, derived: options.derived }
  if (dialect === 'postgres') {
    const types = await columnTypesOf(db, table, columns)
    const params = columns.map((column) => rows.map((row) => scalar(row[column], table, column)))
    const result = await db.executeQuery<R>(CompiledQuery.raw(unnestText(shape, types), params))
    return returning.length ? result.rows : []
  }
  const perStatement = Math.max(1, Math.floor(PARAM_BUDGET / columns.length))
  const out: R[] = []
  for (const part of slices(rows, perStatement)) {
    const params: unknown[] = []
    for (const row of part) for (const column of columns) params.push(row[column])
    const result = await db.executeQuery<R>(CompiledQuery.raw(insertText({ ...shape, rows: part.length }), params))
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
  returning: readonly string[]
  ignoreConflicts: boolean
  derived?: DerivedColumns
}

const insertTexts = new Map<string, string>()
const quote = (name: string) => `"${name}"`

/** The statement text of a shape, written once (a chunk repeats few shapes). */
function rememberedText(key: string, write: () => string): string {
  let text = insertTexts.get(key)
  if (text !== undefined) return text
  text = write()
  if (insertTexts.size > 200) insertTexts.clear()
  insertTexts.set(key, text)
  return text
}

const shapeKey = (shape: InsertShape) =>
  `${shape.table}|${shape.columns.join(',')}|${shape.returning.join(',')}|${shape.ignoreConflicts}|${shape.derived ? shape.derived.columns.join(',') : ''}`

/**
 * `insert into t (…) select … from <source> as v(column1, column2, …)`, with the derived columns' expressions
 * read from v, and the conflict and returning clauses.
 */
function insertFrom(shape: InsertShape, source: string): string {
  const { table, columns, derived } = shape
  const ref = (column: string) => {
    const k = columns.indexOf(column)
    if (k < 0) throw new Error(`insertRows: a derived column reads ${table}.${column}, which is not inserted`)
    return `v.column${k + 1}`
  }
  const selected = [...columns.map((_, k) => `v.column${k + 1}`), ...(derived?.expressions(ref) ?? [])]
  const target = [...columns, ...(derived?.columns ?? [])].map(quote).join(', ')
  // SQLite reads `ON CONFLICT` after `SELECT … FROM …` as a join constraint unless a WHERE comes first.
  return `insert into ${quote(table)} (${target}) select ${selected.join(', ')} from ${source} where true${clauses(shape)}`
}

/** The conflict and returning clauses that end every INSERT of a shape. */
const clauses = (shape: InsertShape) =>
  (shape.ignoreConflicts ? ' on conflict do nothing' : '') +
  (shape.returning.length ? ` returning ${shape.returning.map(quote).join(', ')}` : '')

/**
 * SQLite: the rows as one VALUES list (`?` a value), read through `select … from (values …)` when columns are
 * derived (SQLite names its columns column1, column2, …); one text per number of rows.
 */
function insertText(shape: InsertShape & { rows: number }): string {
  return rememberedText(`sqlite|${shapeKey(shape)}|${shape.rows}`, () => {
    const tuple = `(${shape.columns.map(() => '?').join(', ')})`
    const values = `values ${Array(shape.rows).fill(tuple).join(', ')}`
    if (shape.derived) return insertFrom(shape, `(${values}) as v`)
    return `insert into ${quote(shape.table)} (${shape.columns.map(quote).join(', ')}) ${values}${clauses(shape)}`
  })
}

/**
 * PostgreSQL: one array parameter a column, unnested into rows, so the text and its plan are the same however
 * many rows a chunk brings. Against a multi-row VALUES list of 2,000 rows of 21 columns (42,000 parameters, each
 * parsed, planned and bound), the same rows cost the database 0.94–1.08 s a 50,000 rather than 1.65–1.89 s, and
 * the client 0.56–0.71 s rather than 0.87–0.95 s (measured in session 23).
 */
function unnestText(shape: InsertShape, types: readonly string[]): string {
  return rememberedText(`postgres|${shapeKey(shape)}`, () => {
    const arrays = types.map((type, k) => `$${k + 1}::${type}[]`).join(', ')
    const names = shape.columns.map((_, k) => `column${k + 1}`).join(', ')
    return insertFrom(shape, `unnest(${arrays}) as v(${names})`)
  })
}

/**
 * An array parameter's element: node-postgres writes a nested array as another dimension, so a value that is
 * an array would silently shift every row after it.
 */
function scalar(value: unknown, table: string, column: string): unknown {
  if (Array.isArray(value)) throw new Error(`insertRows: ${table}.${column} holds an array, which no column takes`)
  return value
}

/** PostgreSQL: each column's declared type (`integer`, `text`…), read from the catalog once per table. */
const columnTypes = new Map<string, Map<string, string>>()

async function columnTypesOf(db: Kysely<Database>, table: string, columns: readonly string[]): Promise<string[]> {
  let types = columnTypes.get(table)
  if (!types || columns.some((column) => !types!.has(column))) {
    const { rows } = await sql<{ name: string; type: string }>`select attname as name,
      format_type(atttypid, atttypmod) as type from pg_attribute
      where attrelid = cast(${table} as regclass) and attnum > 0 and not attisdropped`.execute(db)
    types = new Map(rows.map((row) => [row.name, row.type]))
    columnTypes.set(table, types)
  }
  return columns.map((column) => {
    const type = types!.get(column)
    if (!type) throw new Error(`insertRows: ${table} has no column ${column}`)
    return type
  })
}

export interface RowUpdate {
  id: number
  changes: Record<string, unknown>
}

/** Columns an UPDATE computes from the row as it becomes, in the same statement, when it changes any of `inputs`. */
export interface DerivedOnUpdate extends DerivedColumns {
  inputs: readonly string[]
}

/**
 * Applies different changes to many rows: rows changing the same columns in one statement, on PostgreSQL
 * `update t set col = v.column2 … from unnest($1::integer[], $2::…[], …) as v(…) where t.id = v.column1` (one
 * array a column, as insertRows binds them), on SQLite one rowid UPDATE a row. `derived` columns are set from
 * the new values (and the row's other columns) by the same statement on PostgreSQL, by a second rowid UPDATE on
 * SQLite: a second UPDATE of a chunk's rows had cost PostgreSQL a second version of each row and its index entries.
 */
export async function updateRowsById(
  db: Kysely<Database>,
  table: 'indicator' | 'intel_group',
  updates: readonly RowUpdate[],
  types: Record<string, ColumnType>,
  options: { derived?: DerivedOnUpdate } = {},
): Promise<void> {
  const withChanges = updates.filter((u) => Object.keys(u.changes).length > 0)
  if (withChanges.length === 0) return
  for (const u of withChanges)
    for (const column in u.changes) if (!types[column]) throw new Error(`No column type for ${table}.${column}`)
  const derives = (columns: readonly string[]) =>
    options.derived && columns.some((column) => options.derived!.inputs.includes(column)) ? options.derived : undefined
  if (dialectOf(db) === 'sqlite') {
    await updateRowsOneByOne(db, table, withChanges)
    if (options.derived) {
      const rescored = withChanges.filter((u) => derives(Object.keys(u.changes))).map((u) => u.id)
      await deriveRowsById(db, table, options.derived, rescored)
    }
    return
  }
  const bySet = new Map<string, RowUpdate[]>()
  for (const u of withChanges) {
    const key = Object.keys(u.changes).sort().join(',')
    const rows = bySet.get(key)
    if (rows) rows.push(u)
    else bySet.set(key, [u])
  }
  for (const [key, rows] of bySet) {
    const columns = key.split(',')
    const pgTypes = await columnTypesOf(db, table, ['id', ...columns])
    const params = [
      rows.map((u) => u.id),
      ...columns.map((column) => rows.map((u) => scalar(u.changes[column], table, column))),
    ]
    await db.executeQuery(CompiledQuery.raw(unnestUpdateText(table, columns, pgTypes, derives(columns)), params))
  }
}

function unnestUpdateText(
  table: string,
  columns: readonly string[],
  types: readonly string[],
  derived: DerivedOnUpdate | undefined,
): string {
  return rememberedText(`postgres|update|${table}|${columns.join(',')}|${derived?.columns.join(',') ?? ''}`, () => {
    // A column the statement changes is read as its new value; any other as the row holds it.
    const ref = (column: string) => {
      const k = columns.indexOf(column)
      return k < 0 ? `t.${quote(column)}` : `v.column${k + 2}`
    }
    const set = [
      ...columns.map((column, k) => `${quote(column)} = v.column${k + 2}`),
      ...(derived?.expressions(ref).map((expression, k) => `${quote(derived.columns[k])} = ${expression}`) ?? []),
    ]
    const arrays = types.map((type, k) => `$${k + 1}::${type}[]`).join(', ')
    const names = types.map((_, k) => `column${k + 1}`).join(', ')
    return `update ${quote(table)} as t set ${set.join(', ')} from unnest(${arrays}) as v(${names}) where t."id" = v.column1`
  })
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
): Promise<void> {
  for (const u of updates) {
    const columns = Object.keys(u.changes)
    const text = rememberedText(
      `sqlite|update|${table}|${columns.join(',')}`,
      () => `update ${quote(table)} set ${columns.map((c) => `${quote(c)} = ?`).join(', ')} where "id" = ?`,
    )
    await db.executeQuery(CompiledQuery.raw(text, [...columns.map((c) => u.changes[c]), u.id]))
  }
}

/**
 * Sets the derived columns of the rows from what each row now holds: on SQLite one rowid UPDATE a row (as
 * updateRowsOneByOne, for the same reason), on PostgreSQL one `where "id" = any($1)` over an array of the ids.
 */
export async function deriveRowsById(
  db: Kysely<Database>,
  table: 'indicator' | 'intel_group',
  derived: DerivedColumns,
  ids: readonly number[],
): Promise<void> {
  if (ids.length === 0) return
  const dialect = dialectOf(db)
  const [idType] = dialect === 'postgres' ? await columnTypesOf(db, table, ['id']) : []
  const text = rememberedText(`${dialect}|derive|${table}|${derived.columns.join(',')}`, () => {
    const set = derived.expressions(quote).map((expression, k) => `${quote(derived.columns[k])} = ${expression}`)
    const which = dialect === 'postgres' ? `= any($1::${idType}[])` : '= ?'
    return `update ${quote(table)} set ${set.join(', ')} where "id" ${which}`
  })
  if (dialect === 'postgres') await db.executeQuery(CompiledQuery.raw(text, [ids]))
  else for (const id of ids) await db.executeQuery(CompiledQuery.raw(text, [id]))
}

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

/** PostgreSQL: `count` new Indicator ids from the table's sequence, ascending. */
export async function drawIndicatorIds(db: Kysely<Database>, count: number): Promise<number[]> {
  const { rows } = await sql<{ id: number }>`select nextval(pg_get_serial_sequence('indicator', 'id')) as id
    from generate_series(1, ${count})`.execute(db)
  return rows.map((row) => Number(row.id)).sort((a, b) => a - b)
}

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

/** How stale a tag's last_used may be before a bulk write renews it. */
export const TAG_USE_RESOLUTION_MS = 60_000

/**
 * Stamps the tags' last_used, unless they were used within the last TAG_USE_RESOLUTION_MS. A job applies the same
 * tags in every chunk; renewing them each time wrote a new version of every tag row a chunk, and on PostgreSQL
 * the row locks made concurrent jobs of one owner wait for each other's commit. Rows the condition leaves out are
 * neither written nor locked.
 */
export async function touchTags(db: Kysely<Database>, tagIds: readonly number[], now: string) {
  const stale = new Date(Date.parse(now) - TAG_USE_RESOLUTION_MS).toISOString()
  for (const part of slices([...new Set(tagIds)], IN_CHUNK))
    await db
      .updateTable('tag')
      .set({ last_used: now })
      .where('id', 'in', part)
      .where((eb) => eb.or([eb('last_used', 'is', null), eb('last_used', '<', stale)]))
      .execute()
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

/**
 * Indicator rows: look-ups by id, summary and File hash, writes, and the one list query
 * every interface shares. Conditions arrive already validated (domain/indicators/filters.ts
 * names the columns); values are always bound, never spliced into SQL.
 */
import { type Insertable, type Kysely, type SelectQueryBuilder, type SqlBool, type Updateable, sql } from 'kysely'
import { INDICATOR } from '../../model/indicator.js'
import type { KindDeclaration } from '../../model/field.js'
import type { ItemKind } from '../../model/kinds.js'
import { type DerivedColumns, type DerivedOnUpdate, deriveRowsById } from './batch-write.repository.js'
import {
  type TallyComparison,
  type TallyComparisons,
  type TallyCondition,
  countIndicatorsAddedByTally,
  countIndicatorsByTally,
} from './indicator-tally.repository.js'
import type { Database, IndicatorTable, Row } from '../database.js'
import {
  type ColumnCondition,
  columnCondition,
  dialectOf,
  lookUpOwners,
  lowerPrefix,
  ownerFilter,
  summaryIn,
  unindexedInteger,
  unindexedText,
} from '../engine/list-conditions.js'
import type { Store } from '../connect.js'
import { findRowsByIds } from '../engine/rows-by-id.js'

export type IndicatorRow = Row<'indicator'> & { owner_name: string; owner_type: string }
export type IndicatorValues = Insertable<IndicatorTable>
export type IndicatorChanges = Updateable<IndicatorTable>

/** Columns a list condition may touch. */
export type IndicatorColumn =
  | 'active'
  | 'summary'
  | 'last_modified'
  | 'date_added'
  | 'rating'
  | 'confidence'
  | 'threat_assess_score'
  | 'threat_assess_rating'
  | 'threat_assess_confidence'
  | 'false_positive_count'
  | 'address_city'
  | 'address_country_code'
  | 'address_country_name'
  | 'address_organization'
  | 'address_state'
  | 'address_timezone'
  | 'address_asn'
  | 'whois_active'
  | 'dns_active'

export type IndicatorCondition = ColumnCondition<IndicatorColumn>

export interface IndicatorAssociationScope {
  kind: ItemKind
  id: number
  /** 'group': Indicators sharing a Group with the item, not associated with it directly. */
  via?: 'group'
  associationTypeId: number
}

export interface IndicatorListSpec {
  ownerIds: readonly number[]
  type?: string
  conditions: readonly IndicatorCondition[]
  /** orParams: any condition may match instead of all. */
  any: boolean
  activeOnly: boolean
  modifiedSince?: string
  association?: IndicatorAssociationScope
  /** Targets of a File action: `{ fileId, action }`. */
  fileAction?: { fileId: number; action: string }
  ids?: readonly number[]
  offset: number
  limit: number
}

type IndicatorQuery = SelectQueryBuilder<Database, 'indicator' | 'owner', {}>

function selectIndicators(db: Kysely<Database>) {
  return db
    .selectFrom('indicator')
    .innerJoin('owner', 'owner.id', 'indicator.owner_id')
    .selectAll('indicator')
    .select(['owner.name as owner_name', 'owner.type as owner_type'])
}

export function findIndicatorRow(db: Kysely<Database>, id: number): Promise<IndicatorRow | undefined> {
  return selectIndicators(db).where('indicator.id', '=', id).executeTakeFirst()
}

/**
 * Indicators by id in any owner, without their owners' names: the caller of a load by ids already
 * holds the owners it may read (its memberships) and drops the rest.
 */
export function findIndicatorRowsByIds(store: Store, ids: readonly number[]): Promise<Row<'indicator'>[]> {
  return findRowsByIds(store, 'indicator', ids)
}

export function findIndicatorRowBySummary(
  db: Kysely<Database>,
  ownerIds: readonly number[],
  type: string,
  summary: string,
): Promise<IndicatorRow[]> {
  if (ownerIds.length === 0) return Promise.resolve([])
  return selectIndicators(db)
    .where((eb) => lookUpOwners(db, eb, 'indicator.owner_id', ownerIds))
    .where('indicator.type', '=', type)
    .where((eb) => summaryIn(db, eb, 'indicator.summary', [summary]))
    .orderBy('indicator.owner_id')
    .execute()
}

/**
 * Files in the owners holding any of the given hashes (value1 MD5, value2 SHA-1, value3 SHA-256): one
 * statement per hash, each matching one hash index (migration 0130) and nothing else. The three as one
 * `value1 = ? OR value2 = ? OR …` left SQLite a choice it made wrong: every row of the owners, by owner.
 */
export async function findFileRowsByHashes(
  db: Kysely<Database>,
  ownerIds: readonly number[],
  hashes: readonly (string | null)[],
): Promise<IndicatorRow[]> {
  if (ownerIds.length === 0) return []
  const byId = new Map<number, IndicatorRow>()
  for (const [k, column] of (['value1', 'value2', 'value3'] as const).entries()) {
    const hash = hashes[k]
    if (!hash) continue
    const rows = await selectIndicators(db)
      .where((eb) => lookUpOwners(db, eb, 'indicator.owner_id', ownerIds))
      .where('indicator.type', '=', 'File')
      .where(`indicator.${column}`, '=', hash)
      .where(`indicator.${column}`, 'is not', null)
      .execute()
    for (const row of rows) byId.set(row.id, row)
  }
  return [...byId.values()].sort((a, b) => a.owner_id - b.owner_id || a.id - b.id)
}

function associatedIds(db: Kysely<Database>, scope: IndicatorAssociationScope) {
  if (scope.via !== 'group') {
    return db
      .selectFrom('association')
      .select('to_id')
      .where('from_kind', '=', scope.kind)
      .where('from_id', '=', scope.id)
      .where('to_kind', '=', 'indicator')
      .where('association_type_id', '=', scope.associationTypeId)
  }
  return db
    .selectFrom('association as a1')
    .innerJoin('association as a2', (join) =>
      join.on('a2.from_kind', '=', 'group').onRef('a2.from_id', '=', 'a1.to_id'),
    )
    .select('a2.to_id')
    .where('a1.from_kind', '=', scope.kind)
    .where('a1.from_id', '=', scope.id)
    .where('a1.to_kind', '=', 'group')
    .where('a1.association_type_id', '=', 0)
    .where('a2.to_kind', '=', 'indicator')
    .where('a2.association_type_id', '=', 0)
}

/** Whether a summary (equal, or a prefix) that every row must match names the list's rows. */
function namedBySummary(spec: IndicatorListSpec): boolean {
  return (
    (!spec.any || spec.conditions.length === 1) &&
    spec.conditions.some((c) => c.column === 'summary' && (c.op === '=' || (c.op === '^' && String(c.value) !== '')))
  )
}

/**
 * The list's conditions. For a page (`page`), the type and the active flag only filter the owner's rows read in
 * id order through `(owner_id, id)`: as plain columns, a planner whose statistics (or their absence) made a type
 * look rare read every Indicator of the owner and type through `(owner_id, type, summary)` and sorted them all
 * for each page (seen on SQLite with stale statistics; 240,000 Hosts at a million). A summary (equal, or a prefix)
 * that every row must match names the rows: then the owners, the type and the flag only filter what its index
 * finds, in a page and in a count, where without statistics SQLite read the owner's every row by owner.
 */
function applyListSpec(
  db: Kysely<Database>,
  query: IndicatorQuery,
  spec: IndicatorListSpec,
  forPage = false,
): IndicatorQuery {
  const bySummary = namedBySummary(spec)
  // Rows the conditions name through a partial index (migration 0273): type and flag only check what it holds.
  const page = forPage || bySummary || geolocated(spec)
  let q = query.where((eb) =>
    ownerFilter(db, eb, 'indicator.owner_id', spec.ownerIds, spec.ids !== undefined || bySummary),
  )
  const dialect = dialectOf(db)
  if (spec.type)
    q = q.where(page ? unindexedText(dialect, 'indicator.type') : sql.ref('indicator.type'), '=', spec.type)
  if (spec.ids) q = spec.ids.length ? q.where('indicator.id', 'in', spec.ids) : q.where(sql<boolean>`1 = 0`)
  // PostgreSQL has no index that holds the flag where a seek could use it, and as an expression it is estimated to
  // keep 1 row in 200: a page of `threatAssessScore>500` was then planned as a parallel scan (20 ms, not 0.4).
  if (spec.activeOnly)
    q = q.where(
      page && dialect === 'sqlite' ? unindexedInteger(dialect, 'indicator.active') : sql.ref('indicator.active'),
      '=',
      1,
    )
  if (spec.modifiedSince) q = q.where('indicator.last_modified', '>=', spec.modifiedSince)
  if (spec.conditions.length) {
    q = q.where((eb) => {
      const parts = spec.conditions.map((c) => {
        const condition = columnCondition(eb, `indicator.${c.column}`, c)
        // The table keeps no index on summary itself (migration 0141): an equal summary has an equal lower(summary),
        // and a prefix a prefix of it, which the lower(summary) index finds, whatever the owners and the type.
        if (c.column === 'summary' && c.op === '=')
          return eb.and([
            eb(eb.fn('lower', [eb.ref('indicator.summary')]), '=', eb.fn('lower', [eb.val(c.value)])),
            condition,
          ])
        if (c.column === 'summary' && c.op === '^' && String(c.value) !== '')
          return eb.and([lowerPrefix(dialect, 'indicator.summary', String(c.value)), condition])
        // A comparison 0 fails is read through the column's partial index (its own predicate, said outright).
        if (offZeroOnly(c)) return eb.and([offZero(c.column), condition])
        return condition
      })
      return spec.any ? eb.or(parts) : eb.and(parts)
    })
  }
  if (spec.association) {
    const ids = associatedIds(db, spec.association)
    q = q.where('indicator.id', 'in', ids)
    if (spec.association.kind === 'indicator') q = q.where('indicator.id', '!=', spec.association.id)
  }
  if (spec.fileAction) {
    const { fileId, action } = spec.fileAction
    q = q.where(
      'indicator.id',
      'in',
      db
        .selectFrom('file_action')
        .select('target_indicator_id')
        .where('indicator_id', '=', fileId)
        .where('action', '=', action),
    )
  }
  return q
}

/** One page of Indicators and the total that match, in id order (stable across pages). */
export async function listIndicatorRows(
  db: Kysely<Database>,
  spec: IndicatorListSpec,
): Promise<{ rows: IndicatorRow[]; total: number }> {
  if (spec.ownerIds.length === 0) return { rows: [], total: 0 }
  // Rows named by their summary are read first and their owners joined to them: as an inner join, SQLite read the
  // owner table first and, for each owner, its Indicators by owner through the join's equality.
  const base = (): IndicatorQuery =>
    namedBySummary(spec)
      ? db
          .selectFrom('indicator')
          .crossJoin('owner')
          .where((eb) => eb('owner.id', '=', eb.ref('indicator.owner_id')))
      : db.selectFrom('indicator').innerJoin('owner', 'owner.id', 'indicator.owner_id')
  let page = applyListSpec(db, base(), spec, true)
    .selectAll('indicator')
    .select(['owner.name as owner_name', 'owner.type as owner_type'])
  // One owner's window of dateAdded comes in that order: `indicator_owner_added (owner_id, date_added, id)` gives the
  // window's rows sorted, and the page stops after its last. In id order, a planner chose between reading the owner's
  // rows from the first id until the window's (the newest, at the far end, for "added since yesterday") and sorting
  // the whole window, and chose by its statistics.
  if (spec.ownerIds.length === 1 && addedWindow(spec)) page = page.orderBy('indicator.date_added')
  // Rows a sparse column's partial index holds (migration 0273) are few: read through it and sorted. In id order,
  // the owner's (owner_id, id) index gives the order, and SQLite without statistics took it, reading every row.
  const order = inPartialIndex(spec) ? sql`${sql.ref('indicator.id')} + 0` : sql.ref('indicator.id')
  const [rows, count] = await Promise.all([
    page.orderBy(order).limit(spec.limit).offset(spec.offset).execute(),
    countIndicatorList(db, spec, () =>
      applyListSpec(db, base(), spec)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirst()
        .then((row) => Number(row?.n ?? 0)),
    ),
  ])
  return { rows, total: count }
}

/**
 * A list's `resultCount` from the tallies the database keeps, where they answer it: narrowed only by owner, type,
 * the active flag and comparisons of one tallied column, all of them to hold: the rating (migrations 0125, 0136),
 * the confidence (0271), the ThreatAssess score (0273), or the ThreatAssess rating and confidence (the rating and
 * confidence with none as 0). A sum over a few tally rows where counting the owner's rows that match `rating > 2`
 * read every one of them. A column nearly always 0 (SPARSE_COLUMNS) counts its few other rows and takes the rest
 * from the tally; a window of `dateAdded` sums the day tally's whole days and counts the rows of its boundary days
 * (0146, 0147). Anything else counts the rows (`countRows`).
 */
function countIndicatorList(db: Kysely<Database>, spec: IndicatorListSpec, countRows: () => Promise<number>) {
  const plain = !spec.modifiedSince && !spec.association && !spec.fileAction && !spec.ids
  if (!plain || (spec.any && spec.conditions.length > 1)) return countRows()
  const { activeIs, conditions } = activeFlag(spec.conditions)
  if (activeIs === null) return countRows()
  const scope = { ...spec, activeIs, conditions }
  if (conditions.length === 0) return countIndicatorsByTally(db, scope)
  const compare = talliedComparisons(conditions)
  if (compare) return countIndicatorsByTally(db, { ...scope, compare })
  const sparse = sparseComparisons(conditions)
  if (sparse) return countSparse(db, scope, sparse)
  const window = addedWindow(scope)
  if (window && activeIs === undefined) return countIndicatorsAddedByTally(db, { ...spec, ...window })
  return countRows()
}

/**
 * The `active` filter's conditions taken out of the list as the flag they ask for, which every tally is keyed by;
 * null when they ask for both or compare otherwise (the filter only takes `=`).
 */
function activeFlag(all: readonly IndicatorCondition[]): {
  activeIs: number | null | undefined
  conditions: IndicatorCondition[]
} {
  let activeIs: number | null | undefined
  const conditions: IndicatorCondition[] = []
  for (const c of all) {
    if (c.column !== 'active') conditions.push(c)
    else if (c.op !== '=' || (c.value !== 0 && c.value !== 1) || (activeIs !== undefined && activeIs !== c.value))
      activeIs = null
    else activeIs = c.value
  }
  return { activeIs, conditions }
}

/** The list's conditions as one window of date_added (the latest `>` and the earliest `<`, all to hold), or undefined. */
function addedWindow(
  spec: Pick<IndicatorListSpec, 'conditions' | 'any'>,
): { after?: string; before?: string } | undefined {
  if (spec.conditions.length === 0 || (spec.any && spec.conditions.length > 1)) return undefined
  let after: string | undefined
  let before: string | undefined
  for (const c of spec.conditions) {
    if (c.column !== 'date_added' || typeof c.value !== 'string') return undefined
    if (c.op === '>') after = after === undefined || c.value > after ? c.value : after
    else if (c.op === '<') before = before === undefined || c.value < before ? c.value : before
    else return undefined
  }
  return { after, before }
}

/** The comparisons the v2 filters make of a tallied column: `<>` would match the Indicators without a value too. */
const TALLIED_OPS = new Set(['=', '<', '>'])

/** The tally that answers comparisons of each column, and how it holds an Indicator without a value. */
const TALLIED: Partial<Record<IndicatorColumn, Omit<TallyComparisons, 'conditions'>>> = {
  rating: { column: 'rating' },
  confidence: { column: 'confidence' },
  threat_assess_score: { column: 'score' },
  // COALESCE(rating, 0) and COALESCE(confidence, 0) (threatAssessment, below), kept with them in the same statement.
  threat_assess_rating: { column: 'rating', noneAs: 0 },
  threat_assess_confidence: { column: 'confidence', noneAs: 0 },
}

interface NumericComparisons {
  column: IndicatorColumn
  conditions: TallyCondition[]
}

/** The conditions as comparisons of one numeric column, or undefined when any is something else. */
function numericComparisons(
  conditions: readonly IndicatorCondition[],
  accepts: (column: IndicatorColumn) => boolean,
): NumericComparisons | undefined {
  const column = conditions[0]?.column
  if (column === undefined || !accepts(column)) return undefined
  const compared: TallyCondition[] = []
  for (const c of conditions) {
    const value = typeof c.value === 'number' ? c.value : Number(c.value)
    if (c.column !== column || !TALLIED_OPS.has(c.op) || String(c.value).trim() === '' || !Number.isFinite(value))
      return undefined
    compared.push({ op: c.op as TallyComparison, value })
  }
  return { column, conditions: compared }
}

/** The list's conditions as comparisons of one tallied column, or undefined when any is something else. */
function talliedComparisons(conditions: readonly IndicatorCondition[]): TallyComparisons | undefined {
  const found = numericComparisons(conditions, (column) => TALLIED[column] !== undefined)
  return found && { ...TALLIED[found.column]!, conditions: found.conditions }
}

/**
 * The Address data (the fields model/indicator.ts keeps under the record's `address`): NULL unless something set it,
 * and every Address with any is in a partial index (migration 0273, which names the same columns).
 */
const GEOLOCATION: ReadonlySet<string> = new Set(
  (INDICATOR as KindDeclaration).fields.flatMap((f) =>
    f.column && typeof f.record === 'string' && f.record.startsWith('address.') ? [f.column] : [],
  ),
)

/** Conditions that all compare Address data for equality, which implies the data is there. */
const geolocated = (spec: Pick<IndicatorListSpec, 'conditions' | 'any'>) =>
  spec.conditions.length > 0 &&
  (!spec.any || spec.conditions.length === 1) &&
  spec.conditions.every((c) => GEOLOCATION.has(c.column) && c.op === '=')

/**
 * Columns nearly every Indicator holds 0 in, whose other rows a partial index of (owner_id, column, type, active)
 * holds (migration 0273): false positives are reported, and DNS and WHOIS tracking switched on, one at a time.
 */
const SPARSE_COLUMNS: ReadonlySet<IndicatorColumn> = new Set(['false_positive_count', 'dns_active', 'whois_active'])

/** The predicate of the column's partial index, as its own text: SQLite uses a partial index only for that text. */
const offZero = (column: IndicatorColumn) => sql<SqlBool>`${sql.ref(`indicator.${column}`)} <> 0`

function sparseComparisons(conditions: readonly IndicatorCondition[]) {
  return numericComparisons(conditions, (column) => SPARSE_COLUMNS.has(column))
}

const holds = (value: number, c: TallyCondition) =>
  c.op === '=' ? value === c.value : c.op === '<' ? value < c.value : value > c.value

/** A sparse column compared so that 0 fails: only rows of its partial index can match. */
const offZeroOnly = (c: IndicatorCondition) =>
  SPARSE_COLUMNS.has(c.column) && TALLIED_OPS.has(c.op) && !holds(0, c as TallyCondition)

/** Whether the list's rows all lie in the partial index of a sparse column (migration 0273). */
const inPartialIndex = (spec: IndicatorListSpec) =>
  (!spec.any || spec.conditions.length === 1) && spec.conditions.some(offZeroOnly)

/**
 * Counts a sparse column's comparisons: the matching rows among those off 0, read through the partial index, and,
 * when 0 matches too, the owners' total from the tally less the rows off 0.
 */
async function countSparse(
  db: Kysely<Database>,
  scope: IndicatorListSpec & { activeIs?: number },
  sparse: NumericComparisons,
): Promise<number> {
  const dialect = dialectOf(db)
  const ref = `indicator.${sparse.column}`
  let offZeroRows = db
    .selectFrom('indicator')
    .select((eb) => [
      eb.fn.countAll<number>().as('rows'),
      sql<number>`coalesce(sum(case when ${eb.and(sparse.conditions.map((c) => eb(sql.ref(ref), c.op, c.value)))} then 1 else 0 end), 0)`.as(
        'matching',
      ),
    ])
    .where((eb) => ownerFilter(db, eb, 'indicator.owner_id', scope.ownerIds, false))
    .where(offZero(sparse.column))
  // Type and flag only check the rows found, so the partial index is the one way in.
  if (scope.type) offZeroRows = offZeroRows.where(unindexedText(dialect, 'indicator.type'), '=', scope.type)
  if (scope.activeOnly) offZeroRows = offZeroRows.where(unindexedInteger(dialect, 'indicator.active'), '=', 1)
  if (scope.activeIs !== undefined)
    offZeroRows = offZeroRows.where(unindexedInteger(dialect, 'indicator.active'), '=', scope.activeIs)
  const zeroMatches = sparse.conditions.every((c) => holds(0, c))
  const [row, total] = await Promise.all([
    offZeroRows.executeTakeFirstOrThrow(),
    zeroMatches ? countIndicatorsByTally(db, scope) : 0,
  ])
  return Number(row.matching) + (zeroMatches ? total - Number(row.rows) : 0)
}

/**
 * Recomputes the stored ThreatAssess figures of these Indicators from their rating, confidence,
 * observations and false positives (docs/decisions.md, "ThreatAssess"). Run after any of those change,
 * as its own statement: inside the statement that changes them, SET would read the old values.
 *   rating/confidence: the Indicator's own (0 when unset)
 *   observed        = 2 per observation, at most 200
 *   falsePositive   = 50 per false positive, at most 500
 *   score           = rating/5 × confidence/100 × 800 (confidence 50 when unset) + observed − falsePositive,
 *                     rounded half away from zero (as numeric: PostgreSQL rounds doubles half to even) and
 *                     kept within 0..1000
 */
export function refreshThreatAssessment(db: Kysely<Database>, ids: readonly number[]): Promise<void> {
  return deriveRowsById(db, 'indicator', THREAT_ASSESSED_ON_UPDATE, ids)
}

type ThreatAssessColumn =
  | 'threat_assess_rating'
  | 'threat_assess_confidence'
  | 'threat_assess_score_observed'
  | 'threat_assess_score_false_positive'
  | 'threat_assess_score'

/** The formula above as SQL text per ThreatAssess column, over the given column references. */
function threatAssessment(
  ref: (column: 'rating' | 'confidence' | 'observation_count' | 'false_positive_count') => string,
): Record<ThreatAssessColumn, string> {
  const observed = `CASE WHEN ${ref('observation_count')} >= 100 THEN 200 ELSE ${ref('observation_count')} * 2 END`
  const falsePositive = `CASE WHEN ${ref('false_positive_count')} >= 10 THEN 500 ELSE ${ref('false_positive_count')} * 50 END`
  const raw = `(COALESCE(${ref('rating')}, 0) * COALESCE(${ref('confidence')}, 50) * 1.6 + ${observed} - ${falsePositive})`
  return {
    threat_assess_rating: `COALESCE(${ref('rating')}, 0)`,
    threat_assess_confidence: `COALESCE(${ref('confidence')}, 0)`,
    threat_assess_score_observed: observed,
    threat_assess_score_false_positive: falsePositive,
    threat_assess_score: `CAST(CASE WHEN ${raw} < 0 THEN 0 WHEN ${raw} > 1000 THEN 1000 ELSE round(CAST(${raw} AS NUMERIC)) END AS INTEGER)`,
  }
}

// No observations or false positives yet: those columns start at 0.
const threatAssessedNew = (ref: (column: string) => string) =>
  threatAssessment((column) => (column === 'rating' || column === 'confidence' ? ref(column) : '0'))

/**
 * New Indicators get their ThreatAssess figures in the INSERT itself (no observations or false positives yet),
 * from the same formula: an UPDATE of every row just inserted cost the batch writer a tenth of its time, and on
 * PostgreSQL a second version of each row and its index entries.
 */
export const THREAT_ASSESSED_ON_INSERT: DerivedColumns = {
  columns: Object.keys(threatAssessedNew((column) => column)),
  expressions: (ref) => Object.values(threatAssessedNew(ref)),
}

/** The columns the ThreatAssess figures are computed from (docs/decisions.md). */
const THREAT_ASSESS_INPUTS = ['rating', 'confidence', 'observation_count', 'false_positive_count']

/** The same figures set by the UPDATE that changes one of their inputs (updateRowsById). */
export const THREAT_ASSESSED_ON_UPDATE: DerivedOnUpdate = {
  inputs: THREAT_ASSESS_INPUTS,
  columns: Object.keys(threatAssessment((column) => column)),
  expressions: (ref) => Object.values(threatAssessment(ref)),
}

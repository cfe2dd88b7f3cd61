/**
 * The one Indicator row writer: the API (one Indicator) and the batch writer (a chunk) insert
 * and update Indicator rows here, set-based, so a new Indicator's defaults (active, not
 * private, no flags) and the columns an update may touch are decided once. Which row to
 * write — File hash merging, one copy per owner — is the callers' (indicators.ts, batch);
 * permissions too. Call inside a transaction for more than one row.
 */
import type { FieldDeclaration, KindDeclaration } from '../../model/field.js'
import { INDICATOR } from '../../model/indicator.js'
import type { IndicatorTypeDef } from '../../model/indicator-types.js'
import { composeSummary } from '../../model/indicator-types.js'
import { type ColumnType, insertRows, updateRowsById } from '../../store/repositories/batch-write.repository.js'
import { THREAT_ASSESSED_ON_INSERT, THREAT_ASSESSED_ON_UPDATE } from '../../store/repositories/indicator.repository.js'
import type { IndicatorChanges } from '../../store/repositories/indicator.repository.js'
import type { RequestContext } from '../context.js'

const COLUMN_TYPE_OF: Record<FieldDeclaration['type'], ColumnType | undefined> = {
  text: 'text',
  date: 'text',
  decimal: 'double',
  integer: 'integer',
  boolean: 'integer',
  user: 'integer',
  object: undefined,
}

/** The declared fields a body may change (model/indicator.ts), each with its column. */
const CHANGEABLE = (INDICATOR as KindDeclaration).fields.filter(
  (f): f is FieldDeclaration & { column: string } => !!f.column && (f.write ?? 'always') === 'always',
)

/**
 * Every Indicator column a write may set, with the type the set-based UPDATE casts its values to:
 * the identifying values (a File gains hashes on update), the declared changeable columns, the stamp.
 */
export const INDICATOR_COLUMN_TYPES: Record<string, ColumnType> = {
  summary: 'text',
  value1: 'text',
  value2: 'text',
  value3: 'text',
  ...Object.fromEntries(CHANGEABLE.map((f) => [f.column, COLUMN_TYPE_OF[f.type]!])),
  stale_since: 'text',
  stix_id: 'text',
  last_modified: 'text',
}

const defaultOf = (f: FieldDeclaration) =>
  f.default === undefined ? 'null' : JSON.stringify(typeof f.default === 'boolean' ? +f.default : f.default)

/**
 * A new Indicator's row, one object literal compiled once from the declaration (a batch makes
 * thousands): each changeable column as given, else its declared default (active, not private…).
 */
const newIndicatorRow: (ctx: RequestContext, n: NewIndicator, summary: string) => Record<string, unknown> =
  new Function(
    'ctx',
    'n',
    'summary',
    `const c = n.changes
  return { owner_id: ctx.owner.id, type: n.def.name, summary, value1: n.values[0] ?? null, value2: n.values[1] ?? null, value3: n.values[2] ?? null,
    ${CHANGEABLE.map((f) => `${JSON.stringify(f.column)}: c[${JSON.stringify(f.column)}] ?? ${defaultOf(f)}`).join(', ')},
    stix_id: n.stixId ?? null, created_by: ctx.caller.account.id, date_added: ctx.now, last_modified: ctx.now }`,
  ) as never

/** The columns of a new row, in its order (bench/batch-raw.ts inserts the same). */
export const NEW_INDICATOR_COLUMNS: readonly string[] = [
  'owner_id',
  'type',
  'summary',
  'value1',
  'value2',
  'value3',
  ...CHANGEABLE.map((f) => f.column),
  'stix_id',
  'created_by',
  'date_added',
  'last_modified',
]

export interface NewIndicator {
  def: IndicatorTypeDef
  /** The identifying values (value1…value3), normalized. */
  values: readonly (string | null)[]
  changes: IndicatorChanges
  /** The source STIX id it is served under (an import's, migration 0139), written with the row. */
  stixId?: string
  /** An id drawn from the table's sequence beforehand (drawIndicatorIds), when the rows go in out of order. */
  id?: number
}

/**
 * Inserts new Indicators in ctx.owner; returns their ids by `type|summary`. With
 * `skipExisting`, one whose key another write took meanwhile is left out instead of failing.
 */
export async function insertIndicators(
  ctx: RequestContext,
  indicators: readonly NewIndicator[],
  options: { skipExisting?: boolean } = {},
): Promise<Map<string, number>> {
  const rows = await insertRows<{ id: number; type: string; summary: string }>(
    ctx.store.db,
    'indicator',
    indicators.map((n) => {
      const row = newIndicatorRow(ctx, n, composeSummary(n.def, [...n.values]))
      return n.id === undefined ? row : { id: n.id, ...row }
    }),
    ['id', 'type', 'summary'],
    { ignoreConflicts: options.skipExisting, derived: THREAT_ASSESSED_ON_INSERT },
  )
  return new Map(rows.map((r) => [`${r.type}|${r.summary}`, r.id]))
}

/** Applies column changes to existing Indicators, stamping last_modified. */
export async function updateIndicators(
  ctx: RequestContext,
  updates: readonly { id: number; changes: Record<string, unknown> }[],
): Promise<void> {
  await updateRowsById(
    ctx.store.db,
    'indicator',
    // Whoever sets the active flag decides it: an Indicator the lifecycle made stale is no longer marked so.
    updates.map((u) => ({
      id: u.id,
      changes: { ...u.changes, ...('active' in u.changes ? { stale_since: null } : {}), last_modified: ctx.now },
    })),
    INDICATOR_COLUMN_TYPES,
    { derived: THREAT_ASSESSED_ON_UPDATE },
  )
}

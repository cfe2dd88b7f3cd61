/**
 * The one Indicator row writer: the API (one Indicator) and the batch writer (a chunk) insert
 * and update Indicator rows here, set-based, so a new Indicator's defaults (active, not
 * private, no flags) and the columns an update may touch are decided once. Which row to
 * write — File hash merging, one copy per owner — is the callers' (indicators.ts, batch);
 * permissions too. Call inside a transaction for more than one row.
 */
import type { IndicatorTypeDef } from '../../model/indicator-types.js'
import { composeSummary } from '../../model/indicator-types.js'
import { type ColumnType, insertRows, updateRowsById } from '../../store/batch-write.repository.js'
import { refreshThreatAssessment, threatAssessedOnInsert } from '../../store/indicator.repository.js'
import type { IndicatorChanges } from '../../store/indicator.repository.js'
import type { RequestContext } from '../context.js'

/** Every Indicator column a write may set, with the type the set-based UPDATE casts its values to. */
export const INDICATOR_COLUMN_TYPES: Record<string, ColumnType> = {
  summary: 'text', value1: 'text', value2: 'text', value3: 'text', rating: 'double', confidence: 'integer', description: 'text', source: 'text',
  private_flag: 'integer', active: 'integer', active_locked: 'integer', dns_active: 'integer', whois_active: 'integer', first_seen: 'text',
  last_seen: 'text', external_date_added: 'text', external_last_modified: 'text', external_date_expires: 'text', size: 'integer', last_modified: 'text',
}

/** What a new row inserts beyond the columns an update may set. */
const NEW_ROW_COLUMN_TYPES: Record<string, ColumnType> = { ...INDICATOR_COLUMN_TYPES, owner_id: 'integer', type: 'text', created_by: 'integer', date_added: 'text' }

export interface NewIndicator {
  def: IndicatorTypeDef
  /** The identifying values (value1…value3), normalized. */
  values: readonly (string | null)[]
  changes: IndicatorChanges
}

function newIndicatorRow(ctx: RequestContext, n: NewIndicator) {
  const c = n.changes
  return {
    owner_id: ctx.owner.id, type: n.def.name, summary: composeSummary(n.def, [...n.values]), value1: n.values[0] ?? null, value2: n.values[1] ?? null,
    value3: n.values[2] ?? null, rating: c.rating ?? null, confidence: c.confidence ?? null, description: c.description ?? null, source: c.source ?? null,
    private_flag: c.private_flag ?? 0, active: c.active ?? 1, active_locked: c.active_locked ?? 0, dns_active: c.dns_active ?? 0,
    whois_active: c.whois_active ?? 0, first_seen: c.first_seen ?? null, last_seen: c.last_seen ?? null,
    external_date_added: c.external_date_added ?? null, external_last_modified: c.external_last_modified ?? null,
    external_date_expires: c.external_date_expires ?? null, size: c.size ?? null, created_by: ctx.caller.account.id,
    date_added: ctx.now, last_modified: ctx.now,
  }
}

/**
 * Inserts new Indicators in ctx.owner; returns their ids by `type|summary`. With
 * `skipExisting`, one whose key another write took meanwhile is left out instead of failing.
 */
export async function insertIndicators(ctx: RequestContext, indicators: readonly NewIndicator[], options: { skipExisting?: boolean } = {}): Promise<Map<string, number>> {
  const rows = await insertRows<{ id: number; type: string; summary: string }>(ctx.store.db, 'indicator', indicators.map((n) => newIndicatorRow(ctx, n)),
    ['id', 'type', 'summary'], { ignoreConflicts: options.skipExisting, derived: threatAssessedOnInsert(NEW_ROW_COLUMN_TYPES) })
  return new Map(rows.map((r) => [`${r.type}|${r.summary}`, r.id]))
}

/** Applies column changes to existing Indicators, stamping last_modified. */
export async function updateIndicators(ctx: RequestContext, updates: readonly { id: number; changes: Record<string, unknown> }[]): Promise<void> {
  await updateRowsById(ctx.store.db, 'indicator', updates.map((u) => ({ id: u.id, changes: { ...u.changes, last_modified: ctx.now } })), INDICATOR_COLUMN_TYPES)
  const rescored = updates.filter((u) => THREAT_ASSESS_INPUTS.some((c) => c in u.changes)).map((u) => u.id)
  await refreshThreatAssessment(ctx.store.db, rescored)
}

/** The columns the threat-assess scores are computed from (docs/decisions.md). */
const THREAT_ASSESS_INPUTS = ['rating', 'confidence', 'observation_count', 'false_positive_count']

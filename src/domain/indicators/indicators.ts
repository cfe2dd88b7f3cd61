/**
 * Indicators for every interface (v2, v3, batch, TAXII): create-or-update with the
 * one-copy-per-owner rule, look-ups by id and by summary, update, delete and the shared
 * list query. Files are one Indicator per file: MD5, SHA-1 and SHA-256 of the same file
 * merge into one record. Protocol adapters parse and present; the rules live here.
 */
import type { Kysely } from 'kysely'
import { type IndicatorTypeDef, composeSummary, parseSummary } from '../../model/indicator-types.js'
import type { ItemKind } from '../../model/kinds.js'
import type { Database } from '../../store/database.js'
import { pruneDeletedIndicators } from '../../store/repositories/indicator-activity.repository.js'
import { deleteRowsById, findIndicatorDatesAdded, insertRows } from '../../store/repositories/batch-write.repository.js'
import {
  type IndicatorChanges,
  type IndicatorRow,
  findFileRowsByHashes,
  findIndicatorRow,
  findIndicatorRowBySummary,
  listIndicatorRows,
} from '../../store/repositories/indicator.repository.js'
import { type RequestContext, requirePermission } from '../context.js'
import { membershipFor, type OwnerScope, ownerIdsToRead } from '../access/owner-scope.js'
import { conflict, invalid, notFound } from '../../core/errors.js'
import { type IndicatorFilter, compileIndicatorFilters, mentionsActive } from './filters.js'
import {
  type IndicatorInput,
  aOrAn,
  readIndicatorChanges,
  readIndicatorValues,
  requireIdentifyingValues,
} from './input.js'
import { type IndicatorRecord, requireIndicatorType, toIndicatorRecord } from './record.js'
import { type ItemInfo, findReadableItem } from '../items/items.js'
import { deleteItemMetadata } from '../metadata/item-metadata.js'
import { DAY_MS, parseApiTime } from '../../core/time.js'
import { contextIn, withTransaction, withTransactionDb } from '../transaction.js'
import { insertIndicators, updateIndicators } from './write.js'
import { REFUSE_FILE_MERGES, fileMatch, filesSharingHashes, planFile } from './file-hashes.js'

export type { IndicatorFilter } from './filters.js'
export type { IndicatorInput } from './input.js'
export type { IndicatorRecord } from './record.js'
export { requireIndicatorType } from './record.js'

type Db = Kysely<Database>

/**
 * Where a File named by `given` hashes is written, under the API's File policy (file-hashes.ts,
 * REFUSE_FILE_MERGES): a new File, or the one stored File it names with its hashes completed.
 * `target` is the File an update addresses. A refused merge is a 400.
 */
async function planApiFile(
  db: Db,
  ownerId: number,
  given: (string | null)[],
  target?: IndicatorRow,
): Promise<{ id?: number; hashes: (string | null)[] }> {
  const addressed = target ? [fileMatch(target)] : []
  const wanted = [0, 1, 2].map((i) => given[i] || addressed[0]?.hashes[i] || null)
  const others = filesSharingHashes(await findFileRowsByHashes(db, [ownerId], wanted), wanted).filter(
    (r) => r.id !== target?.id,
  )
  const plan = planFile(given, [...addressed, ...others.map(fileMatch)], REFUSE_FILE_MERGES)
  if (plan.kind === 'refuse') throw invalid(plan.reason)
  if (plan.kind === 'insert') return { hashes: plan.hashes }
  if (plan.kind === 'update' && plan.ids.length === 1 && plan.hashes) return { id: plan.ids[0], hashes: plan.hashes }
  throw new Error(`A ${plan.kind} File plan under REFUSE_FILE_MERGES`)
}

/** Value fields of an Indicator other than a File never change once it exists. */
function requireSameValues(def: IndicatorTypeDef, row: IndicatorRow, given: (string | null)[]): void {
  const current = [row.value1, row.value2, row.value3]
  if (given.some((next, i) => !!next && next !== current[i])) {
    throw invalid(`The value of ${aOrAn(def.name)} Indicator cannot be changed (it is '${row.summary}')`)
  }
}

async function applyUpdate(
  ctx: RequestContext,
  db: Db,
  def: IndicatorTypeDef,
  row: IndicatorRow,
  given: (string | null)[] | null,
  changes: IndicatorChanges,
): Promise<void> {
  const update: IndicatorChanges = { ...changes, last_modified: ctx.now }
  if (given && def.name === 'File') {
    const { hashes } = await planApiFile(db, row.owner_id, given, row)
    Object.assign(update, {
      value1: hashes[0],
      value2: hashes[1],
      value3: hashes[2],
      summary: composeSummary(def, hashes),
    })
  } else if (given) {
    requireSameValues(def, row, given)
  }
  await updateIndicators(contextIn(ctx, db), [{ id: row.id, changes: update }])
}

async function reload(db: Db, id: number): Promise<IndicatorRecord> {
  const row = await findIndicatorRow(db, id)
  if (!row) throw notFound(`Indicator ${id} not found`)
  return toIndicatorRecord(row)
}

/**
 * Creates the Indicator in ctx.owner, or updates the owner's existing copy (an owner holds
 * one copy of an Indicator). Needs `create`, and `update` when the Indicator exists.
 * @example await createOrUpdateIndicator(ctx, { type: 'Address', ip: '10.0.0.1', rating: 3 })
 */
export async function createOrUpdateIndicator(
  ctx: RequestContext,
  input: IndicatorInput,
): Promise<{ indicator: IndicatorRecord; created: boolean }> {
  const def = requireIndicatorType(input.type)
  const values = requireIdentifyingValues(def, readIndicatorValues(def, input))
  const changes = readIndicatorChanges(def, input)
  await requirePermission(ctx, 'create')
  return withTransactionDb(ctx, async (db) => {
    // Two attempts: a concurrent create of the same Indicator turns the second into an update.
    for (let attempt = 0; attempt < 2; attempt++) {
      const file = def.name === 'File' ? await planApiFile(db, ctx.owner.id, values) : undefined
      const existing = file
        ? file.id === undefined
          ? undefined
          : await findIndicatorRow(db, file.id)
        : (await findIndicatorRowBySummary(db, [ctx.owner.id], def.name, composeSummary(def, values)))[0]
      if (existing) {
        await requirePermission(ctx, 'update')
        await applyUpdate(ctx, db, def, existing, values, changes)
        return { indicator: await reload(db, existing.id), created: false }
      }
      const inserted = await insertIndicators(contextIn(ctx, db), [{ def, values: file?.hashes ?? values, changes }], {
        skipExisting: true,
      })
      const id = inserted.get(`${def.name}|${composeSummary(def, file?.hashes ?? values)}`)
      if (id !== undefined) return { indicator: await reload(db, id), created: true }
    }
    throw conflict(`The ${def.name} Indicator was changed concurrently; try again`)
  })
}

/** An Indicator by id, in any owner the caller can read (404 otherwise). */
export async function getIndicatorById(ctx: RequestContext, id: number): Promise<IndicatorRecord> {
  const row = Number.isSafeInteger(id) && id > 0 ? await findIndicatorRow(ctx.store.db, id) : undefined
  if (!row || !membershipFor(ctx, row.owner_id)) throw notFound(`Indicator ${id} not found`)
  return toIndicatorRecord(row)
}

/**
 * The owners' copies of an Indicator named by type and summary (for Files: any one of its
 * hashes, or `md5 : sha1 : sha256`). Values are normalized as on create.
 */
export async function findIndicatorsBySummary(
  ctx: RequestContext,
  type: string,
  summary: string,
  scope: OwnerScope,
): Promise<IndicatorRecord[]> {
  const ownerIds = ownerIdsToRead(ctx, scope)
  const def = requireIndicatorType(type)
  const values = parseSummary(def, summary)
  let rows: IndicatorRow[]
  if (def.name === 'File')
    rows = values ? filesSharingHashes(await findFileRowsByHashes(ctx.store.db, ownerIds, values), values) : []
  else
    rows = await findIndicatorRowBySummary(
      ctx.store.db,
      ownerIds,
      def.name,
      values ? composeSummary(def, values) : summary,
    )
  return rows.map(toIndicatorRecord)
}

/**
 * The Indicator in ctx.owner named by type and summary, or 404.
 * @example await getIndicatorBySummary(ctx, 'urls', 'http://example.com/a')
 */
export async function getIndicatorBySummary(
  ctx: RequestContext,
  type: string,
  summary: string,
): Promise<IndicatorRecord> {
  const def = requireIndicatorType(type)
  const [found] = await findIndicatorsBySummary(ctx, def.name, summary, 'context')
  if (!found) throw notFound(`${def.name} Indicator '${summary}' not found in ${ctx.owner.name}`)
  return found
}

/** The Indicator as an item for metadata and associations (membership of its owner). */
export function indicatorItem(ctx: RequestContext, record: IndicatorRecord): ItemInfo {
  const membership = membershipFor(ctx, record.ownerId)
  if (!membership) throw notFound(`Indicator ${record.id} not found`)
  return {
    kind: 'indicator',
    id: record.id,
    ownerId: record.ownerId,
    ownerName: record.ownerName,
    membership,
    type: record.type,
  }
}

/**
 * Changes an Indicator's editable fields (permission: update in its owner). Value fields
 * cannot change, except that a File may gain hashes it lacks.
 */
export async function updateIndicator(
  ctx: RequestContext,
  record: IndicatorRecord,
  input: Omit<IndicatorInput, 'type'>,
): Promise<IndicatorRecord> {
  const item = indicatorItem(ctx, record)
  await requirePermission(ctx, 'update', item.membership)
  const def = requireIndicatorType(record.type)
  const typed = { ...input, type: def.name }
  const values = readIndicatorValues(def, { ...typed, summary: undefined })
  const changes = readIndicatorChanges(def, typed)
  return withTransactionDb(ctx, async (db) => {
    const row = await findIndicatorRow(db, record.id)
    if (!row) throw notFound(`Indicator ${record.id} not found`)
    await applyUpdate(ctx, db, def, row, values, changes)
    return reload(db, record.id)
  })
}

/**
 * Deletes an Indicator (permission: delete in its owner) with its metadata, associations,
 * observations and File data, and records it for /indicators/deleted.
 */
export async function deleteIndicator(ctx: RequestContext, record: IndicatorRecord): Promise<void> {
  const item = indicatorItem(ctx, record)
  await requirePermission(ctx, 'delete', item.membership)
  await withTransaction(ctx, (tctx) => removeIndicators(tctx, [record]))
}

/**
 * Deletes Indicators with their metadata and records each for /indicators/deleted, dropping
 * records older than indicatorDeleteRetentionDays: the one deletion path of the API and the
 * batch writer, set-based for the batch. Permissions are the caller's to check; call inside
 * a transaction.
 */
export async function removeIndicators(
  ctx: RequestContext,
  rows: readonly { id: number; ownerId: number; type: string; summary: string }[],
): Promise<void> {
  if (rows.length === 0) return
  const db = ctx.store.db
  const ids = rows.map((r) => r.id)
  const added = await findIndicatorDatesAdded(db, ids)
  await insertRows(
    db,
    'deleted_indicator',
    rows.map((r) => ({
      owner_id: r.ownerId,
      type: r.type,
      summary: r.summary,
      date_added: added.get(r.id) ?? ctx.now,
      date_deleted: ctx.now,
    })),
  )
  await deleteItemMetadata(db, 'indicator', ids)
  await deleteRowsById(db, 'indicator', ids)
  const retentionDays = Number(await ctx.services.settings.get('indicatorDeleteRetentionDays'))
  await pruneDeletedIndicators(db, new Date(Date.parse(ctx.now) - retentionDays * DAY_MS).toISOString())
}

export interface IndicatorQuery {
  /** Type name, entity or API branch; all types when absent. */
  type?: string
  filters?: readonly IndicatorFilter[]
  /** orParams: any filter may match instead of all. */
  orParams?: boolean
  /** Default true, unless a filter names `active`. */
  activeOnly?: boolean
  /** ISO 8601; Indicators modified on or after it. */
  modifiedSince?: string
  /** Indicators associated with an item; `via: 'group'` means sharing a Group with it. */
  associatedWith?: { kind: ItemKind; id: number; via?: 'group' }
  /** The association type (custom Indicator-to-Indicator associations); 0, the plain association, by default. */
  associationTypeId?: number
  /** Targets of a File action. */
  fileAction?: { fileId: number; action: string }
  /** Only these Indicators (still subject to owners and filters). */
  ids?: readonly number[]
  /** Default: ctx.owner, or every readable owner when listing associations. */
  /** Whose rows: the call's owner, or every readable owner (the default depends on the list; see ownerIdsToRead). */
  ownerScope?: OwnerScope
  resultStart?: number
  resultLimit?: number
}

/**
 * One page of Indicators and the total matching.
 * @example await listIndicators(ctx, { type: 'hosts', filters: [{ field: 'dnsActive', op: '=', value: 'true' }], resultLimit: 50 })
 */
export async function listIndicators(
  ctx: RequestContext,
  query: IndicatorQuery,
): Promise<{ items: IndicatorRecord[]; total: number }> {
  const def = query.type ? requireIndicatorType(query.type) : undefined
  const filters = query.filters ?? []
  const conditions = compileIndicatorFilters(filters, def?.name).map((condition) => {
    // summary= on one type compares normalized values, as look-ups by summary do.
    const values =
      def && condition.column === 'summary' && condition.op === '=' ? parseSummary(def, String(condition.value)) : null
    return values ? { ...condition, value: composeSummary(def!, values) } : condition
  })
  let modifiedSince: string | undefined
  if (query.modifiedSince !== undefined && query.modifiedSince !== '') {
    modifiedSince = parseApiTime(query.modifiedSince) ?? undefined
    if (!modifiedSince) throw invalid(`modifiedSince must be an ISO 8601 date or time, not '${query.modifiedSince}'`)
  }
  if (query.associatedWith) await findReadableItem(ctx, query.associatedWith.kind, query.associatedWith.id)
  const related =
    query.associatedWith ?? (query.fileAction ? { kind: 'indicator' as const, id: query.fileAction.fileId } : undefined)
  const ownerIds = ownerIdsToRead(ctx, query.ownerScope, { associations: !!related })
  const { rows, total } = await listIndicatorRows(ctx.store.db, {
    ownerIds,
    type: def?.name,
    conditions,
    any: !!query.orParams,
    activeOnly: query.activeOnly ?? !mentionsActive(filters),
    modifiedSince,
    association: query.associatedWith && { ...query.associatedWith, associationTypeId: query.associationTypeId ?? 0 },
    fileAction: query.fileAction,
    ids: query.ids,
    offset: query.resultStart ?? 0,
    limit: query.resultLimit ?? 100,
  })
  return { items: rows.map(toIndicatorRecord), total }
}

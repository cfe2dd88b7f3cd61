/**
 * Indicators as v3 objects: TQL lists, records by id for presenters, look-up by summary,
 * create and update bodies with nested members (tags, labels, attributes, associations,
 * false positives and observations) in one transaction, and bulk delete by TQL. The rules
 * themselves stay in domain/indicators/indicators.ts; this module composes them.
 */
import { composeSummary, INDICATOR_TYPES, parseSummary } from '../../model/indicator-types.js'
import type { RequestContext } from '../context.js'
import { contextForNestedItem, contextForNewObject, keepReadableRows } from '../access/owner-scope.js'
import { invalid, notFound } from '../../core/errors.js'
import { addObservations, reportFalsePositive } from './activity.js'
import { readIndicatorValues } from './input.js'
import { toIndicatorRecord } from './record.js'
import { findIndicatorRowsByIds } from '../../store/repositories/indicator.repository.js'
import {
  type IndicatorInput,
  type IndicatorRecord,
  createOrUpdateIndicator,
  deleteIndicator,
  findIndicatorsBySummary,
  getIndicatorById,
  indicatorItem,
  listIndicators,
  requireIndicatorType,
  updateIndicator,
} from './indicators.js'
import type { ItemInfo } from '../items/items.js'
import {
  type Body,
  type MemberName,
  type NestedMember,
  applyMembers,
  isBody,
  takeMembers,
} from '../items/nested-writes.js'
import {
  type ListSource,
  type ObjectListQuery,
  findMatchingIds,
  inIdOrder,
  listObjectIds,
} from '../listing/object-lists.js'
import { withTransaction } from '../transaction.js'
import { booleanValue } from '../../core/input.js'

export const INDICATOR_SOURCE: ListSource = { objectType: 'indicators', table: 'indicator', owner: 'owned' }

export const INDICATOR_MEMBERS: readonly MemberName[] = [
  'tags',
  'securityLabels',
  'attributes',
  'associatedArtifacts',
  'associatedCases',
  'associatedGroups',
  'associatedIndicators',
]

/** Body fields that trigger actions rather than set columns. */
const ACTION_FIELDS = ['falsePositiveFlag', 'observations'] as const

/** Indicators by id, in that order, leaving out any the caller cannot read. */
export async function loadIndicatorRecords(ctx: RequestContext, ids: readonly number[]): Promise<IndicatorRecord[]> {
  if (ids.length === 0) return []
  return inIdOrder(
    ids,
    keepReadableRows(ctx.caller, await findIndicatorRowsByIds(ctx.store, ids)).map(toIndicatorRecord),
  )
}

export async function listIndicatorObjects(ctx: RequestContext, query: ObjectListQuery) {
  const page = await listObjectIds(ctx, INDICATOR_SOURCE, query)
  return { ...page, items: await loadIndicatorRecords(ctx, page.ids) }
}

/**
 * The id behind a path segment: a number is an id; anything else is an Indicator summary in
 * ctx.owner (the caller's Organization unless owner= names another), of whatever type parses it.
 * @example await resolveIndicatorRef(ctx, 'evil.example')
 */
export async function resolveIndicatorRef(ctx: RequestContext, text: string): Promise<number> {
  if (/^\d{1,15}$/.test(text)) return Number(text)
  for (const def of INDICATOR_TYPES) {
    if (!parseSummary(def, text)) continue
    const [found] = await findIndicatorsBySummary(ctx, def.name, text, 'context')
    if (found) return found.id
  }
  throw notFound(`Indicator '${text}' not found in ${ctx.owner.name}`)
}

/** Resolves `{type, <value field>}` to an existing Indicator (nested writes), in the entry's owner. */
export async function findIndicatorByValue(ctx: RequestContext, entry: Body): Promise<ItemInfo | undefined> {
  if (typeof entry.type !== 'string') return undefined
  const def = requireIndicatorType(entry.type)
  const values = readIndicatorValues(def, entry as IndicatorInput)
  if (!values || !values.some(Boolean)) return undefined
  const owner = contextForNestedItem(ctx, entry)
  const [found] = await findIndicatorsBySummary(owner, def.name, composeSummary(def, values), 'context')
  return found ? indicatorItem(ctx, found) : undefined
}

function requireType(fields: Body): string {
  if (typeof fields.type !== 'string' || !fields.type.trim())
    throw invalid("An Indicator needs a 'type' (Address, Host, File, URL …)")
  return fields.type
}

async function applyActions(ctx: RequestContext, record: IndicatorRecord, fields: Body) {
  const flag = booleanValue(fields.falsePositiveFlag, 'falsePositiveFlag')
  if (flag) await reportFalsePositive(ctx, record)
  if (fields.observations !== undefined && fields.observations !== null)
    await addObservations(ctx, record, { count: fields.observations })
}

function withoutActions(fields: Body): Body {
  return Object.fromEntries(Object.entries(fields).filter(([k]) => !(ACTION_FIELDS as readonly string[]).includes(k)))
}

async function applyIndicatorMembers(
  ctx: RequestContext,
  item: ItemInfo,
  members: NestedMember[],
  action: 'create' | 'update',
) {
  await applyMembers(ctx, item, members, { action })
}

/**
 * Creates (or, when the owner holds it already, updates) an Indicator from a v3 body inside an
 * open transaction; also the nested creator for `associatedIndicators`.
 */
export async function createIndicatorIn(ctx: RequestContext, body: Body): Promise<ItemInfo> {
  const { fields, members } = takeMembers(body, INDICATOR_MEMBERS)
  const { indicator } = await createOrUpdateIndicator(ctx, { ...withoutActions(fields), type: requireType(fields) })
  const item = indicatorItem(ctx, indicator)
  await applyActions(ctx, indicator, fields)
  await applyIndicatorMembers(ctx, item, members, 'create')
  return item
}

/** @example await createIndicatorObject(ctx, { type: 'Host', hostName: 'bad.example', tags: { data: [{ name: 'x' }] } }) */
export async function createIndicatorObject(ctx: RequestContext, body: unknown): Promise<IndicatorRecord> {
  if (!isBody(body)) throw invalid('The request body must be a JSON object')
  const item = await withTransaction(ctx, (tctx) => createIndicatorIn(contextForNewObject(tctx, body), body))
  return getIndicatorById(ctx, item.id)
}

/** Fields a PUT may echo back without meaning a change. */
const IGNORED_ON_UPDATE = new Set([
  'id',
  'type',
  'ownerId',
  'ownerName',
  'summary',
  'webLink',
  'dateAdded',
  'lastModified',
  'legacyLink',
])

/**
 * Updates the fields given; `falsePositiveFlag: true` reports a false positive and
 * `observations: n` records n observations, as the platform's PUT does.
 */
export async function updateIndicatorObject(ctx: RequestContext, id: number, body: unknown): Promise<IndicatorRecord> {
  await withTransaction(ctx, async (tctx) => {
    const record = await getIndicatorById(tctx, id)
    const { fields, members } = takeMembers(body, INDICATOR_MEMBERS)
    const changes = withoutActions(fields)
    const current = Object.keys(changes).some((k) => !IGNORED_ON_UPDATE.has(k))
      ? await updateIndicator(tctx, record, changes)
      : record
    await applyActions(tctx, current, fields)
    await applyIndicatorMembers(tctx, indicatorItem(tctx, current), members, 'update')
  })
  return getIndicatorById(ctx, id)
}

export async function deleteIndicatorObject(ctx: RequestContext, id: number): Promise<void> {
  await withTransaction(ctx, async (tctx) => deleteIndicator(tctx, await getIndicatorById(tctx, id)))
}

/** Bulk delete: every Indicator matching the TQL, each needing delete permission in its owner; all or nothing. */
export async function deleteIndicatorsMatching(
  ctx: RequestContext,
  tql: string | undefined,
  scope: ObjectListQuery['ownerScope'],
): Promise<number> {
  return withTransaction(ctx, async (tctx) => {
    const ids = await findMatchingIds(tctx, INDICATOR_SOURCE, tql, scope)
    for (const record of await loadIndicatorRecords(tctx, ids)) await deleteIndicator(tctx, record)
    return ids.length
  })
}

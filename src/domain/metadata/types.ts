/**
 * Type catalogues, the one module: Indicator types (from the model), attribute types (one
 * record, AttributeType, for the v2 catalogue by name and the v3 objects by id) and
 * association types (from the database, since owners and admins may add to them).
 * Owner-defined attribute types are read through the owner scope.
 */
import { GROUP_TYPES } from '../../model/group-types.js'
import { INDICATOR_TYPES, type IndicatorTypeDef, findIndicatorType } from '../../model/indicator-types.js'
import { listAssociationTypeRows } from '../../store/repositories/association.repository.js'
import type { Row } from '../../store/database.js'
import { type AttributeTypeColumn, selectAttributeTypes } from '../../store/repositories/metadata.repository.js'
import { findAttributeTypesByIds } from '../../store/repositories/tag-record.repository.js'
import { type FieldFilter, type FilterTable, toConditions } from '../listing/list-filters.js'
import type { RequestContext } from '../context.js'
import { invalid, notFound } from '../../core/errors.js'
import { membershipFor, membershipNamed, readableOwnerIds } from '../access/owner-scope.js'
import { type ListSource, type ObjectListQuery, inIdOrder, listObjectIds } from '../listing/object-lists.js'

export function listIndicatorTypes(): readonly IndicatorTypeDef[] {
  return INDICATOR_TYPES
}

export function getIndicatorType(name: string): IndicatorTypeDef {
  const type = findIndicatorType(name)
  if (!type) throw notFound(`Indicator type '${name}' not found`)
  return type
}

/** An attribute type, whether listed by name (v2) or addressed by id (v3). */
export interface AttributeType {
  id: number
  name: string
  description: string | null
  allowMarkdown: boolean
  errorMessage: string | null
  maxSize: number
  validationRule: { name: string; type: string; text: string; description: string } | null
  /** The item kinds it applies to (indicator, group, task, victim, case). */
  appliesTo: string[]
  system: boolean
  /** Null for the system's types. */
  ownerId: number | null
  ownerName: string | null
}

type AttributeTypeRow = Omit<Row<'attribute_type'>, 'date_added'>

/** The caller reads a type only through the owner scope, so its owner's name is the caller's membership's. */
function toAttributeType(ctx: RequestContext, row: AttributeTypeRow): AttributeType {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    allowMarkdown: !!row.allow_markdown,
    errorMessage: row.error_message,
    maxSize: row.max_length,
    validationRule: row.validation_rule ? JSON.parse(row.validation_rule) : null,
    appliesTo: row.applies_to.split(',').filter(Boolean),
    system: !!row.system,
    ownerId: row.owner_id,
    ownerName: row.owner_id === null ? null : (membershipFor(ctx, row.owner_id)?.ownerName ?? null),
  }
}

const ATTRIBUTE_TYPE_FILTERS: FilterTable<AttributeTypeColumn> = {
  resource: 'attribute types',
  specs: {
    owner: { column: 'owner_id', kind: 'string', ops: ['='] },
    system: { column: 'system', kind: 'boolean', ops: ['='] },
    allowMarkdown: { column: 'allow_markdown', kind: 'boolean', ops: ['='] },
    maxLength: { column: 'max_length', kind: 'integer', ops: ['=', '<', '>'] },
  },
}

/**
 * System attribute types plus the ones defined in the owners the caller can read, narrowed by
 * v2 filters (owner by name, system, allowMarkdown, maxLength).
 */
export async function listAttributeTypes(
  ctx: RequestContext,
  filters: readonly FieldFilter[],
): Promise<AttributeType[]> {
  const conditions = toConditions(ATTRIBUTE_TYPE_FILTERS, filters).map((c) => {
    if (c.column !== 'owner_id') return c
    const ownerId = membershipNamed(ctx, String(c.value))?.ownerId
    if (ownerId === undefined) throw invalid(`Unknown owner '${c.value}' in filter`)
    return { ...c, value: ownerId }
  })
  const rows = await selectAttributeTypes(ctx.store.db, readableOwnerIds(ctx), conditions)
  return rows.map((r) => toAttributeType(ctx, r))
}

/** By name: the exact spelling first, else the one differing only in case. */
export async function getAttributeType(ctx: RequestContext, name: string): Promise<AttributeType> {
  const all = await listAttributeTypes(ctx, [])
  const found = all.find((t) => t.name === name) ?? all.find((t) => t.name.toLowerCase() === name.toLowerCase())
  if (!found) throw notFound(`Attribute type '${name}' not found`)
  return found
}

export interface AssociationType {
  name: string
  apiBranch: string
  custom: boolean
  /** A File action (File-to-File), rather than an association between Indicators of two types. */
  fileAction: boolean
}

/**
 * The platform's catalogue lists a Group association type per Group type (`Adversary`, apiBranch
 * `adversaries`) beside the Indicator-to-Indicator types and File actions. Those come from the
 * Group type model rather than the table, so they never count as Indicator association branches.
 */
const GROUP_ASSOCIATION_TYPES: AssociationType[] = GROUP_TYPES.map((g) => ({
  name: g.name,
  apiBranch: g.apiBranch,
  custom: false,
  fileAction: false,
}))

export async function listAssociationTypes(ctx: RequestContext): Promise<AssociationType[]> {
  const rows = await listAssociationTypeRows(ctx.store.db)
  return [
    ...GROUP_ASSOCIATION_TYPES,
    ...rows.map((r) => ({ name: r.name, apiBranch: r.api_branch, custom: !!r.custom, fileAction: !!r.file_action })),
  ]
}

/** By name or apiBranch, in any letter case. */
export async function getAssociationType(ctx: RequestContext, nameOrBranch: string): Promise<AssociationType> {
  const key = nameOrBranch.toLowerCase()
  const found = (await listAssociationTypes(ctx)).find(
    (t) => t.name.toLowerCase() === key || t.apiBranch.toLowerCase() === key,
  )
  if (!found) throw notFound(`Association type '${nameOrBranch}' not found`)
  return found
}

// Attribute types as v3 objects addressed by id (read-only): the system's and those of the owners the caller reads.
const ATTRIBUTE_TYPE_SOURCE: ListSource = { table: 'attribute_type', owner: 'ownedOrSystem' }

export async function loadAttributeTypeObjects(ctx: RequestContext, ids: readonly number[]): Promise<AttributeType[]> {
  const rows = (await findAttributeTypesByIds(ctx.store, ids)).filter(
    (r) => r.owner_id === null || membershipFor(ctx, r.owner_id),
  )
  return inIdOrder(
    ids,
    rows.map((r) => toAttributeType(ctx, r)),
  )
}

export async function listAttributeTypeObjects(ctx: RequestContext, query: ObjectListQuery) {
  const page = await listObjectIds(ctx, ATTRIBUTE_TYPE_SOURCE, query)
  return { ...page, items: await loadAttributeTypeObjects(ctx, page.ids) }
}

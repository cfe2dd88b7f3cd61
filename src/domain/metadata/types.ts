/**
 * Type catalogues, the one module: Indicator types (from the model), attribute types (v2
 * catalogue and v3 objects) and association types (from the database, since owners and
 * admins may add to them). Owner-defined attribute types are read through the owner scope.
 */
import type { Kysely } from 'kysely'
import { GROUP_TYPES } from '../../model/group-types.js'
import { INDICATOR_TYPES, type IndicatorTypeDef, findIndicatorType } from '../../model/indicator-types.js'
import { listAssociationTypeRows } from '../../store/association.repository.js'
import type { Database } from '../../store/database.js'
import { type AttributeTypeColumn, selectAttributeTypes } from '../../store/metadata.repository.js'
import { type FieldFilter, type FilterTable, toConditions } from '../listing/list-filters.js'
import type { RequestContext } from '../context.js'
import { invalid, notFound } from '../errors.js'
import { membershipNamed, readableOwnerIds } from '../access/owner-scope.js'
import { findAttributeTypesByIds } from '../../store/tag-record.repository.js'
import { membershipFor } from '../access/owner-scope.js'
import { type ListSource, type ObjectListQuery, inIdOrder, listObjectIds } from '../listing/object-lists.js'

export function indicatorTypeRecord(t: IndicatorTypeDef, additional: boolean) {
  const record: Record<string, unknown> = {
    name: t.name, custom: String(t.custom), parsable: String(t.parsable), apiBranch: t.apiBranch, apiEntity: t.apiEntity,
  }
  if (t.custom) {
    record.casePreference = t.casePreference
    t.fields.forEach((f, i) => {
      record[`value${i + 1}Label`] = f.label
      record[`value${i + 1}Type`] = f.type
      if (f.options) record[`value${i + 1}Option`] = f.options.join(';')
    })
  } else if (t.name === 'File') {
    t.fields.forEach((f, i) => {
      record[`value${i + 1}Label`] = f.label
      record[`value${i + 1}Type`] = f.type
    })
  }
  if (additional) {
    record.regexes = [...t.regexes]
    record.keys = Object.fromEntries(t.fields.map((f, i) => [`key${i + 1}`, f.name]))
  }
  return record
}

export function listIndicatorTypes(additional: boolean) {
  return INDICATOR_TYPES.map((t) => indicatorTypeRecord(t, additional))
}

export function getIndicatorType(name: string, additional: boolean) {
  const t = findIndicatorType(name)
  if (!t) throw notFound(`Indicator type '${name}' not found`)
  return indicatorTypeRecord(t, additional)
}

const ATTRIBUTE_TYPE_FILTERS: FilterTable<AttributeTypeColumn> = { resource: 'attribute types', specs: {
  owner: { column: 'owner_id', kind: 'string', ops: ['='] },
  system: { column: 'system', kind: 'boolean', ops: ['='] },
  allowMarkdown: { column: 'allow_markdown', kind: 'boolean', ops: ['='] },
  maxLength: { column: 'max_length', kind: 'integer', ops: ['=', '<', '>'] },
} }

type AttributeTypeRow = Awaited<ReturnType<typeof selectAttributeTypes>>[number]

export function attributeTypeRecord(row: AttributeTypeRow, withRule: boolean) {
  const record: Record<string, unknown> = {
    id: row.id, name: row.name, description: row.description ?? undefined, errorMessage: row.error_message ?? undefined,
    maxSize: row.max_length, allowMarkdown: !!row.allow_markdown, system: !!row.system, owner: row.owner_name ?? undefined,
    appliesTo: row.applies_to.split(','),
  }
  if (withRule && row.validation_rule) record.validationRule = JSON.parse(row.validation_rule)
  return record
}

/**
 * System attribute types plus the ones defined in the owners the caller can read, narrowed by
 * v2 filters (owner by name, system, allowMarkdown, maxLength).
 */
export async function listAttributeTypes(ctx: RequestContext, filters: readonly FieldFilter[], withRule: boolean) {
  const conditions = toConditions(ATTRIBUTE_TYPE_FILTERS, filters).map((c) => {
    if (c.column !== 'owner_id') return c
    const ownerId = membershipNamed(ctx, String(c.value))?.ownerId
    if (ownerId === undefined) throw invalid(`Unknown owner '${c.value}' in filter`)
    return { ...c, value: ownerId }
  })
  const rows = await selectAttributeTypes(ctx.store.db, readableOwnerIds(ctx), conditions)
  return rows.map((r) => attributeTypeRecord(r, withRule))
}

export async function getAttributeType(ctx: RequestContext, name: string, withRule: boolean) {
  const all = await listAttributeTypes(ctx, [], withRule)
  const found = all.find((t) => t.name === name) ?? all.find((t) => String(t.name).toLowerCase() === name.toLowerCase())
  if (!found) throw notFound(`Attribute type '${name}' not found`)
  return found
}

/**
 * The platform's catalogue lists a Group association type per Group type (`Adversary`, apiBranch
 * `adversaries`) beside the Indicator-to-Indicator types and File actions. Those come from the
 * Group type model rather than the table, so they never count as Indicator association branches.
 */
const GROUP_ASSOCIATION_TYPES = GROUP_TYPES.map((g) => ({ name: g.name, custom: 'false', fileAction: 'false', apiBranch: g.apiBranch }))

export async function listAssociationTypes(db: Kysely<Database>) {
  const rows = await listAssociationTypeRows(db)
  return [...GROUP_ASSOCIATION_TYPES,
    ...rows.map((r) => ({ name: r.name, custom: String(!!r.custom), fileAction: String(!!r.file_action), apiBranch: r.api_branch }))]
}

export async function getAssociationType(db: Kysely<Database>, nameOrBranch: string) {
  const all = await listAssociationTypes(db)
  const key = nameOrBranch.toLowerCase()
  const found = all.find((t) => t.name.toLowerCase() === key || t.apiBranch.toLowerCase() === key)
  if (!found) throw notFound(`Association type '${nameOrBranch}' not found`)
  return found
}

// Attribute types as v3 objects addressed by id (read-only): the system's and those of the owners the caller reads.
export const ATTRIBUTE_TYPE_SOURCE: ListSource = { table: 'attribute_type', owner: 'ownedOrSystem' }

export interface AttributeTypeObject {
  id: number
  name: string
  description: string | null
  allowMarkdown: boolean
  errorMessage: string | null
  maxSize: number
  validationRule: { name: string; type: string; text: string; description: string } | null
  appliesTo: string[]
  system: boolean
}

export async function loadAttributeTypeObjects(ctx: RequestContext, ids: readonly number[]): Promise<AttributeTypeObject[]> {
  const rows = (await findAttributeTypesByIds(ctx.store.db, ids)).filter((r) => r.owner_id === null || membershipFor(ctx, r.owner_id))
  return inIdOrder(ids, rows.map((r) => ({
    id: r.id, name: r.name, description: r.description, allowMarkdown: !!r.allow_markdown, errorMessage: r.error_message, maxSize: r.max_length,
    validationRule: r.validation_rule ? JSON.parse(r.validation_rule) : null, appliesTo: r.applies_to.split(',').filter(Boolean), system: !!r.system,
  })))
}

export async function listAttributeTypeObjects(ctx: RequestContext, query: ObjectListQuery) {
  const page = await listObjectIds(ctx, ATTRIBUTE_TYPE_SOURCE, query)
  return { ...page, items: await loadAttributeTypeObjects(ctx, page.ids) }
}

export async function getAttributeTypeObject(ctx: RequestContext, id: number): Promise<AttributeTypeObject> {
  const [record] = await loadAttributeTypeObjects(ctx, [id])
  if (!record) throw notFound(`Attribute type ${id} not found`)
  return record
}

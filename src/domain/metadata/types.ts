/**
 * Type catalogues: Indicator types (from the model), attribute types and association
 * types (from the database, since owners and admins may add to them).
 */
import type { Kysely } from 'kysely'
import { INDICATOR_TYPES, type IndicatorTypeDef, findIndicatorType } from '../../model/indicator-types.js'
import { listAssociationTypeRows } from '../../store/association.repository.js'
import type { Database } from '../../store/database.js'
import { selectAttributeTypes } from '../../store/metadata.repository.js'
import type { RequestContext } from '../context.js'
import { invalid, notFound } from '../errors.js'
import { membershipNamed, readableOwnerIds } from '../access/owner-scope.js'

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

export interface AttributeTypeFilter {
  system?: boolean
  allowMarkdown?: boolean
  maxLength?: { op: '=' | '<' | '>'; value: number }
  /** Only the attribute types defined in this owner (one the caller may read). */
  ownerName?: string
}

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

/** System attribute types plus the ones defined in the owners the caller can read. */
export async function listAttributeTypes(ctx: RequestContext, filter: AttributeTypeFilter, withRule: boolean) {
  let ownerId: number | undefined
  if (filter.ownerName !== undefined) {
    ownerId = membershipNamed(ctx, filter.ownerName)?.ownerId
    if (ownerId === undefined) throw invalid(`Unknown owner '${filter.ownerName}' in filter`)
  }
  const rows = (await selectAttributeTypes(ctx.store.db, readableOwnerIds(ctx))).filter((r) => {
    if (filter.system !== undefined && !!r.system !== filter.system) return false
    if (filter.allowMarkdown !== undefined && !!r.allow_markdown !== filter.allowMarkdown) return false
    if (ownerId !== undefined && r.owner_id !== ownerId) return false
    if (filter.maxLength) {
      const { op, value } = filter.maxLength
      if (op === '=' ? r.max_length !== value : op === '<' ? !(r.max_length < value) : !(r.max_length > value)) return false
    }
    return true
  })
  return rows.map((r) => attributeTypeRecord(r, withRule))
}

export async function getAttributeType(ctx: RequestContext, name: string, withRule: boolean) {
  const all = await listAttributeTypes(ctx, {}, withRule)
  const found = all.find((t) => t.name === name) ?? all.find((t) => String(t.name).toLowerCase() === name.toLowerCase())
  if (!found) throw notFound(`Attribute type '${name}' not found`)
  return found
}

export async function listAssociationTypes(db: Kysely<Database>) {
  const rows = await listAssociationTypeRows(db)
  return rows.map((r) => ({ name: r.name, custom: String(!!r.custom), fileAction: String(!!r.file_action), apiBranch: r.api_branch }))
}

export async function getAssociationType(db: Kysely<Database>, nameOrBranch: string) {
  const all = await listAssociationTypes(db)
  const key = nameOrBranch.toLowerCase()
  const found = all.find((t) => t.name.toLowerCase() === key || t.apiBranch.toLowerCase() === key)
  if (!found) throw notFound(`Association type '${nameOrBranch}' not found`)
  return found
}

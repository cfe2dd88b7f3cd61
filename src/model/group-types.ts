/**
 * Group types (the spec's ten and the six the platform added since), with the fields each
 * may carry and the ones it requires, as the body readers use them: derived from the Group's
 * declaration (model/group.ts). Victim Asset and Adversary Asset types live here too.
 */
import type { FieldDeclaration } from './field.js'
import { GROUP, GROUP_SUBTYPES, type GroupSubtype, findGroupSubtype } from './group.js'

import {
  ADVERSARY_ASSET,
  ADVERSARY_ASSET_SUBTYPES,
  VICTIM_ASSET,
  VICTIM_ASSET_SUBTYPES,
  subtypeFieldOn,
  v2NameOf,
} from './victim.js'

export { DOCUMENT_STATUSES, EVENT_STATUSES, INCIDENT_STATUSES, SIGNATURE_FILE_TYPES } from './group.js'

/** A body field's rule for one Group type, as the input reader checks it (derived from model/group.ts). */
export interface GroupFieldRule {
  /** JSON name in v2/v3 bodies. */
  name: string
  /** Column in intel_group. */
  column: string
  kind: 'text' | 'date' | 'boolean' | 'integer'
  requiredOnCreate?: boolean
  requiredOnUpdate?: boolean
  values?: readonly string[]
}

export interface GroupTypeDef extends GroupSubtype {
  /** The fields of this type's own, in the declaration's order. */
  fields: readonly GroupFieldRule[]
}

function ruleOf(
  field: FieldDeclaration,
  requiredOnCreate?: boolean,
  requiredOnUpdate?: boolean,
  values = field.values,
): GroupFieldRule {
  return {
    name: field.name,
    column: field.column!,
    kind: field.type as GroupFieldRule['kind'],
    ...(requiredOnCreate ? { requiredOnCreate } : {}),
    ...(requiredOnUpdate ? { requiredOnUpdate } : {}),
    ...(values ? { values } : {}),
  }
}

/**
 * Dates every Group type may carry besides its own fields (the platform's `sightings` and
 * `externalDates`): the declared dates a body sets that no type claims for itself.
 */
export const COMMON_GROUP_DATES: readonly GroupFieldRule[] = GROUP.fields
  .filter(
    (f: FieldDeclaration) =>
      !f.subtypes && f.type === 'date' && f.column && f.write !== 'never' && f.write !== 'create',
  )
  .map((f) => ruleOf(f))

export const GROUP_TYPES: readonly GroupTypeDef[] = GROUP_SUBTYPES.map((t) => ({
  ...t,
  fields: GROUP.fields.flatMap((f: FieldDeclaration) => {
    const rule = f.subtypes?.[t.name]
    return rule ? [ruleOf(f, rule.required, rule.requiredOnUpdate, rule.values ?? f.values)] : []
  }),
}))

const byName = new Map(GROUP_TYPES.map((t) => [t.name, t]))

/** Finds a Group type by name (`Intrusion Set`), entity (`intrusionSet`) or branch (`intrusionSets`). */
export function findGroupType(nameOrBranch: string): GroupTypeDef | undefined {
  const subtype = findGroupSubtype(nameOrBranch)
  return subtype && byName.get(subtype.name)
}

export interface AssetTypeDef {
  name: string
  apiBranch: string
  apiEntity: string
  /** JSON name of the asset's value and of its optional detail (e.g. address / addressType). */
  valueField: string
  detailField: string | null
  /** Names v3 uses for the same two fields. */
  v3ValueField: string
  v3DetailField: string | null
}

function assetTypeOf(t: { name: string; apiBranch: string; apiEntity: string }): AssetTypeDef {
  const value = subtypeFieldOn(VICTIM_ASSET.fields, t.name, 'value')!
  const detail = subtypeFieldOn(VICTIM_ASSET.fields, t.name, 'detail')
  return {
    ...t,
    valueField: v2NameOf(value),
    detailField: detail ? v2NameOf(detail) : null,
    v3ValueField: value.name,
    v3DetailField: detail?.name ?? null,
  }
}

/** Derived from the Victim Asset declaration (model/victim.ts). */
export const VICTIM_ASSET_TYPES: readonly AssetTypeDef[] = VICTIM_ASSET_SUBTYPES.map(assetTypeOf)

export function findVictimAssetType(nameOrBranch: string): AssetTypeDef | undefined {
  const key = nameOrBranch.toLowerCase()
  return VICTIM_ASSET_TYPES.find(
    (t) => t.apiBranch.toLowerCase() === key || t.name.toLowerCase() === key || t.apiEntity.toLowerCase() === key,
  )
}

/** Derived from the Adversary Asset declaration (model/victim.ts). */
export const ADVERSARY_ASSET_TYPES = ADVERSARY_ASSET_SUBTYPES.map((t) => ({
  ...t,
  valueField: v2NameOf(subtypeFieldOn(ADVERSARY_ASSET.fields, t.name, 'value')!),
}))

export { TASK_STATUSES } from './task.js'
export const CASE_STATUSES = ['Open', 'Closed'] as const
export const CASE_SEVERITIES = ['Low', 'Medium', 'High', 'Critical'] as const
export const PLAYBOOK_STATUSES = ['Active', 'Inactive', 'Draft', 'Archive'] as const
export const CUSTOM_METRIC_DATA_TYPES = ['Sum', 'Count', 'Min', 'Max', 'First', 'Last', 'Average'] as const
export const CUSTOM_METRIC_INTERVALS = ['Hourly', 'Daily', 'Weekly', 'Monthly', 'Yearly'] as const
export const ASSOCIATION_SOURCES = ['UNKNOWN', 'MANUAL', 'API', 'TQL', 'DNS', 'EMAIL'] as const
export type AssociationSource = (typeof ASSOCIATION_SOURCES)[number]

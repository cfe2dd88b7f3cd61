/**
 * The kinds of item that carry metadata (attributes, tags, labels) and take part in
 * associations. The string is what polymorphic rows store in item_kind / from_kind / to_kind.
 */
export const ITEM_KINDS = [
  'indicator',
  'group',
  'task',
  'victim',
  'victimAsset',
  'case',
  'artifact',
  'intelRequirement',
  'attribute',
] as const
export type ItemKind = (typeof ITEM_KINDS)[number]

/** Owner kinds, as the API names them. */
export const OWNER_TYPES = ['Organization', 'Community', 'Source'] as const
export type OwnerType = (typeof OWNER_TYPES)[number]

/** The table behind each item kind, for the store's generic existence and ownership checks. */
export const ITEM_TABLES = {
  indicator: 'indicator',
  group: 'intel_group',
  task: 'task',
  victim: 'victim',
  victimAsset: 'victim_asset',
  case: 'intel_case',
  artifact: 'artifact',
  intelRequirement: 'intel_requirement',
  attribute: 'attribute',
} as const satisfies Record<ItemKind, string>

/**
 * The shape of a keyword table. Each object type declares its keywords once: what OPTIONS
 * /v3/<type>/tql lists and how each keyword reaches the data. Only declared columns can be
 * queried; user text never names a column or table.
 */
import type { Expression } from 'kysely'
import type { ItemKind } from '../../model/kinds.js'

export type TqlType = 'Integer' | 'String' | 'StringLower' | 'Date' | 'Enum' | 'Boolean' | 'Sub Query'

/** Where a keyword's value comes from on the row being filtered (its table alias is given). */
export type ValueSource = { column: string } | { expression: (alias: string) => Expression<unknown> }

/**
 * How one object relates to the rows of another type. `this` is the outer row, `target`
 * the related row.
 */
export type Link =
  /** association rows from this item to items of another kind (stored in both directions). */
  | { via: 'association'; from: ItemKind; to: ItemKind; customOnly?: boolean }
  /** this.column = target.id */
  | { via: 'foreignKey'; column: string }
  /** target.column = this.id */
  | { via: 'reverseKey'; column: string }
  /** tags carried by this item */
  | { via: 'itemTag'; kind: ItemKind }
  /** security labels applied to this item */
  | { via: 'itemLabel'; kind: ItemKind }
  /** attributes of this item */
  | { via: 'attribute'; kind: ItemKind }
  /** items of a kind that carry this tag */
  | { via: 'taggedItem'; kind: ItemKind }
  /** items of a kind that carry this security label */
  | { via: 'labelledItem'; kind: ItemKind }

export type Target =
  /** A single value of the row. */
  | { kind: 'value'; source: ValueSource }
  /** Any of several related values (a tag name, an associated id): matches when some related row matches. */
  | {
      kind: 'related'
      link: Link
      table: string
      source: ValueSource
      onLink?: boolean
      where?: (targetAlias: string) => Expression<unknown>
    }
  /** `hasGroup(<query>)`: some related row matches the nested query (`all`: every tag it names is carried). */
  | { kind: 'nested'; link: Link; objectType: string; all?: boolean }
  /** Listed by the platform but not stored here: behaves as a value that is always null. */
  | { kind: 'absent' }

export interface KeywordDef {
  keyword: string
  name: string
  type: TqlType
  description: string
  groupable?: boolean
  targetable?: boolean
  /** The allowed values of an Enum, in their canonical spelling (matched case-insensitively). */
  values?: readonly string[]
  /** Maps what clients write to the stored spelling (e.g. `registrykey` → `Registry Key`). */
  normalize?: (value: string) => string
  target: Target
}

export interface ObjectTypeDef {
  /** The v3 endpoint name, e.g. `indicators`. */
  name: string
  table: string
  kind: ItemKind | null
  /** Rows of the table that belong to this object type (attribute tables share one table). */
  restrict?: { column: string; value: string }
  keywords: readonly KeywordDef[]
}

export const column = (name: string): Target => ({ kind: 'value', source: { column: name } })
export const computed = (expression: (alias: string) => Expression<unknown>): Target => ({
  kind: 'value',
  source: { expression },
})

/** A keyword entry, written compactly: keyword, display name, type, target, description. */
export function kw(
  keyword: string,
  name: string,
  type: TqlType,
  target: Target,
  description: string,
  extra: Partial<KeywordDef> = {},
): KeywordDef {
  return {
    keyword,
    name,
    type,
    description,
    target,
    groupable: extra.groupable ?? (type === 'Enum' || type === 'Boolean'),
    targetable: extra.targetable ?? type === 'Sub Query',
    ...extra,
  }
}

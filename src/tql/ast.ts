/**
 * The parsed shape of a TQL query, before keywords are looked up. Every node keeps the
 * zero-based offset where it starts, so later stages can point at the user's text.
 */

export type Operator =
  | 'eq'
  | 'ne'
  | 'gt'
  | 'geq'
  | 'lt'
  | 'leq'
  | 'in'
  | 'notIn'
  | 'like'
  | 'notLike'
  | 'contains'
  | 'notContains'
  | 'startsWith'
  | 'notStartsWith'
  | 'endsWith'
  | 'notEndsWith'
  | 'isNull'
  | 'isNotNull'

export type DateUnit = 'minute' | 'hour' | 'day' | 'week' | 'month' | 'year'

export type Value =
  | { kind: 'string'; value: string; at: number }
  | { kind: 'number'; value: number; text: string; at: number }
  | { kind: 'boolean'; value: boolean; at: number }
  /** An unquoted word, accepted for Enum keywords (`associatedGroupSource = API`). */
  | { kind: 'word'; value: string; at: number }
  /** TODAY() with an optional signed offset, e.g. `TODAY() - 7 DAYS` (amount -7, unit day). */
  | { kind: 'today'; amount: number; unit: DateUnit | null; at: number }

export interface KeywordRef {
  name: string
  at: number
}

export type Node =
  | { kind: 'and'; left: Node; right: Node }
  | { kind: 'or'; left: Node; right: Node }
  /** `value` is one Value, a list for in/notIn (and list forms of the text operators), or null for IS [NOT] NULL. */
  | { kind: 'compare'; keyword: KeywordRef; operator: Operator; operatorAt: number; value: Value | Value[] | null }
  /** `hasGroup(<query>)`: a nested query over another object type's keywords. */
  | { kind: 'nested'; keyword: KeywordRef; query: Node }

/** Negated operators and their positive forms, used for set-valued keywords (not exists …). */
export const POSITIVE_OF: Partial<Record<Operator, Operator>> = {
  ne: 'eq',
  notIn: 'in',
  notLike: 'like',
  notContains: 'contains',
  notStartsWith: 'startsWith',
  notEndsWith: 'endsWith',
}

/** How operators are spelled in messages. */
export const OPERATOR_TEXT: Record<Operator, string> = {
  eq: '=',
  ne: '!=',
  gt: '>',
  geq: '>=',
  lt: '<',
  leq: '<=',
  in: 'IN',
  notIn: 'NOT IN',
  like: 'LIKE',
  notLike: 'NOT LIKE',
  contains: 'CONTAINS',
  notContains: 'NOT CONTAINS',
  startsWith: 'STARTSWITH',
  notStartsWith: 'NOT STARTSWITH',
  endsWith: 'ENDSWITH',
  notEndsWith: 'NOT ENDSWITH',
  isNull: 'IS NULL',
  isNotNull: 'IS NOT NULL',
}

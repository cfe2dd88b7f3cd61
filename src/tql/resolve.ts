/**
 * Checks a parsed query against an object type's keyword table and turns every value
 * into what the compiler binds: numbers, canonical strings, date intervals. All rejections
 * of well-formed but meaningless queries (unknown keyword, wrong value type, bad enum
 * value, operator that does not apply) happen here.
 */
import type { Node, Operator, Value } from './ast.js'
import { OPERATOR_TEXT } from './ast.js'
import { type DateValue, parseDateText, todayValue } from './dates.js'
import { TqlError, syntaxError } from './errors.js'
import { type KeywordDef, type ObjectTypeDef, type TqlType, findKeyword, findObjectType } from './keywords/index.js'
import { readBoolean } from '../core/input.js'

export type ResolvedValue = string | number | DateValue

export type Resolved =
  | { kind: 'and' | 'or'; left: Resolved; right: Resolved }
  /** `values` is empty for IS NULL / IS NOT NULL. */
  | { kind: 'compare'; def: KeywordDef; operator: Operator; values: ResolvedValue[] }
  | { kind: 'nested'; def: KeywordDef; type: ObjectTypeDef; query: Resolved }

const ORDERED: Operator[] = ['eq', 'ne', 'gt', 'geq', 'lt', 'leq', 'in', 'notIn', 'isNull', 'isNotNull']
const OPERATORS_BY_TYPE: Record<TqlType, ReadonlySet<Operator>> = {
  Integer: new Set(ORDERED),
  Date: new Set(ORDERED),
  Enum: new Set(['eq', 'ne', 'in', 'notIn', 'isNull', 'isNotNull']),
  Boolean: new Set(['eq', 'ne', 'isNull', 'isNotNull']),
  String: new Set(Object.keys(OPERATOR_TEXT) as Operator[]),
  StringLower: new Set(Object.keys(OPERATOR_TEXT) as Operator[]),
  'Sub Query': new Set(['eq', 'ne', 'in', 'notIn']),
}
/** Canonical spellings apply to whole-value comparisons, not to patterns. */
const WHOLE_VALUE = new Set<Operator>(['eq', 'ne', 'in', 'notIn'])
const ARTICLE: Record<TqlType, string> = {
  Integer: 'an Integer',
  Date: 'a Date',
  Enum: 'an Enum',
  Boolean: 'a Boolean',
  String: 'a String',
  StringLower: 'a String',
  'Sub Query': 'a nested query',
}

export function resolveTql(type: ObjectTypeDef, node: Node, now: Date): Resolved {
  switch (node.kind) {
    case 'and':
    case 'or':
      return { kind: node.kind, left: resolveTql(type, node.left, now), right: resolveTql(type, node.right, now) }
    case 'nested': {
      const def = lookup(type, node.keyword.name, node.keyword.at)
      if (def.target.kind !== 'nested') {
        throw syntaxError(
          node.keyword.at + node.keyword.name.length,
          `${def.keyword} does not take a nested query; expected an operator after '${node.keyword.name}'`,
        )
      }
      const target = findObjectType(def.target.objectType)!
      return { kind: 'nested', def, type: target, query: resolveTql(target, node.query, now) }
    }
    case 'compare': {
      const def = lookup(type, node.keyword.name, node.keyword.at)
      if (!OPERATORS_BY_TYPE[def.type].has(node.operator)) {
        if (def.type === 'Sub Query')
          throw syntaxError(
            node.operatorAt,
            `${def.keyword} expects a nested query in parentheses, e.g. ${def.keyword}(id = 1)`,
          )
        throw syntaxError(
          node.operatorAt,
          `operator ${OPERATOR_TEXT[node.operator]} cannot be used with ${def.keyword} (${def.type})`,
        )
      }
      const values = node.value === null ? [] : Array.isArray(node.value) ? node.value : [node.value]
      if (def.target.kind === 'nested') return subQueryById(def, node.operator, values, now)
      return {
        kind: 'compare',
        def,
        operator: node.operator,
        values: values.map((v) => convert(def, node.operator, v, now)),
      }
    }
  }
}

function lookup(type: ObjectTypeDef, keyword: string, at: number): KeywordDef {
  const def = findKeyword(type, keyword)
  if (!def) throw new TqlError(`Unknown TQL keyword '${keyword}' for ${type.name} at column ${at + 1}`, at + 1)
  return def
}

/** `hasGroup = 12` and `hasGroup in (1, 2)`, as some SDKs write them: the same as hasGroup(id = 12). */
function subQueryById(def: KeywordDef, operator: Operator, values: Value[], now: Date): Resolved {
  const target = findObjectType((def.target as { objectType: string }).objectType)!
  const id = findKeyword(target, 'id')!
  return {
    kind: 'nested',
    def,
    type: target,
    query: { kind: 'compare', def: id, operator, values: values.map((v) => convert(id, operator, v, now)) },
  }
}

function convert(def: KeywordDef, operator: Operator, value: Value, now: Date): ResolvedValue {
  const wrong = () => syntaxError(value.at, `${def.keyword} expects ${ARTICLE[def.type]}, found ${describe(value)}`)
  switch (def.type) {
    case 'Integer': {
      const number =
        value.kind === 'number'
          ? value.value
          : value.kind === 'string' && /^\s*-?\d{1,16}\s*$/.test(value.value)
            ? Number(value.value)
            : NaN
      if (!Number.isSafeInteger(number)) throw wrong()
      return number
    }
    case 'Boolean': {
      if (value.kind === 'boolean') return value.value ? 1 : 0
      const read = readBoolean(
        value.kind === 'string' || value.kind === 'word'
          ? value.value
          : value.kind === 'number'
            ? value.text
            : undefined,
      )
      if (read === undefined) throw wrong()
      return read ? 1 : 0
    }
    case 'Date': {
      const date =
        value.kind === 'today'
          ? todayValue(now, value.amount, value.unit)
          : value.kind === 'string'
            ? parseDateText(value.value, now)
            : null
      if (!date) throw wrong()
      return date
    }
    case 'Enum': {
      const text =
        value.kind === 'string' || value.kind === 'word'
          ? value.value.trim()
          : value.kind === 'number'
            ? value.text
            : null
      const match = text === null ? undefined : def.values?.find((v) => v.toLowerCase() === text.toLowerCase())
      if (match === undefined)
        throw syntaxError(value.at, `${def.keyword} expects one of ${def.values?.join(', ')}, found ${describe(value)}`)
      return match
    }
    case 'String':
    case 'StringLower': {
      const text =
        value.kind === 'string'
          ? value.value
          : value.kind === 'number'
            ? value.text
            : value.kind === 'boolean'
              ? String(value.value)
              : null
      if (text === null)
        throw syntaxError(
          value.at,
          `${def.keyword} expects a String${value.kind === 'word' ? ' in quotes' : ''}, found ${describe(value)}`,
        )
      return def.normalize && WHOLE_VALUE.has(operator) ? def.normalize(text) : text
    }
    case 'Sub Query':
      throw wrong()
  }
}

function describe(value: Value): string {
  switch (value.kind) {
    case 'string':
      return `'${value.value.length > 40 ? `${value.value.slice(0, 40)}…` : value.value}'`
    case 'number':
      return value.text
    case 'boolean':
      return String(value.value)
    case 'word':
      return `'${value.value}'`
    case 'today':
      return 'TODAY()'
  }
}

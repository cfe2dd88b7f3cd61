/**
 * Recursive-descent parser: tokens → AST. Grammar (words are case-insensitive):
 *
 *   query     := or END
 *   or        := and (OR and)*
 *   and       := primary (AND primary)*
 *   primary   := '(' or ')' | KEYWORD '(' or ')' | KEYWORD operator operand
 *   operator  := = | EQ | != | <> | NE | > | GT | >= | GEQ | < | LT | <= | LEQ
 *              | [NOT] (IN | LIKE | CONTAINS | STARTSWITH | ENDSWITH) | IS [NOT] NULL
 *   operand   := value | '(' value (',' value)* ')'
 *   value     := STRING | ['-'] NUMBER | TRUE | FALSE | TODAY '(' ')' [('+' | '-') NUMBER UNIT] | WORD (Enum values)
 *
 * The parser knows nothing of keywords; resolve.ts checks them against the object type.
 */
import type { DateUnit, Node, Operator, Value } from './ast.js'
import { syntaxError } from './errors.js'
import { type Token, tokenize } from './lexer.js'

/** Deeper nesting than this is refused rather than risking the stack. */
const MAX_DEPTH = 40
/** Enough for any real query; keeps every database under its bound-parameter limit. */
const MAX_VALUES = 10_000
/** AND/OR chains become nested SQL expressions; far more would exhaust the stack while compiling. */
const MAX_CONDITIONS = 500

const SYMBOL_OPERATORS: Record<string, Operator> = {
  '=': 'eq',
  '==': 'eq',
  '!=': 'ne',
  '<>': 'ne',
  '>': 'gt',
  '>=': 'geq',
  '<': 'lt',
  '<=': 'leq',
}
const WORD_OPERATORS: Record<string, Operator> = {
  EQ: 'eq',
  NE: 'ne',
  NEQ: 'ne',
  GT: 'gt',
  GEQ: 'geq',
  GTE: 'geq',
  LT: 'lt',
  LEQ: 'leq',
  LTE: 'leq',
  IN: 'in',
  LIKE: 'like',
  CONTAINS: 'contains',
  STARTSWITH: 'startsWith',
  ENDSWITH: 'endsWith',
  // Older SDKs print the operator enum's name instead of its value.
  NOT_IN: 'notIn',
  NOT_LIKE: 'notLike',
  NOT_CONTAINS: 'notContains',
  STARTS_WITH: 'startsWith',
  ENDS_WITH: 'endsWith',
  NOT_STARTS_WITH: 'notStartsWith',
  NOT_ENDS_WITH: 'notEndsWith',
  NOT_STARTSWITH: 'notStartsWith',
  NOT_ENDSWITH: 'notEndsWith',
}
const NEGATED: Partial<Record<Operator, Operator>> = {
  in: 'notIn',
  like: 'notLike',
  contains: 'notContains',
  startsWith: 'notStartsWith',
  endsWith: 'notEndsWith',
}
const LIST_OPERATORS = new Set<Operator>([
  'in',
  'notIn',
  'contains',
  'notContains',
  'like',
  'notLike',
  'startsWith',
  'notStartsWith',
  'endsWith',
  'notEndsWith',
])
const RESERVED = new Set(['AND', 'OR', 'NOT', 'IN', 'IS', 'NULL', 'TRUE', 'FALSE', 'TODAY'])

export const DATE_UNITS: Record<string, DateUnit> = {
  MINUTE: 'minute',
  MINUTES: 'minute',
  HOUR: 'hour',
  HOURS: 'hour',
  DAY: 'day',
  DAYS: 'day',
  WEEK: 'week',
  WEEKS: 'week',
  MONTH: 'month',
  MONTHS: 'month',
  YEAR: 'year',
  YEARS: 'year',
}

/** Parses TQL text into an AST, or throws a TqlError naming the column. */
export function parseTql(text: string): Node {
  return new Parser(tokenize(text)).parseQuery()
}

class Parser {
  private index = 0
  private depth = 0
  private values = 0
  private conditions = 0

  constructor(private readonly tokens: Token[]) {}

  parseQuery(): Node {
    if (this.peek().type === 'end') throw syntaxError(0, 'the query is empty')
    const node = this.parseOr()
    const next = this.peek()
    if (next.type !== 'end') {
      if (next.type === 'symbol' && next.text === ')') throw syntaxError(next.at, "unexpected ')' with no matching '('")
      throw syntaxError(next.at, `expected AND or OR before ${describe(next)}`)
    }
    return node
  }

  private parseOr(): Node {
    let node = this.parseAnd()
    while (this.isWord('OR')) {
      this.index++
      node = { kind: 'or', left: node, right: this.parseAnd() }
    }
    return node
  }

  private parseAnd(): Node {
    let node = this.parsePrimary()
    while (this.isWord('AND')) {
      this.index++
      node = { kind: 'and', left: node, right: this.parsePrimary() }
    }
    return node
  }

  private parsePrimary(): Node {
    const token = this.peek()
    if (token.type === 'symbol' && token.text === '(') {
      this.index++
      const node = this.nested(() => this.parseOr())
      this.expectClose(token)
      return node
    }
    if (token.type !== 'word' || RESERVED.has(token.text.toUpperCase())) {
      throw syntaxError(
        token.at,
        `expected a keyword${token.type === 'end' ? ' but the query ended' : `, found ${describe(token)}`}`,
      )
    }
    if (++this.conditions > MAX_CONDITIONS)
      throw syntaxError(token.at, `too many conditions (at most ${MAX_CONDITIONS})`)
    this.index++
    const keyword = { name: token.text, at: token.at }
    const open = this.peek()
    if (open.type === 'symbol' && open.text === '(') {
      this.index++
      if (this.isSymbol(')')) throw syntaxError(this.peek().at, `expected a query inside ${token.text}(…)`)
      const query = this.nested(() => this.parseOr())
      this.expectClose(open)
      return { kind: 'nested', keyword, query }
    }
    const operatorAt = this.peek().at
    const start = this.index
    const operator = this.parseOperator(token.text)
    if (operator === 'isNull' || operator === 'isNotNull')
      return { kind: 'compare', keyword, operator, operatorAt, value: null }
    const operatorText = this.tokens
      .slice(start, this.index)
      .map((t) => t.text)
      .join(' ')
    if (this.isWord('NULL') && (operator === 'eq' || operator === 'ne')) {
      this.index++
      return { kind: 'compare', keyword, operator: operator === 'eq' ? 'isNull' : 'isNotNull', operatorAt, value: null }
    }
    if (this.isSymbol('(')) {
      if (!LIST_OPERATORS.has(operator))
        throw syntaxError(this.peek().at, `a list of values needs IN or NOT IN, not '${operatorText}'`)
      return { kind: 'compare', keyword, operator, operatorAt, value: this.parseList(operatorText) }
    }
    if (operator === 'in' || operator === 'notIn')
      throw syntaxError(this.peek().at, `expected '(' and a list of values after '${operatorText}'`)
    return { kind: 'compare', keyword, operator, operatorAt, value: this.parseValue(operatorText) }
  }

  private parseOperator(keyword: string): Operator {
    const token = this.peek()
    if (token.type === 'symbol' && SYMBOL_OPERATORS[token.text]) {
      this.index++
      return SYMBOL_OPERATORS[token.text]
    }
    if (token.type === 'word') {
      const word = token.text.toUpperCase()
      if (WORD_OPERATORS[word]) {
        this.index++
        return WORD_OPERATORS[word]
      }
      if (word === 'NOT') {
        this.index++
        const next = this.peek()
        const positive = next.type === 'word' ? WORD_OPERATORS[next.text.toUpperCase()] : undefined
        const negated = positive ? NEGATED[positive] : undefined
        if (!negated) throw syntaxError(next.at, 'expected IN, LIKE, CONTAINS, STARTSWITH or ENDSWITH after NOT')
        this.index++
        return negated
      }
      if (word === 'IS') {
        this.index++
        const not = this.isWord('NOT')
        if (not) this.index++
        if (!this.isWord('NULL')) throw syntaxError(this.peek().at, `expected NULL after 'IS${not ? ' NOT' : ''}'`)
        this.index++
        return not ? 'isNotNull' : 'isNull'
      }
    }
    throw syntaxError(
      token.at,
      `expected an operator after '${keyword}'${token.type === 'end' ? ' but the query ended' : `, found ${describe(token)}`}`,
    )
  }

  private parseList(operatorText: string): Value[] {
    const open = this.peek()
    this.index++
    const values: Value[] = [this.parseValue(`${operatorText} (`)]
    while (this.isSymbol(',')) {
      this.index++
      values.push(this.parseValue(','))
    }
    this.expectClose(open)
    return values
  }

  private parseValue(after: string): Value {
    if (++this.values > MAX_VALUES) throw syntaxError(this.peek().at, `too many values (at most ${MAX_VALUES})`)
    const token = this.peek()
    const missing = () =>
      syntaxError(
        token.at,
        `expected a value after '${after}'${token.type === 'end' ? ' but the query ended' : `, found ${describe(token)}`}`,
      )
    if (token.type === 'string') {
      this.index++
      return { kind: 'string', value: token.text, at: token.at }
    }
    if (token.type === 'number') {
      this.index++
      return { kind: 'number', value: Number(token.text), text: token.text, at: token.at }
    }
    if (token.type === 'symbol' && token.text === '-' && this.tokens[this.index + 1]?.type === 'number') {
      const number = this.tokens[this.index + 1]
      this.index += 2
      return { kind: 'number', value: -Number(number.text), text: `-${number.text}`, at: token.at }
    }
    if (token.type !== 'word') throw missing()
    const word = token.text.toUpperCase()
    if (word === 'TRUE' || word === 'FALSE') {
      this.index++
      return { kind: 'boolean', value: word === 'TRUE', at: token.at }
    }
    if (word === 'TODAY') return this.parseToday()
    if (RESERVED.has(word)) throw missing()
    this.index++
    return { kind: 'word', value: token.text, at: token.at }
  }

  private parseToday(): Value {
    const today = this.peek()
    this.index++
    if (!this.isSymbol('(')) throw syntaxError(this.peek().at, "expected '()' after TODAY")
    this.index++
    if (!this.isSymbol(')')) throw syntaxError(this.peek().at, "expected ')' after 'TODAY('")
    this.index++
    if (!this.isSymbol('+') && !this.isSymbol('-')) return { kind: 'today', amount: 0, unit: null, at: today.at }
    const sign = this.peek().text === '-' ? -1 : 1
    this.index++
    const amount = this.peek()
    if (amount.type !== 'number' || !/^\d+$/.test(amount.text))
      throw syntaxError(amount.at, `expected a whole number after 'TODAY() ${sign < 0 ? '-' : '+'}'`)
    this.index++
    const unitToken = this.peek()
    const unit = unitToken.type === 'word' ? DATE_UNITS[unitToken.text.toUpperCase()] : undefined
    if (!unit) throw syntaxError(unitToken.at, 'expected a unit (MINUTES, HOURS, DAYS, WEEKS, MONTHS or YEARS)')
    this.index++
    return { kind: 'today', amount: sign * Number(amount.text), unit, at: today.at }
  }

  private nested<T>(parse: () => T): T {
    if (++this.depth > MAX_DEPTH)
      throw syntaxError(this.peek().at, `the query is nested too deeply (at most ${MAX_DEPTH} levels)`)
    const result = parse()
    this.depth--
    return result
  }

  private expectClose(open: Token): void {
    if (!this.isSymbol(')')) {
      const token = this.peek()
      throw syntaxError(
        token.at,
        `expected ')' to close the '(' at column ${open.at + 1}${token.type === 'end' ? ' but the query ended' : `, found ${describe(token)}`}`,
      )
    }
    this.index++
  }

  private peek(): Token {
    return this.tokens[this.index]
  }

  private isWord(word: string): boolean {
    const token = this.peek()
    return token.type === 'word' && token.text.toUpperCase() === word
  }

  private isSymbol(symbol: string): boolean {
    const token = this.peek()
    return token.type === 'symbol' && token.text === symbol
  }
}

function describe(token: Token): string {
  if (token.type === 'end') return 'the end of the query'
  if (token.type === 'string')
    return `the string '${token.text.length > 30 ? `${token.text.slice(0, 30)}…` : token.text}'`
  return `'${token.text}'`
}

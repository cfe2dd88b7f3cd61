/**
 * Splits TQL text into tokens that remember where they start. Strings may be quoted with
 * ' " or `; inside them a backslash escapes ' " ` and \ (any other backslash is kept as
 * written, so Windows paths and registry keys need no doubling).
 */
import { syntaxError } from './errors.js'

export type TokenType = 'word' | 'string' | 'number' | 'symbol' | 'end'

export interface Token {
  type: TokenType
  /** The unescaped text for strings; the text as written otherwise. */
  text: string
  at: number
}

const SYMBOLS = ['!=', '<>', '>=', '<=', '==', '=', '>', '<', '(', ')', ',', '+', '-']
const ESCAPABLE = new Set(["'", '"', '`', '\\'])
const WORD_START = /[A-Za-z_]/
const WORD_PART = /[A-Za-z0-9_]/
const DIGIT = /[0-9]/

export function tokenize(text: string): Token[] {
  const tokens: Token[] = []
  let i = 0
  while (i < text.length) {
    const ch = text[i]
    if (/\s/.test(ch)) {
      i++
    } else if (ch === "'" || ch === '"' || ch === '`') {
      const start = i
      let value = ''
      i++
      for (;;) {
        if (i >= text.length) throw syntaxError(start, `unterminated string starting with ${ch}`)
        const c = text[i]
        if (c === '\\' && i + 1 < text.length && ESCAPABLE.has(text[i + 1])) {
          value += text[i + 1]
          i += 2
        } else if (c === ch) {
          i++
          break
        } else {
          value += c
          i++
        }
      }
      tokens.push({ type: 'string', text: value, at: start })
    } else if (DIGIT.test(ch)) {
      const start = i
      while (i < text.length && DIGIT.test(text[i])) i++
      if (text[i] === '.' && DIGIT.test(text[i + 1] ?? '')) {
        i++
        while (i < text.length && DIGIT.test(text[i])) i++
      }
      if (i < text.length && WORD_START.test(text[i]))
        throw syntaxError(start, `malformed number '${text.slice(start, i + 1)}'`)
      tokens.push({ type: 'number', text: text.slice(start, i), at: start })
    } else if (WORD_START.test(ch)) {
      const start = i
      while (i < text.length && WORD_PART.test(text[i])) i++
      tokens.push({ type: 'word', text: text.slice(start, i), at: start })
    } else {
      const symbol = SYMBOLS.find((s) => text.startsWith(s, i))
      if (!symbol) throw syntaxError(i, `unexpected character '${ch}'`)
      tokens.push({ type: 'symbol', text: symbol, at: i })
      i += symbol.length
    }
  }
  tokens.push({ type: 'end', text: '', at: text.length })
  return tokens
}

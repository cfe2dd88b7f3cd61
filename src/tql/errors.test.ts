/**
 * Bad TQL gets a TqlError (code 'invalid', so a 400) that says where and what was expected;
 * no input at all makes the compiler crash.
 */
import { describe, expect, it } from 'vitest'
import { DomainError } from '../core/errors.js'
import { TqlError, compileTql } from './index.js'
import { listTqlKeywords } from './index.js'
import { parseTql } from './parser.js'
import { COMPILE_ONLY } from './test-dialects.js'

const NOW = new Date('2026-03-15T10:20:30Z')
const compile = (tql: string, type = 'indicators') => compileTql(type, tql, { dialect: 'sqlite', now: NOW })
const errorOf = (tql: string, type = 'indicators') => {
  try {
    compile(tql, type)
  } catch (error) {
    return error
  }
  throw new Error(`expected ${tql} to fail`)
}

const ERRORS: [tql: string, message: string, type?: string][] = [
  ['rating >== 3', "TQL error at column 10: expected a value after '>=', found '='"],
  ['foo = 1', "Unknown TQL keyword 'foo' for indicators at column 1"],
  ['hasGroup(foo = 1)', "Unknown TQL keyword 'foo' for groups at column 10"],
  ['rating = "abc"', "TQL error at column 10: rating expects an Integer, found 'abc'"],
  ['rating = 2.5', 'TQL error at column 10: rating expects an Integer, found 2.5'],
  ['rating >=', "TQL error at column 10: expected a value after '>=' but the query ended"],
  ['rating', "TQL error at column 7: expected an operator after 'rating' but the query ended"],
  ['= 3', "TQL error at column 1: expected a keyword, found '='"],
  ['rating = 3 and', 'TQL error at column 15: expected a keyword but the query ended'],
  ['rating = 3 rating = 4', "TQL error at column 12: expected AND or OR before 'rating'"],
  ['(rating = 3', "TQL error at column 12: expected ')' to close the '(' at column 1 but the query ended"],
  ['rating = 3)', "TQL error at column 11: unexpected ')' with no matching '('"],
  ['summary = "abc', 'TQL error at column 11: unterminated string starting with "'],
  ['hasGroup()', 'TQL error at column 10: expected a query inside hasGroup(…)'],
  ['rating(id = 1)', "TQL error at column 7: rating does not take a nested query; expected an operator after 'rating'"],
  ['hasGroup > 3', 'TQL error at column 10: hasGroup expects a nested query in parentheses, e.g. hasGroup(id = 1)'],
  ['summary ~ 3', "TQL error at column 9: unexpected character '~'"],
  ['rating contains 3', 'TQL error at column 8: operator CONTAINS cannot be used with rating (Integer)'],
  ['indicatorActive > true', 'TQL error at column 17: operator > cannot be used with indicatorActive (Boolean)'],
  ['dateAdded > "yesterday"', "TQL error at column 13: dateAdded expects a Date, found 'yesterday'"],
  ['dateAdded > 5', 'TQL error at column 13: dateAdded expects a Date, found 5'],
  [
    'dateAdded > TODAY() - 7 FORTNIGHTS',
    'TQL error at column 25: expected a unit (MINUTES, HOURS, DAYS, WEEKS, MONTHS or YEARS)',
  ],
  ['dateAdded > TODAY', "TQL error at column 18: expected '()' after TODAY"],
  [
    'associatedGroupSource = "WEB"',
    "TQL error at column 25: associatedGroupSource expects one of UNKNOWN, MANUAL, API, TQL, DNS, EMAIL, found 'WEB'",
  ],
  [
    'severity = "huge"',
    "TQL error at column 12: severity expects one of Low, Medium, High, Critical, found 'huge'",
    'cases',
  ],
  ['summary = abc', "TQL error at column 11: summary expects a String in quotes, found 'abc'"],
  ['id in 3', "TQL error at column 7: expected '(' and a list of values after 'in'"],
  ['id in ()', "TQL error at column 8: expected a value after 'in (', found ')'"],
  ['summary in ("a", )', "TQL error at column 18: expected a value after ',', found ')'"],
  ['summary is nul', "TQL error at column 12: expected NULL after 'IS'"],
  ['rating not = 3', 'TQL error at column 12: expected IN, LIKE, CONTAINS, STARTSWITH or ENDSWITH after NOT'],
  ['tag = TODAY()', 'TQL error at column 7: tag expects a String, found TODAY()'],
  ['1 = 1', "TQL error at column 1: expected a keyword, found '1'"],
  ['and = 1', "TQL error at column 1: expected a keyword, found 'and'"],
  [
    `${'('.repeat(45)}rating = 1${')'.repeat(45)}`,
    'TQL error at column 42: the query is nested too deeply (at most 40 levels)',
  ],
  ['rating = 1', "TQL is not available for 'widgets'", 'widgets'],
  [
    Array.from({ length: 501 }, () => 'id = 1').join(' or '),
    'TQL error at column 5001: too many conditions (at most 500)',
  ],
]

describe('TQL errors', () => {
  for (const [tql, message, type] of ERRORS) {
    it(`${tql.slice(0, 40)} → ${message}`, () => {
      const error = errorOf(tql, type)
      expect(error).toBeInstanceOf(TqlError)
      expect(error).toBeInstanceOf(DomainError)
      expect((error as DomainError).code).toBe('invalid')
      expect((error as Error).message).toBe(message)
    })
  }

  it('reports the column in the error details', () => {
    expect((errorOf('rating >== 3') as TqlError).details).toEqual({ column: 10 })
  })
})

describe('TQL strings, words and values', () => {
  it('unescapes \\\' \\" \\` and \\\\ and keeps other backslashes as written', () => {
    const node = parseTql(String.raw`summary = 'O\'Brien \"x\" \`y\` a\\b C:\Temp'`)
    expect(node).toMatchObject({ kind: 'compare', value: { kind: 'string', value: 'O\'Brien "x" `y` a\\b C:\\Temp' } })
  })

  it('accepts operators, booleans and TODAY() in any case, and the enum-name spellings of older SDKs', () => {
    for (const tql of [
      'rating GEQ 3 And indicatorActive eq TRUE',
      'rating geq 3 AND indicatoractive = true',
      'summary NOT_STARTS_WITH "x"',
      'summary STARTS_WITH "x"',
      'dateAdded > today() - 1 day',
      'id NOT_IN (1, 2)',
      'typename = "host"',
      'HASGROUP(ID = 1)',
    ]) {
      expect(() => compile(tql), tql).not.toThrow()
    }
  })

  it('treats a TODAY() string like the function', () => {
    expect(JSON.stringify(compile("dateAdded > 'TODAY() - 7 DAYS'").where)).toBe(
      JSON.stringify(compile('dateAdded > TODAY() - 7 DAYS').where),
    )
  })

  it('accepts hasGroup = <id> and hasGroup in (<ids>) as SDKs send them', () => {
    expect(JSON.stringify(compile('hasGroup = 5').where)).toBe(JSON.stringify(compile('hasGroup(id = 5)').where))
    expect(() => compile('hasGroup in (5, 6)')).not.toThrow()
  })
})

describe('TQL never crashes', () => {
  const keywords = listTqlKeywords('indicators').map((k) => k.keyword)
  const pieces = [
    ...keywords.slice(0, 30),
    'hasGroup(',
    'hasTag(',
    '(',
    ')',
    ')',
    ',',
    'and',
    'or',
    'AND',
    'OR',
    'not',
    'NOT',
    'in',
    'IN',
    'is',
    'null',
    'IS NOT NULL',
    '=',
    '!=',
    '>',
    '>=',
    '<',
    '<=',
    'EQ',
    'GEQ',
    'LEQ',
    'contains',
    'startswith',
    'endswith',
    'like',
    '"x"',
    "'y'",
    '`z`',
    '"TODAY() - 7 DAYS"',
    '"2026-01-01"',
    'TODAY()',
    '-',
    '+',
    '7',
    'DAYS',
    '3.5',
    '-2',
    'true',
    'false',
    '"unterminated',
    '\\',
    '"a\\"b"',
    'API',
    '99999999999999999999',
    '1e5',
    '\u0000',
    'é',
    '😀',
    '$1',
    '?',
    ';',
    "'; drop table indicator; --",
  ]
  let seed = 42
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed % n
  }
  const check = (tql: string) => {
    try {
      const dialect = random(2) ? 'sqlite' : 'postgres'
      const { where, table } = compileTql('indicators', tql, { dialect, now: NOW })
      COMPILE_ONLY[dialect].selectFrom(table).select('id').where(where).compile()
    } catch (error) {
      if (!(error instanceof TqlError)) throw new Error(`crashed on ${JSON.stringify(tql)}: ${(error as Error).stack}`)
    }
  }

  it('on random characters', () => {
    const alphabet = 'abcdeRATINGsummary()=!<>"\'`\\, -+0123456789.\t\n%_'
    for (let i = 0; i < 3000; i++)
      check(Array.from({ length: random(40) }, () => alphabet[random(alphabet.length)]).join(''))
  })

  it('on random token soups', () => {
    for (let i = 0; i < 4000; i++)
      check(Array.from({ length: 1 + random(14) }, () => pieces[random(pieces.length)]).join(' '))
  })

  it('on every prefix of valid queries', () => {
    const valid = [
      'typeName in ("Address", "Host") and (rating >= 3 or confidence > 50) and dateAdded > TODAY() - 7 DAYS',
      'hasGroup(typeName = "Incident" and hasTag(name startswith "APT")) or tag not in ("a", \'b\\\'c\')',
      "summary NOT CONTAINS 'x' AND lastSeen IS NOT NULL AND associatedGroupSource = API AND hasAllTags(name in ('a','b'))",
    ]
    for (const tql of valid) {
      expect(() => compile(tql)).not.toThrow()
      for (let end = 0; end < tql.length; end++) check(tql.slice(0, end))
    }
  })

  it('on very long input: a TqlError naming the limit, or a query within the limits', () => {
    const refused = (tql: string, message: RegExp) => {
      expect(() => compileTql('indicators', tql, { dialect: 'sqlite', now: NOW })).toThrow(TqlError)
      expect(() => compileTql('indicators', tql, { dialect: 'postgres', now: NOW })).toThrow(message)
    }
    refused(`id in (${Array.from({ length: 20_000 }, (_, i) => i).join(',')})`, /too many values \(at most 10000\)/)
    refused(Array.from({ length: 2000 }, (_, i) => `rating = ${i}`).join(' or '), /too many conditions \(at most 500\)/)
    refused(
      Array.from({ length: 500 }, (_, i) => `hasGroup(id = ${i})`).join(' and '),
      /too many conditions \(at most 500\)/,
    )
    refused('('.repeat(100_000), /nested too deeply \(at most 40 levels\)/)
    const deep = `${'hasGroup(hasIndicator('.repeat(20)}id = 1${'))'.repeat(20)}`
    const { where, table } = compileTql('indicators', deep, { dialect: 'postgres', now: NOW })
    expect(
      COMPILE_ONLY.postgres
        .selectFrom(table)
        .select('id')
        .where(where)
        .compile()
        .sql.match(/select/gi)?.length,
    ).toBeGreaterThan(20)
  })
})

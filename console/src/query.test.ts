import { describe, expect, it } from 'vitest'
import { planSearch, tqlString } from './query.js'

describe('the search field', () => {
  it.each([
    ['1.2.3[.]4', 'Address', 'typeName = "Address" and summary = "1.2.3.4"'],
    ['hxxp://evil[.]example/x', 'URL', 'typeName = "URL" and summary = "http://evil.example/x"'],
    ['evil[.]example', 'Host', 'typeName = "Host" and summary = "evil.example"'],
    ['bob[@]evil.example', 'EmailAddress', 'typeName = "EmailAddress" and summary = "bob@evil.example"'],
    ['d41d8cd98f00b204e9800998ecf8427e', 'File', 'typeName = "File" and (value1 = "D41D8CD98F00B204E9800998ECF8427E")'],
  ])('reads %s as a value of type %s', (input, type, tql) => {
    expect(planSearch(input)).toMatchObject({ kind: 'value', type, tql })
  })

  it('passes a TQL expression as written', () => {
    expect(planSearch('rating >= 3 and tag = "apt"')).toEqual({ kind: 'tql', tql: 'rating >= 3 and tag = "apt"' })
    expect(planSearch('hasTag(summary = "x")')).toEqual({ kind: 'tql', tql: 'hasTag(summary = "x")' })
    expect(planSearch('typeName in ("Host")')).toEqual({ kind: 'tql', tql: 'typeName in ("Host")' })
  })

  it('looks for other text in summaries, quoted so it cannot change the expression', () => {
    expect(planSearch('mimikatz')).toEqual({ kind: 'text', tql: 'summary contains "mimikatz"' })
    expect(planSearch('  ')).toEqual({ kind: 'empty', tql: '' })
    expect(tqlString('a"b\\c\'d`e')).toBe('"a\\"b\\\\c\\\'d\\`e"')
  })
})

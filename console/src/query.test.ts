import { describe, expect, it } from 'vitest'
import { matchesValue, planSearch, tqlString } from './query.js'

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

describe('a pasted list of values', () => {
  it('is read line by line, defanged values re-fanged, lines that are no value kept with the reason', () => {
    const plan = planSearch('evil[.]example\n1.2.3[.]4\nnot a value\n\nevil.example\nd41d8cd98f00b204e9800998ecf8427e')
    expect(plan.kind).toBe('list')
    if (plan.kind !== 'list') return
    expect(plan.values.map((v) => `${v.type} ${v.summary}`)).toEqual([
      'Host evil.example',
      'Address 1.2.3.4',
      'File D41D8CD98F00B204E9800998ECF8427E',
    ])
    expect(plan.rejected).toEqual([{ text: 'not a value', reason: expect.stringContaining("'not a value'") }])
    expect(plan.tql).toBe(
      '(typeName = "Host" and summary in ("evil.example")) or (typeName = "Address" and summary in ("1.2.3.4")) or ' +
        '(typeName = "File" and (value1 in ("D41D8CD98F00B204E9800998ECF8427E") or value2 in ("D41D8CD98F00B204E9800998ECF8427E") or value3 in ("D41D8CD98F00B204E9800998ECF8427E")))',
    )
  })

  it('is also several items on one line, when one at least is a value', () => {
    const plan = planSearch('evil.example, 1.2.3.4; not a value')
    expect(plan).toMatchObject({ kind: 'list', rejected: [{ text: 'not a value' }] })
    expect(planSearch('evil.example 1.2.3.4').kind).toBe('list')
    expect(planSearch('typeName in ("Host", "URL")').kind).toBe('tql')
    expect(planSearch('mimikatz, lazarus').kind).toBe('text')
  })

  it('matches Indicators to its values, a File by any of its hashes', () => {
    const plan = planSearch('EVIL.example\nd41d8cd98f00b204e9800998ecf8427e')
    if (plan.kind !== 'list') throw new Error('not a list')
    const [host, file] = plan.values
    expect(matchesValue(host, { type: 'Host', summary: 'evil.example' })).toBe(true)
    expect(matchesValue(host, { type: 'URL', summary: 'evil.example' })).toBe(false)
    expect(matchesValue(file, { type: 'File', summary: 'AAAA : D41D8CD98F00B204E9800998ECF8427E' })).toBe(true)
  })
})

import { describe, expect, it } from 'vitest'
import { invalid } from '../core/errors.js'
import { errorResult, renderJson, renderText } from './output.js'

describe('renderJson', () => {
  it('is one line holding one object', () => {
    expect(renderJson({ a: 1, b: [{ c: null }] })).toBe('{"a":1,"b":[{"c":null}]}\n')
  })
})

describe('renderText', () => {
  it('aligns scalars, tabulates lists and indents nested records', () => {
    expect(
      renderText({
        userName: 'svc',
        disabled: false,
        expiresAt: null,
        owners: [
          { id: 1, name: 'Acme' },
          { id: 22, name: 'B' },
        ],
        counts: { owners: 2 },
      }),
    ).toBe(
      [
        'userName:  svc',
        'disabled:  false',
        'expiresAt: -',
        'owners:',
        '  id  name',
        '  --  ----',
        '  1   Acme',
        '  22  B',
        'counts:',
        '  owners: 2',
        '',
      ].join('\n'),
    )
  })

  it('says (none) for an empty list', () => {
    expect(renderText({ users: [] })).toBe('users:\n  (none)\n')
  })
})

describe('errorResult', () => {
  it('keeps the code of a domain error and the message of any other', () => {
    expect(errorResult(invalid('bad'))).toEqual({ error: 'bad', code: 'invalid' })
    expect(errorResult(new Error('boom'))).toEqual({ error: 'boom' })
    expect(errorResult('text')).toEqual({ error: 'text' })
  })
})

import { describe, expect, it } from 'vitest'
import { booleanValue, readBoolean } from './input.js'

describe('readBoolean, the one reading of true/false', () => {
  it('accepts JSON booleans, 1 and 0, and the text true/false/1/0 in any case with blanks around', () => {
    for (const yes of [true, 1, 'true', 'TRUE', ' True ', '1']) expect(readBoolean(yes)).toBe(true)
    for (const no of [false, 0, 'false', 'False', ' 0 ']) expect(readBoolean(no)).toBe(false)
  })

  it('reads nothing else as a boolean', () => {
    for (const other of ['', 'yes', 'no', 'on', 2, -1, null, undefined, {}, []])
      expect(readBoolean(other)).toBeUndefined()
  })

  it('booleanValue: absent is undefined, anything not true/false a 400 naming the field and the value', () => {
    expect(booleanValue(undefined, 'active')).toBeUndefined()
    expect(booleanValue(null, 'active')).toBeUndefined()
    expect(booleanValue('1', 'active')).toBe(true)
    expect(() => booleanValue('maybe', 'active')).toThrow("active must be true or false, not 'maybe'")
  })
})

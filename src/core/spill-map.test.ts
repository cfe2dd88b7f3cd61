import { describe, expect, it } from 'vitest'
import { SpillMap } from './spill-map.js'

describe('SpillMap', () => {
  it('keeps its entries in memory up to its limit, and on disk past it, reading back every one', () => {
    const map = new SpillMap(100)
    for (let i = 0; i < 100; i++) map.set(`key-${i}`, `value-${i}`)
    expect(map.onDisk).toBe(false)
    for (let i = 100; i < 5_000; i++) map.set(`key-${i}`, `value-${i}`)
    expect(map.onDisk).toBe(true)
    expect(map.get('key-0')).toBe('value-0')
    expect(map.get('key-99')).toBe('value-99')
    expect(map.get('key-4999')).toBe('value-4999')
    expect(map.get('key-5000')).toBeUndefined()
    map.close()
  })

  it('replaces a value set again, in memory and on disk', () => {
    const map = new SpillMap(2)
    map.set('a', 'first')
    map.set('a', 'second')
    expect(map.get('a')).toBe('second')
    map.set('b', '')
    map.set('c', 'x')
    expect(map.onDisk).toBe(true)
    map.set('a', 'third')
    expect(map.get('a')).toBe('third')
    expect(map.get('b')).toBe('')
    map.close()
  })

  it('keeps keys of any code unit, a NUL or a byte above 0x7f among them, apart', () => {
    const map = new SpillMap(0)
    const keys = ['\u0000\u0001', '\u0000\u0002', '\u00ff\u0000', '\u00fe', 'tab\tkey']
    keys.forEach((key, i) => map.set(key, `v${i}`))
    expect(keys.map((key) => map.get(key))).toEqual(['v0', 'v1', 'v2', 'v3', 'v4'])
    expect(map.get('\u0000')).toBeUndefined()
    map.close()
  })

  it('is empty and in memory again once closed', () => {
    const map = new SpillMap(1)
    map.set('a', '1')
    map.set('b', '2')
    map.close()
    expect(map.onDisk).toBe(false)
    expect(map.get('a')).toBeUndefined()
  })
})

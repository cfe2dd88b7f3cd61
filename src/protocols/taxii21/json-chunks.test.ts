import { describe, expect, it } from 'vitest'
import { JsonListWriter } from './json-chunks.js'

describe('JsonListWriter', () => {
  const texts = ['"a"', '"é中😀"', '{"x":"\\u0000"}', '"' + 'y'.repeat(40) + '"', '"\\ud800"', '1']

  it.each([8, 16, 64, 4096])('writes the list exactly, in chunks of at most %i bytes unless one element is larger', (size) => {
    const list = new JsonListWriter(size)
    for (const text of texts) list.add(text)
    expect(list.count).toBe(texts.length)
    const chunks = list.finish('{"more":false,"objects":[', ']}')
    expect(Buffer.concat(chunks).toString('utf8')).toBe(`{"more":false,"objects":[${texts.join(',')}]}`)
    // The largest element may take 3 bytes a character and a comma.
    for (const chunk of chunks.slice(1, -1)) expect(chunk.length).toBeLessThanOrEqual(Math.max(size, 3 * 42 + 1))
    if (size === 8) expect(chunks.length).toBeGreaterThan(3)
    expect(chunks.every((c) => c.length > 0)).toBe(true)
  })

  it('holds a small list in one chunk between its ends, and an empty one in none', () => {
    const list = new JsonListWriter()
    list.add('0')
    list.add('1')
    expect(list.finish('[', ']').map((c) => c.toString())).toEqual(['[', '0,1', ']'])
    expect(new JsonListWriter().finish('[', ']').map((c) => c.toString())).toEqual(['[', ']'])
  })
})

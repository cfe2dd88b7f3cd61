import { describe, expect, it } from 'vitest'
import { jsonListChunks } from './json-chunks.js'

describe('jsonListChunks', () => {
  const texts = ['"a"', '"é中😀"', '{"x":"\\u0000"}', '"' + 'y'.repeat(40) + '"', '"\\ud800"', '1']

  it.each([8, 16, 64, 4096])('writes the list exactly, in chunks of at most %i bytes unless one element is larger', (size) => {
    const chunks = [...jsonListChunks('{"more":false,"objects":[', texts.length, (i) => texts[i], ']}', size)]
    expect(Buffer.concat(chunks).toString('utf8')).toBe(`{"more":false,"objects":[${texts.join(',')}]}`)
    // The largest element may take 3 bytes a character and a comma.
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(Math.max(size, 3 * 42 + 1))
    if (size === 8) expect(chunks.length).toBeGreaterThan(1)
    expect(chunks.every((c) => c.length > 0)).toBe(true)
  })

  it('holds a small list in one chunk', () => {
    const chunks = [...jsonListChunks('[', 2, (i) => String(i), ']')]
    expect(chunks.map((c) => c.toString())).toEqual(['[0,1]'])
  })
})

import { describe, expect, it } from 'vitest'
import { JsonListWriter } from './json-chunks.js'

describe('JsonListWriter', () => {
  const texts = ['"a"', '"é中😀"', '{"x":"\\u0000"}', '"' + 'y'.repeat(40) + '"', '"\\ud800"', '1']

  it.each([8, 16, 64, 4096])(
    'writes the envelope exactly, in chunks of at most %i bytes unless one element is larger',
    (size) => {
      const list = new JsonListWriter('{"more":false}', 'objects', size)
      for (const text of texts) list.add(text)
      expect(list.count).toBe(texts.length)
      const chunks = list.finish()
      expect(Buffer.concat(chunks).toString('utf8')).toBe(`{"more":false,"objects":[${texts.join(',')}]}`)
      // The largest element may take 3 bytes a character and a comma.
      for (const chunk of chunks.slice(1, -1)) expect(chunk.length).toBeLessThanOrEqual(Math.max(size, 3 * 42 + 3))
      if (size === 8) expect(chunks.length).toBeGreaterThan(3)
      expect(chunks.every((c) => c.length > 0)).toBe(true)
    },
  )

  it('hands over each filled chunk once, in order, while the list grows', () => {
    const list = new JsonListWriter('{}', 'objects', 16)
    const taken: Buffer[] = []
    for (let i = 0; i < 40; i++) {
      list.add(`"element ${i}"`)
      taken.push(...list.takeFilled())
    }
    expect(taken.length).toBeGreaterThan(20)
    expect(list.takeFilled()).toEqual([])
    const all = Buffer.concat([...taken, ...list.finish()]).toString('utf8')
    expect(JSON.parse(all)).toEqual({ objects: Array.from({ length: 40 }, (_, i) => `element ${i}`) })
  })

  it('leaves an empty list out, keeping the head as it is', () => {
    expect(new JsonListWriter('{"more":false}', 'objects').finish().map((c) => c.toString())).toEqual([
      '{"more":false}',
    ])
    expect(new JsonListWriter('{}', 'objects').finish().map((c) => c.toString())).toEqual(['{}'])
  })

  it('holds a small list in one chunk before its end', () => {
    const list = new JsonListWriter('{"more":true,"next":"x"}', 'objects')
    list.add('0')
    list.add('1')
    expect(list.finish().map((c) => c.toString())).toEqual(['{"more":true,"next":"x","objects":[0,1', ']}'])
  })
})

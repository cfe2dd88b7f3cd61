/**
 * The streaming reader of a JSON file's array: elements split exactly where JSON puts them
 * (strings, escapes and nesting included, across read chunks), the other top-level strings kept,
 * a broken or truncated file reported, and memory bounded by one element, not the file.
 */
import { createReadStream, mkdtempSync, rmSync, writeFileSync, createWriteStream } from 'node:fs'
import { once } from 'node:events'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { type ArrayElement, JsonArrayReader, MAX_ELEMENT_CHARS } from './json-array-stream.js'

const dir = mkdtempSync(join(tmpdir(), 'bulwark-json-stream-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A file's text in the chunks the import reads it in. */
const chunks = (file: string) => createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 16 })

async function read(text: string, key = 'objects') {
  const file = join(dir, `f${Math.random()}.json`)
  writeFileSync(file, text)
  const reader = new JsonArrayReader(chunks(file), key)
  const elements: ArrayElement[] = []
  for await (const e of reader.elements()) elements.push(e)
  return { reader, elements }
}

describe('JsonArrayReader', () => {
  it('yields each element of the named array as its text, whatever strings, escapes and nesting hold', async () => {
    const objects = [{ a: 'x,]}"\\', n: [1, [2, { b: '{' }]] }, 'plain', 3, null, { 'q"uote': '\u00fc\ud83e\udda0' }]
    const doc = { type: 'bundle', before: { objects: ['not this'] }, objects, id: 'bundle--1', after: [1, 2] }
    const { reader, elements } = await read(`\ufeff  ${JSON.stringify(doc, null, 1)}`)
    expect(elements.map((e) => ('text' in e ? JSON.parse(e.text) : e))).toEqual(objects)
    expect(elements.map((e) => e.index)).toEqual([0, 1, 2, 3, 4])
    expect(reader.strings).toEqual(
      new Map([
        ['type', 'bundle'],
        ['id', 'bundle--1'],
      ]),
    )
    expect(reader.found && reader.completed).toBe(true)
  })

  it('reads an empty array, a document without it, and splits elements across read chunks', async () => {
    expect((await read('{"objects":[]}')).elements).toEqual([])
    const missing = await read('{"indicator":[{"a":1}]}')
    expect([missing.reader.found, missing.elements]).toEqual([false, []])
    const long = Array.from({ length: 3000 }, (_, i) => ({ summary: `h${i}.example`, pad: 'é'.repeat(i % 50) }))
    const { elements } = await read(JSON.stringify({ indicator: long }), 'indicator')
    expect(elements.map((e) => ('text' in e ? JSON.parse(e.text) : e))).toEqual(long)
  })

  it('reports an element that is too long by its place and goes on', async () => {
    const { elements } = await read(
      JSON.stringify({ objects: [{ a: 1 }, 'x'.repeat(MAX_ELEMENT_CHARS + 10), { b: 2 }] }),
    )
    expect(elements).toEqual([
      { index: 0, text: '{"a":1}' },
      { index: 1, error: `longer than ${MAX_ELEMENT_CHARS} characters` },
      { index: 2, text: '{"b":2}' },
    ])
  })

  it('refuses a file that is not a JSON object, and says when one ends early', async () => {
    await expect(read('[1,2]')).rejects.toThrow('The file is not a JSON object')
    await expect(read('   ')).rejects.toThrow('The file is empty')
    const partial: ArrayElement[] = []
    const file = join(dir, 'cut.json')
    writeFileSync(file, '{"objects":[{"a":1},{"b":2},{"c"')
    await expect(
      (async () => {
        for await (const e of new JsonArrayReader(chunks(file), 'objects').elements()) partial.push(e)
      })(),
    ).rejects.toThrow('The file ends before its JSON document does')
    expect(partial).toEqual([
      { index: 0, text: '{"a":1}' },
      { index: 1, text: '{"b":2}' },
    ])
  })

  it('holds one element at a time: 150,000 objects (about 45 MB) read with the heap growing far less than the file', async () => {
    const file = join(dir, 'big.json')
    const out = createWriteStream(file)
    out.write('{"type":"bundle","objects":[')
    const object = (i: number) =>
      JSON.stringify({
        type: 'indicator',
        spec_version: '2.1',
        id: `indicator--${String(i).padStart(12, '0')}`,
        pattern: `[domain-name:value = 'h${i}.example']`,
        pattern_type: 'stix',
        labels: ['a', 'b'],
        description: 'd'.repeat(150),
      })
    for (let i = 0; i < 150_000; i++) if (!out.write(`${i ? ',' : ''}${object(i)}`)) await once(out, 'drain')
    out.end(']}')
    await once(out, 'close')
    globalThis.gc?.()
    const before = process.memoryUsage().heapUsed
    let peak = before
    let count = 0
    for await (const e of new JsonArrayReader(chunks(file), 'objects').elements()) {
      if ('text' in e) count++
      if (count % 5000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed)
    }
    expect(count).toBe(150_000)
    // Garbage not yet collected counts here; a reader holding the file would add ≥ 90 MB (UTF-16).
    expect(peak - before).toBeLessThan(40 * 1024 * 1024)
  }, 60_000)
})

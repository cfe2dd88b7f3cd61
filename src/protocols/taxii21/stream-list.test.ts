import { describe, expect, it } from 'vitest'
import type { Item } from './content.js'
import { streamList } from './routes.js'

const item = (n: number) => ({ json: () => JSON.stringify({ id: `indicator--${n}` }) }) as unknown as Item
const batchesOf = (count: number, size: number) =>
  Array.from({ length: count }, (_, b) => Array.from({ length: size }, (_, i) => item(b * size + i)))

/** Turns of the event loop (setImmediate callbacks) run while `work` runs. */
async function turnsDuring(work: () => Promise<unknown>): Promise<number> {
  let turns = 0
  let counting = true
  const tick = () => {
    if (!counting) return
    turns++
    setImmediate(tick)
  }
  setImmediate(tick)
  await work()
  counting = false
  return turns
}

async function body(stream: NodeJS.ReadableStream): Promise<string> {
  let text = ''
  for await (const chunk of stream) text += chunk.toString()
  return text
}

describe('a TAXII page streamed batch after batch', () => {
  it('hands the event loop to other requests between batches, so a long page does not hold it throughout', async () => {
    let text = ''
    const turns = await turnsDuring(async () => {
      text = await body(streamList({ more: false }, batchesOf(5, 2000), (i) => i.json()))
    })
    expect(JSON.parse(text).objects).toHaveLength(10_000)
    expect(turns).toBeGreaterThanOrEqual(4)
  })

  it('writes the envelope whole and in order', async () => {
    const text = await body(streamList({ more: true, next: 'x' }, batchesOf(3, 2), (i) => i.json()))
    expect(JSON.parse(text)).toEqual({
      more: true,
      next: 'x',
      objects: [0, 1, 2, 3, 4, 5].map((n) => ({ id: `indicator--${n}` })),
    })
  })
})

import { describe, expect, it } from 'vitest'
import { type ItemList, forEachInTurns, scanBatchInput, scanBatchInputInTurns } from './input-scan.js'

const all = (list: ItemList) => list.slice(0, list.length)

describe('batch input read in pieces', () => {
  it('scans in slices between which a job lets requests through, finding the same items', async () => {
    // About 1.3 MB: five slices of 256 kB, so the scan pauses four times.
    const text = JSON.stringify({
      indicator: Array.from({ length: 20_000 }, (_, i) => ({ type: 'Host', summary: `host-${i}.example`, rating: 3 })),
      group: [{ type: 'Adversary', name: 'G', xid: 'g' }],
    })
    let turns = 0
    const scanned = (await scanBatchInputInTurns(text, async () => void turns++))!
    expect(turns).toBe(Math.floor((text.length - 1) / (256 * 1024)))
    const whole = scanBatchInput(text)!
    expect(scanned.indicator.length).toBe(20_000)
    expect(all(scanned.indicator)).toEqual(all(whole.indicator))
    expect(all(scanned.group)).toEqual([{ type: 'Adversary', name: 'G', xid: 'g' }])
    expect(await scanBatchInputInTurns('{"indicator": 1}', async () => undefined)).toBeUndefined()
  })

  it('walks a list in pieces of 500, in order, with a turn between pieces', async () => {
    const text = JSON.stringify({ indicator: Array.from({ length: 1201 }, (_, i) => ({ summary: `s${i}` })) })
    const seen: string[] = []
    let turns = 0
    await forEachInTurns(
      scanBatchInput(text)!.indicator,
      (item, index) => seen.push(`${index}:${(item as { summary: string }).summary}`),
      async () => void turns++,
    )
    expect(seen).toEqual(Array.from({ length: 1201 }, (_, i) => `${i}:s${i}`))
    expect(turns).toBe(2)
  })

  it('finds the same items JSON.parse does, and parses only the range asked for', () => {
    const files = [
      '{"indicator":[{"type":"Host","summary":"a.example","tag":[{"name":"x"}]},{"type":"URL","summary":"https://b.example/?q=[1,{2}]"}]}',
      ' \n{ "group" : [ {"type":"Adversary","name":"A \\"quoted\\" \\u00e9 name","xid":"g1"} , 1, -2.5e3, true, null, "s", [] ] ,\t"association":null }\r\n',
      '{"indicator":[],"group":[{"nested":{"deep":[[[{"a":[]}]]]}}],"unrelated":{"indicator":"not a list here"}}',
      '{"indicator":[{"attribute":[{"type":"Description","valu\\u0065":"escaped nested key","toStrinG":1,"__proto":2}]}]}',
      '{"indic\\u0061tor":[{"summary":"escaped key"}]}',
      '{"indicator":[{"summary":"first"}],"indicator":[{"summary":"last wins"}]}',
      '{}',
    ]
    for (const text of files) {
      const parsed = JSON.parse(text) as Record<string, unknown[] | null | undefined>
      const scanned = scanBatchInput(text)!
      expect(scanned, text).toBeDefined()
      for (const name of ['indicator', 'group', 'association'] as const)
        expect(all(scanned[name])).toEqual(parsed[name] ?? [])
    }
    const text = JSON.stringify({
      indicator: Array.from({ length: 5000 }, (_, i) => ({ type: 'Host', summary: `h${i}.example` })),
    })
    const items = scanBatchInput(text)!.indicator
    expect(items.length).toBe(5000)
    expect(items.slice(2000, 2003)).toEqual([
      { type: 'Host', summary: 'h2000.example' },
      { type: 'Host', summary: 'h2001.example' },
      { type: 'Host', summary: 'h2002.example' },
    ])
    expect(items.slice(4999, 7000)).toEqual([{ type: 'Host', summary: 'h4999.example' }])
    const seen: number[] = []
    items.forEach((item, i) => {
      if ((item as { summary: string }).summary !== `h${i}.example`) throw new Error(`item ${i}`)
      seen.push(i)
    })
    expect(seen).toHaveLength(5000)
  })

  it('leaves every text the full read refuses to that read', () => {
    const refused = [
      '',
      'null',
      '[]',
      '"text"',
      '{"indicator":[1,]}',
      '{"indicator":[1] ',
      '{"indicator":[tru]}',
      '{"indicator":[01]}',
      '{"indicator":["a\u0001b"]}',
      '{"indicator":["\\x"]}',
      '{"indicator":[1]}}',
      '{"indicator":{}}',
      '{"indicator":"x"}',
      '{"group":[{"__proto__":{}}]}',
      '{"group":[{"constructor":1}]}',
      '{"indicator":[{"attribute":[{"valueOf":1}]}]}',
      '{"indicator":[{"attribute":[{"\\u0063onstructor":1}]}]}',
      '{"__proto__":[]}',
      `{"indicator":[${'['.repeat(70)}${']'.repeat(70)}]}`,
      '{"indicator":[1] "group":[]}',
      '{"a" 1}',
      '\ufeff{"indicator":[]}',
    ]
    for (const text of refused) expect(scanBatchInput(text), text).toBeUndefined()
  })

  it('says whether the text can hold inline associations', () => {
    expect(scanBatchInput('{"indicator":[{"summary":"a"}]}')!.inlineAssociations).toBe(false)
    expect(
      scanBatchInput('{"indicator":[{"summary":"a","associatedGroups":[{"groupXid":"g"}]}]}')!.inlineAssociations,
    ).toBe(true)
    expect(scanBatchInput('{"indicator":[{"summary":"a","\\u0061ssociatedGroups":[]}]}')!.inlineAssociations).toBe(true)
  })
})

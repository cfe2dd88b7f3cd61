import { describe, expect, it } from 'vitest'
import { type ItemList, scanBatchInput } from './input-scan.js'

const all = (list: ItemList) => list.slice(0, list.length)

describe('batch input read in pieces', () => {
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

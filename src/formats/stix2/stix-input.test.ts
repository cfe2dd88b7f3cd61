/**
 * Reading STIX 2.0 and 2.1 whatever holds the objects (a bundle, an array, JSON Lines, one bare
 * object), told from the content; each object's Indicators or its refusal by its place; a file cut
 * short or a broken line costs only what it breaks.
 */
import { describe, expect, it } from 'vitest'
import type { ReadEvent } from '../format.js'
import { detectFormat } from '../index.js'
import { stixBundle } from './bundle.js'

const NOW = '2026-06-01T00:00:00.000Z'

async function readText(text: string, chunk = 7): Promise<ReadEvent[]> {
  async function* chunks() {
    for (let i = 0; i < text.length; i += chunk) yield text.slice(i, i + chunk)
  }
  const events: ReadEvent[] = []
  for await (const e of stixBundle.reader!.read(chunks(), { name: 'in.json', now: NOW })) events.push(e)
  return events
}

const indicator = (n: number, extra: Record<string, unknown> = {}) => ({
  type: 'indicator',
  id: `indicator--00000000-0000-4000-8000-00000000000${n}`,
  created: '2021-03-01T00:00:00.000Z',
  modified: '2021-03-02T00:00:00.000Z',
  pattern: `[domain-name:value = 'h${n}.example']`,
  valid_from: '2021-03-01T00:00:00Z',
  ...extra,
})

const summaries = (events: ReadEvent[]) =>
  events.flatMap((e) =>
    e.kind === 'element' ? e.indicators.map((i) => `${i.where} ${(i.indicator as { summary: string }).summary}`) : [],
  )
const errors = (events: ReadEvent[]) =>
  events.flatMap((e) => (e.kind === 'input' ? [`(input) ${e.error}`] : e.error ? [`${e.where} ${e.error}`] : []))

describe('STIX input', () => {
  it('reads a bundle, an array, JSON Lines and a bare object alike, naming each object by its place', async () => {
    const objects = [indicator(1), indicator(2)]
    expect(summaries(await readText(JSON.stringify({ type: 'bundle', id: 'bundle--1', objects }, null, 2)))).toEqual([
      'objects[0] h1.example',
      'objects[1] h2.example',
    ])
    expect(summaries(await readText(JSON.stringify(objects)))).toEqual(['[0] h1.example', '[1] h2.example'])
    expect(summaries(await readText(objects.map((o) => JSON.stringify(o)).join('\n\n')))).toEqual([
      'line 1 h1.example',
      'line 3 h2.example',
    ])
    expect(summaries(await readText(JSON.stringify(indicator(3), null, 2)))).toEqual(['the object h3.example'])
  })

  it('keeps the STIX id, the source dates and the hashes without a column; a past valid_until comes in inactive', async () => {
    const [event] = await readText(
      JSON.stringify(
        indicator(1, {
          spec_version: '2.1',
          pattern_type: 'stix',
          valid_until: '2022-01-01T00:00:00Z',
          pattern: "[file:hashes.MD5 = 'd41d8cd98f00b204e9800998ecf8427e' OR file:hashes.'SHA-512' = 'ab']",
        }),
      ),
    )
    expect(event.kind === 'element' && event.indicators.map((i) => i.indicator)).toEqual([
      {
        type: 'File',
        summary: 'd41d8cd98f00b204e9800998ecf8427e',
        value1: 'd41d8cd98f00b204e9800998ecf8427e',
        firstSeen: '2021-03-01T00:00:00Z',
        externalDateAdded: '2021-03-01T00:00:00.000Z',
        externalLastModified: '2021-03-02T00:00:00.000Z',
        externalDateExpires: '2022-01-01T00:00:00Z',
        active: false,
        // Its object's only Indicator: served under the object's id.
        stixId: 'indicator--00000000-0000-4000-8000-000000000001',
        attribute: [
          { type: 'External ID', value: 'indicator--00000000-0000-4000-8000-000000000001' },
          { type: 'Additional Analysis and Context', value: "file:hashes.'SHA-512' = 'ab'" },
        ],
      },
    ])
  })

  it('refuses a 2.1 pattern_type other than stix and broken objects by their place, and reads the rest', async () => {
    const events = await readText(
      [
        indicator(1, { spec_version: '2.1', pattern_type: 'yara', pattern: 'rule x {}' }),
        { type: 'relationship', id: 'relationship--1' },
        indicator(2, { pattern: "[domain-name:value = 'h2.example' OR process:command_line = 'x']" }),
      ]
        .map((o) => JSON.stringify(o))
        .join('\n'),
    )
    expect(summaries(events)).toEqual(['line 3 h2.example'])
    expect(errors(events)).toEqual([
      'line 1 indicator--00000000-0000-4000-8000-000000000001: pattern_type yara is not supported (only stix)',
      'line 2 relationship--1: a relationship needs a source_ref and a target_ref',
      'line 3 indicator--00000000-0000-4000-8000-000000000002: not imported from its pattern: process:command_line is not an observable Bulwark holds as an Indicator',
    ])
  })

  it('reports a broken JSON line alone, and a bundle cut short after the objects read before the cut', async () => {
    const lines = [JSON.stringify(indicator(1)), '{"type": "indicator", "id": ', JSON.stringify(indicator(2))]
    const events = await readText(lines.join('\n'))
    expect(summaries(events)).toEqual(['line 1 h1.example', 'line 3 h2.example'])
    expect(errors(events)).toEqual([expect.stringMatching(/^line 2 /)])
    const bundle = JSON.stringify({ type: 'bundle', id: 'bundle--1', objects: [indicator(1), indicator(2)] })
    const cut = await readText(bundle.slice(0, bundle.length - 40))
    expect(summaries(cut)).toEqual(['objects[0] h1.example'])
    expect(errors(cut)).toEqual(['(input) The file ends before its JSON document does'])
  })

  it('keeps names and descriptions verbatim, markup included', async () => {
    const xss = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    const [event] = await readText(JSON.stringify([indicator(1, { name: xss, description: xss })]))
    expect(event.kind === 'element' && (event.indicators[0].indicator as { description: string }).description).toBe(xss)
  })

  it('is detected from the content: JSON Lines, arrays and bare objects with STIX ids, whatever the name', () => {
    const line = JSON.stringify(indicator(1))
    expect(detectFormat('2021-11-10 APT31 - STIX2.jsonl', () => `${line}\n${line}`).name).toBe('stix')
    expect(detectFormat('iocs.json', () => `[${line}`).name).toBe('stix')
    expect(detectFormat('download', () => line).name).toBe('stix')
    expect(detectFormat('iocs.json', () => '[{"type": "Host", "summary": "a.example"}]').name).not.toBe('stix')
  })
})

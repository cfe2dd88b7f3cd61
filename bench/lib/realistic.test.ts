/**
 * The realistic dataset is what it says it is: the type shares and hash combinations, values the types
 * accept and unique per owner and type, a Group for one Indicator in fourteen, files within the default upload
 * limit, owners interleaved, and a tenth of each owner's later jobs re-sending stored Indicators.
 */
import { describe, expect, it } from 'vitest'
import { findIndicatorType, parseSummary } from '../../src/model/indicator-types.js'
import { GROUP_EVERY, realisticGroupCount, realisticIndicator, realisticJobs } from './realistic.js'

const OWNERS = [92_000, 4_000, 4_000]

describe('the realistic dataset (100,000 Indicators over owners of 92/4/4 %)', () => {
  const all = OWNERS.flatMap((n, o) => Array.from({ length: n }, (_, i) => realisticIndicator(o, i, 10)))

  it('has all ten types in the issue’s shares', () => {
    const counts: Record<string, number> = {}
    for (const it of all) counts[it.type] = (counts[it.type] ?? 0) + 1
    expect(counts).toEqual({
      Address: 28_000,
      Host: 24_000,
      URL: 20_000,
      File: 16_000,
      EmailAddress: 5_000,
      CIDR: 2_500,
      'User Agent': 1_500,
      ASN: 1_000,
      Mutex: 1_000,
      'Registry Key': 1_000,
    })
  })

  it('has Files with every hash combination: MD5 only, SHA-1 only, SHA-256 only, all three', () => {
    const combos: Record<string, number> = {}
    for (const it of all.filter((x) => x.type === 'File')) {
      const key = ['MD5', 'SHA-1', 'SHA-256'].filter((_, k) => it.values[k]).join('+')
      combos[key] = (combos[key] ?? 0) + 1
    }
    expect(combos).toEqual({ MD5: 6_400, 'SHA-1': 1_600, 'SHA-256': 4_800, 'MD5+SHA-1+SHA-256': 3_200 })
  })

  it('gives values every type accepts, stored as the raw baseline stores them, unique per owner and type', () => {
    const seen = new Set<string>()
    const problems: string[] = []
    for (const [o, n] of OWNERS.entries()) {
      for (let i = 0; i < n; i++) {
        const it = realisticIndicator(o, i, 10)
        const parsed = parseSummary(findIndicatorType(it.type)!, it.summary)
        const key = `${o}|${it.type}|${it.summary}`
        if (!parsed) problems.push(`refused: ${key}`)
        else if (it.type !== 'Registry Key' && parsed.some((v, k) => (v ?? null) !== it.values[k]))
          problems.push(`stored otherwise: ${key}`)
        if (seen.has(key)) problems.push(`twice: ${key}`)
        seen.add(key)
      }
    }
    expect(problems).toEqual([])
    expect(seen.size).toBe(100_000)
  })

  it('has one tag of 100 and one Description each, and one Indicator in fourteen associated with a Group', () => {
    expect(new Set(all.slice(0, 92_000).map((it) => it.tag[0]!.name)).size).toBe(100)
    expect(all.every((it) => it.tag.length === 1 && it.attribute.length === 1)).toBe(true)
    expect(all.every((it) => it.attribute[0]!.type === 'Description')).toBe(true)
    expect(all.filter((it) => it.associatedGroups).length).toBe(OWNERS.reduce((n, k) => n + Math.ceil(k / 14), 0))
    expect(GROUP_EVERY).toBe(14)
    expect(realisticGroupCount(92_000)).toBe(66)
  })

  it('sends files within 2 MB, owners interleaved, a tenth of each later job re-sending stored Indicators', () => {
    const jobs = [...realisticJobs(OWNERS, 1_950_000, 25_000)]
    expect(jobs.length).toBe(20)
    expect(jobs.map((j) => j.owner)).toEqual([0, 1, 2, ...Array.from({ length: 17 }, () => 0)])
    const newItems = new Map<number, number>()
    for (const [k, job] of jobs.entries()) {
      expect(job.file.length).toBeLessThanOrEqual(1_950_000)
      const body = JSON.parse(job.file) as { indicator: unknown[]; group?: unknown[] }
      expect(body.indicator.length).toBe(job.items)
      const first = jobs.findIndex((j) => j.owner === job.owner) === k
      expect(body.group !== undefined).toBe(first)
      expect(job.updates).toBe(first ? 0 : Math.floor(job.items / 10))
      newItems.set(job.owner, (newItems.get(job.owner) ?? 0) + job.items - job.updates)
    }
    expect([...newItems.entries()].sort()).toEqual([
      [0, 92_000],
      [1, 4_000],
      [2, 4_000],
    ])
    expect(jobs.reduce((n, j) => n + j.updates, 0)).toBe(9_581)
  })

  it('names the new Indicators of each file as one range of its owner, the ranges following each other', () => {
    const jobs = [...realisticJobs(OWNERS, 1_950_000, 25_000)]
    const next = OWNERS.map(() => 0)
    for (const job of jobs) {
      expect(job.first).toBe(next[job.owner])
      expect(job.created).toBe(job.items - job.updates)
      const sent = (JSON.parse(job.file) as { indicator: { summary: string }[] }).indicator.map((it) => it.summary)
      const made = Array.from({ length: job.created }, (_, k) => realisticIndicator(job.owner, job.first + k).summary)
      // Re-sent items are the only ones of the file outside the range.
      const range = new Set(made)
      expect(sent.filter((s) => range.has(s))).toEqual(made)
      next[job.owner]! += job.created
    }
    expect(next).toEqual(OWNERS)
  })
})

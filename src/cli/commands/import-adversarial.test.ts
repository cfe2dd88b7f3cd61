/**
 * `bulwark import` of files written to hurt an importer, run in process over a test app's database:
 * nesting deeper than any document needs, strings longer than any element may be, items that
 * together pass the batch upload limit, one object twice, two versions of one object in either
 * order, and markup in every text field. Each is refused by its place or imported whole; nothing
 * else of the file is lost.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestAccount, type TestApp, createTestApp } from '../../test/harness.js'
import { IMPORT_CHUNK, importCommand } from './import.js'

let t: TestApp
let dir: string
let writer: TestAccount
let fileNumber = 0

const OWNERS = ['nesting', 'sizes', 'duplicates', 'versions', 'markup']

beforeAll(async () => {
  t = await createTestApp()
  dir = mkdtempSync(join(tmpdir(), 'bulwark-hostile-'))
  for (const name of OWNERS) await t.createOwner(`Hostile ${name}`, 'Source')
  writer = await t.createAccount({
    role: 'Standard User',
    memberships: Object.fromEntries(OWNERS.map((n) => [`Hostile ${n}`, 'Editor'])),
  })
}, 120_000)
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true })
  await t?.close()
})

async function run(owner: string, name: string, text: string) {
  const file = join(dir, `${++fileNumber}-${name}`)
  writeFileSync(file, text)
  return importCommand(t.store, t.services, { file, owner: `Hostile ${owner}`, userName: writer.userName })
}

async function indicators(owner: string) {
  return t.store.db
    .selectFrom('indicator')
    .innerJoin('owner', 'owner.id', 'indicator.owner_id')
    .select(['indicator.summary', 'indicator.description', 'indicator.external_last_modified'])
    .where('owner.name', '=', `Hostile ${owner}`)
    .orderBy('indicator.id')
    .execute()
}

let serial = 0
function indicator(domain: string, extra: Record<string, unknown> = {}) {
  return {
    type: 'indicator',
    spec_version: '2.1',
    id: `indicator--00000000-0000-4000-8000-${String(++serial).padStart(12, '0')}`,
    created: '2024-01-01T00:00:00.000Z',
    modified: '2024-01-01T00:00:00.000Z',
    pattern: `[domain-name:value = '${domain}']`,
    pattern_type: 'stix',
    valid_from: '2024-01-01T00:00:00Z',
    ...extra,
  }
}

const bundle = (objects: unknown[]) => JSON.stringify({ type: 'bundle', id: 'bundle--1', objects })

describe('a hostile import', () => {
  it('refuses an object nested deeper than any input may be, by its place, and keeps the others', async () => {
    // Written as text: JSON.stringify itself cannot go this deep.
    const deep = JSON.stringify(indicator('deep.example')).replace(
      /}$/,
      `,"x_deep":${'['.repeat(5_000)}0${']'.repeat(5_000)}}`,
    )
    const text = `{"type":"bundle","objects":[${JSON.stringify(indicator('before.example'))},${deep},${JSON.stringify(indicator('after.example'))}]}`
    const result = await run('nesting', 'deep.json', text)
    expect(result).toMatchObject({ items: 3, successCount: 2, errorCount: 1 })
    expect(result.errors).toEqual([
      { item: 'objects[1]', message: expect.stringMatching(/nested more than \d+ levels/) },
    ])
    expect((await indicators('nesting')).map((r) => r.summary)).toEqual(['before.example', 'after.example'])
  })

  it('refuses an object naming an inherited property, by its place, and pollutes nothing', async () => {
    const poisoned = JSON.stringify(indicator('poisoned.example')).replace(/}$/, ',"__proto__":{"polluted":"yes"}}')
    const text = `{"type":"bundle","objects":[${poisoned},${JSON.stringify(indicator('clean.example'))}]}`
    const result = await run('nesting', 'proto.json', text)
    expect(result.errors).toEqual([
      { item: 'objects[0]', message: expect.stringMatching(/may not hold a key named '__proto__'/) },
    ])
    expect((await indicators('nesting')).map((r) => r.summary)).toContain('clean.example')
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('refuses a string longer than an element may be, and splits jobs by bytes as well as by items', async () => {
    const huge = indicator('huge.example', { description: 'A'.repeat(3_000_000) })
    const many = Array.from({ length: IMPORT_CHUNK }, (_, i) =>
      indicator(`bulky-${i}.example`, { description: `${i} ${'x'.repeat(1_000)}` }),
    )
    const result = await run('sizes', 'sizes.json', bundle([huge, ...many]))
    expect(result.errors).toEqual([{ item: 'objects[0]', message: 'longer than 1000000 characters' }])
    // 5,000 items of 1.2 KB are 6 MB: four uploads of at most 2 MB, every item written.
    expect(result).toMatchObject({ items: IMPORT_CHUNK + 1, jobs: 4, successCount: IMPORT_CHUNK, errorCount: 1 })
    const rows = await indicators('sizes')
    expect(rows).toHaveLength(IMPORT_CHUNK)
    expect(rows[IMPORT_CHUNK - 1].description).toBe(`${IMPORT_CHUNK - 1} ${'x'.repeat(1_000)}`)
  }, 120_000)

  it('refuses an element whose items alone are more than one batch job takes', async () => {
    await t.services.settings.set('batchMaxUploadBytes', '2000')
    try {
      const result = await run(
        'sizes',
        'tight.json',
        bundle([indicator('small.example'), indicator('wordy.example', { description: 'w'.repeat(3_000) })]),
      )
      expect(result.errors).toEqual([
        {
          item: 'objects[1]',
          message: expect.stringMatching(/more than a batch job takes \(setting batchMaxUploadBytes, 2000\)$/),
        },
      ])
      expect((await indicators('sizes')).map((r) => r.summary)).toContain('small.example')
    } finally {
      await t.services.settings.set('batchMaxUploadBytes', '2000000')
    }
  })

  it('writes one Indicator for an object given twice', async () => {
    const twice = indicator('twice.example', { description: 'once' })
    const result = await run('duplicates', 'twice.json', bundle([twice, indicator('other.example'), twice]))
    expect(result).toMatchObject({ items: 3, errorCount: 0 })
    expect((await indicators('duplicates')).map((r) => [r.summary, r.description])).toEqual([
      ['twice.example', 'once'],
      ['other.example', null],
    ])
  })

  it('keeps the newer of two versions of one object in one file, whichever comes first', async () => {
    const older = indicator('v.example', { description: 'older', modified: '2024-02-01T00:00:00.000Z' })
    const newer = { ...older, description: 'newer', modified: '2024-03-01T00:00:00.000Z' }
    await run('versions', 'newer-last.json', bundle([older, newer]))
    const other = indicator('w.example', { description: 'older', modified: '2024-02-01T00:00:00.000Z' })
    await run(
      'versions',
      'newer-first.json',
      bundle([{ ...other, description: 'newer', modified: '2024-03-01T00:00:00.000Z' }, other]),
    )
    expect((await indicators('versions')).map((r) => [r.summary, r.description, r.external_last_modified])).toEqual([
      ['v.example', 'newer', '2024-03-01T00:00:00.000Z'],
      ['w.example', 'newer', '2024-03-01T00:00:00.000Z'],
    ])
  })

  it('keeps markup in every text field as text, in STIX, CSV and plain lists alike', async () => {
    const payloads = [
      '<img src=x onerror=alert(1)>',
      '<script>alert(document.cookie)</script>',
      '"><svg onload=alert(1)>',
      "javascript:alert('x')",
    ]
    await run(
      'markup',
      'markup.json',
      bundle(payloads.map((p, i) => indicator(`stix-${i}.example`, { description: p }))),
    )
    const csv = ['value,description', ...payloads.map((p, i) => `csv-${i}.example,"${p.replace(/"/g, '""')}"`)]
    await run('markup', 'markup.csv', `${csv.join('\n')}\n`)
    const rows = await indicators('markup')
    expect(rows.map((r) => r.description)).toEqual([...payloads, ...payloads])
  })
})

/**
 * `bulwark import` of free text and vendor CSV into a real database (the command in process, over
 * the test harness's store): what the v3 API then serves — types detected, comments as
 * descriptions, the source's dates kept and expired values inactive — and `bulwark export` onto an
 * existing file, refused without --force and replaced whole with it.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { datasetFile, datasetsUnavailable } from '../../test/datasets.js'
import { ORG, type TestApp, createTestApp } from '../../test/harness.js'
import { exportCommand } from './export.js'
import { importCommand } from './import.js'

let t: TestApp
let dir: string

beforeAll(async () => {
  t = await createTestApp()
  dir = mkdtempSync(join(tmpdir(), 'bulwark-import-text-'))
})
afterAll(async () => {
  await t.close()
  rmSync(dir, { recursive: true, force: true })
})

const run = (file: string, extra: { format?: string; type?: string; map?: string } = {}) =>
  importCommand(t.store, t.services, { file, owner: ORG, userName: t.admin.userName, ...extra })

type Served = Record<string, unknown> & { type: string; summary: string }

/** The owner's Indicators as v3 serves them, with their external dates. */
async function served(tql: string): Promise<Served[]> {
  const res = await t.request({
    method: 'GET',
    url: `/api/v3/indicators?tql=${encodeURIComponent(tql)}&fields=externalDates&resultLimit=1000`,
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data
}

const perType = (list: Served[]) => {
  const counts: Record<string, number> = {}
  for (const i of list) counts[i.type] = (counts[i.type] ?? 0) + 1
  return counts
}

describe('bulwark import of a plain list without --type', () => {
  it('detects each type, keeps comments as descriptions, and names the lines of no known type', async () => {
    const file = join(dir, 'c2.txt')
    writeFileSync(
      file,
      '# C2 list\n\n198.51.100.17;65\nc2-list.example # panel\nhxxp://c2-list[.]example/gate.php\nIP;65\nnss3.dll\n',
    )
    const result = await run(file)
    expect(result).toMatchObject({ format: 'list', items: 5, successCount: 3, errorCount: 2 })
    expect(result.errors).toEqual([
      {
        item: 'line 6',
        message: "'IP' is not a value of a known type (IPv4, IPv6, CIDR, host, URL, email, MD5/SHA-1/SHA-256, ASN)",
      },
      { item: 'line 7', message: "'nss3.dll' is a file name (.dll is no top-level domain), not a host" },
    ])
    const list = await served('summary CONTAINS "c2-list" OR summary = "198.51.100.17"')
    expect(list.map((i) => [i.type, i.summary, i.description ?? null]).sort()).toEqual([
      ['Address', '198.51.100.17', '65'],
      ['Host', 'c2-list.example', 'panel'],
      ['URL', 'http://c2-list.example/gate.php', null],
    ])
  })

  it('reports a bad item of a forced type by its line, in the batch job’s words', async () => {
    const file = join(dir, 'forced.txt')
    writeFileSync(file, '# addresses\n198.51.100.18\n999.1.1.1\n')
    const result = await run(file, { type: 'Address' })
    expect(result).toMatchObject({ items: 2, successCount: 1, errorCount: 1 })
    expect(result.errors).toEqual([{ item: 'line 3', message: expect.stringContaining('999.1.1.1') }])
  })
})

const STEALC = 'SEKOIA-IO+Community/IOCs/stealc/stealc_iocs_20230220.csv'
const unavailable = datasetsUnavailable()
if (unavailable) console.warn(unavailable)

describe.skipIf(!!unavailable)(`bulwark import of the SEKOIA stealc CSV (${STEALC})`, () => {
  it('writes its 152 rows with their dates, inactive where their validity ended (2023), active where not (2048)', async () => {
    const result = await run(datasetFile(STEALC))
    expect(result).toMatchObject({ format: 'csv', items: 152, successCount: 152, errorCount: 0, errors: [] })
    const list = await served('externalDateAdded < "2024-01-01"')
    expect(perType(list)).toEqual({ URL: 105, Address: 37, Host: 7, File: 3 })
    expect(perType(list.filter((i) => i.active === false))).toEqual({ URL: 105, Address: 37, Host: 7 })
    expect(list.filter((i) => i.active !== false).map((i) => [i.type, i.externalDateExpires])).toEqual([
      ['File', '2048-01-04T00:00:00Z'],
      ['File', '2048-01-04T00:00:00Z'],
      ['File', '2048-02-07T00:00:00Z'],
    ])
    expect(list.find((i) => i.summary === '91.215.85.188')).toMatchObject({
      type: 'Address',
      active: false,
      externalDateAdded: '2023-02-14T00:00:00Z',
      externalDateExpires: '2023-02-27T00:00:00Z',
    })
    expect(list.find((i) => i.summary === 'http://162.0.238.10/752e382b4dcf5e3f.php')).toMatchObject({
      type: 'URL',
      active: false,
      externalDateAdded: expect.stringMatching(/^2023-0[12]-\d\dT00:00:00Z$/),
      externalDateExpires: expect.stringMatching(/^2023-0\d-\d\dT00:00:00Z$/),
    })
  })
})

describe('bulwark export onto an existing file', () => {
  const exportTo = (output: string, force?: boolean) =>
    exportCommand(t.store, t.services, { owner: ORG, output, userName: t.admin.userName, force })

  it('refuses it, naming the file and --force, and leaves it as it was', async () => {
    const output = join(dir, 'existing.json')
    writeFileSync(output, 'keep me', { mode: 0o644 })
    await expect(exportTo(output)).rejects.toMatchObject({
      code: 'conflict',
      message: `${output} already exists: bulwark export does not overwrite a file; give --force to replace it, or another --output`,
    })
    expect(readFileSync(output, 'utf8')).toBe('keep me')
  })

  it('replaces it whole with --force, mode 0600, leaving no temporary file beside it', async () => {
    const output = join(dir, 'replaced.json')
    writeFileSync(output, 'old export', { mode: 0o644 })
    const result = await exportTo(output, true)
    expect(result.count).toBeGreaterThan(0)
    expect(JSON.parse(readFileSync(output, 'utf8')).indicator).toHaveLength(result.count)
    expect(statSync(output).mode & 0o777).toBe(0o600)
    expect(readdirSync(dir).filter((name) => name.includes('replaced.json'))).toEqual(['replaced.json'])
    const fresh = join(dir, 'fresh.json')
    expect((await exportTo(fresh, true)).count).toBe(result.count)
    expect(existsSync(fresh)).toBe(true)
  })
})

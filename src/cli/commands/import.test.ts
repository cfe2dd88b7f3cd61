/**
 * `bulwark import` and `bulwark export` through the real executable: CSV, plain lists and V2
 * batch files in jobs of IMPORT_CHUNK items, bad items reported by their place in the file (the
 * line, for CSV and lists) and the run going on; an export (whole or by TQL) imported into another
 * owner gives the same set; an existing output refused unless --force.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CliSandbox, createCliSandbox } from '../../test/cli-sandbox.js'
import { IMPORT_CHUNK } from './import.js'

const OWNER = 'Default Organization'
/** Each run of the executable starts tsx and opens the database: seconds apiece on a busy machine. */
const CLI_TIMEOUT = 180_000
let cli: CliSandbox
let dir: string

beforeAll(async () => {
  cli = await createCliSandbox('bulwark-import-', { dataDir: 'data' })
  dir = cli.root
})
afterAll(() => cli.close())

async function bulwark(...args: string[]) {
  const run = await cli.runAsync([...args, '--json'], { timeoutMs: 120_000 })
  return { status: run.status, result: run.stdout ? JSON.parse(run.stdout) : undefined, stderr: run.stderr }
}

const indicatorCount = async () => (await bulwark('status')).result.counts.indicators as number

describe('bulwark import', () => {
  it(
    'imports a CSV, reports the bad row by its place and keeps going',
    async () => {
      const file = join(dir, 'feed.csv')
      writeFileSync(
        file,
        'type,summary,rating,confidence,tags\nHost,bad.example,3,50,phishing;kit\nAddress,192.0.2.7,,,\nHost,not a host!!,,,\n"URL","http://x.example/a,b",1,,\n',
      )
      const run = await bulwark('import', file, '--owner', OWNER)
      expect(run.status, run.stderr).toBe(0)
      expect(run.result).toMatchObject({
        format: 'csv',
        owner: OWNER,
        items: 4,
        jobs: 1,
        successCount: 3,
        errorCount: 1,
      })
      expect(run.result.errors).toEqual([{ item: 'line 4', message: expect.any(String) }])
      expect(await indicatorCount()).toBe(3)
    },
    CLI_TIMEOUT,
  )

  it(
    'imports a plain list of one type in jobs of IMPORT_CHUNK items, numbering items across jobs',
    async () => {
      const file = join(dir, 'addresses.txt')
      const lines = Array.from(
        { length: IMPORT_CHUNK + 2 },
        (_, i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
      )
      lines[IMPORT_CHUNK + 1] = '999.1.1.1'
      writeFileSync(file, `${lines.join('\n')}\n`)
      const run = await bulwark('import', file, '--owner', OWNER, '--type', 'Address')
      expect(run.status, run.stderr).toBe(0)
      expect(run.result).toMatchObject({
        format: 'list',
        items: IMPORT_CHUNK + 2,
        jobs: 2,
        successCount: IMPORT_CHUNK + 1,
        errorCount: 1,
      })
      expect(run.result.errors.map((e: { item: string }) => e.item)).toEqual([`line ${IMPORT_CHUNK + 2}`])
      expect(await indicatorCount()).toBe(3 + IMPORT_CHUNK + 1)
    },
    CLI_TIMEOUT,
  )

  it(
    'imports a V2 batch file, and refuses what it cannot read without writing anything',
    async () => {
      const file = join(dir, 'batch.json')
      writeFileSync(
        file,
        JSON.stringify({
          indicator: [
            { type: 'Host', summary: 'batch-one.example', rating: 2 },
            { type: 'EmailAddress', summary: 'a@batch.example' },
          ],
        }),
      )
      expect((await bulwark('import', file, '--owner', OWNER)).result).toMatchObject({
        format: 'batch',
        items: 2,
        successCount: 2,
        errorCount: 0,
        errors: [],
      })
      const before = await indicatorCount()
      expect(await bulwark('import', join(dir, 'addresses.txt'), '--owner', OWNER, '--type', 'Domain')).toMatchObject({
        status: 1,
        result: { code: 'invalid', error: "--type 'Domain' is not an Indicator type (Host, Address, URL, File, …)" },
      })
      expect(await bulwark('import', join(dir, 'addresses.txt'), '--owner', OWNER, '--map', 'value=IOC')).toMatchObject(
        {
          status: 1,
          result: { code: 'invalid', error: '--map names the columns of a CSV; this file is read as a plain list' },
        },
      )
      expect(await bulwark('import', file, '--owner', 'No Such Owner')).toMatchObject({
        status: 1,
        result: { code: 'owner_inaccessible' },
      })
      expect(await bulwark('import', file, '--owner', OWNER, '--format', 'stix')).toMatchObject({
        status: 1,
        result: { code: 'invalid', error: expect.stringMatching(/is not a STIX bundle: it has no objects array$/) },
      })
      expect(await indicatorCount()).toBe(before)
    },
    CLI_TIMEOUT,
  )

  it(
    'exports an owner, whole or filtered by TQL, as a batch file that imports into another owner as the same set',
    async () => {
      const total = await indicatorCount()
      const all = join(dir, 'export-all.json')
      const exported = await bulwark('export', '--owner', OWNER, '--output', all)
      expect(exported.status, exported.stderr).toBe(0)
      expect(exported.result).toEqual({ owner: OWNER, format: 'batch', file: all, count: total })
      const written = JSON.parse(readFileSync(all, 'utf8')).indicator as {
        type: string
        summary: string
        rating?: number
      }[]
      expect(written).toHaveLength(total)
      const host = written.find((i) => i.summary === 'bad.example') as Record<string, unknown>
      expect(host).toEqual({
        type: 'Host',
        summary: 'bad.example',
        rating: 3,
        confidence: 50,
        tag: expect.arrayContaining([{ name: 'phishing' }, { name: 'kit' }]),
      })
      expect(host.tag).toHaveLength(2)
      expect(statSync(all).mode & 0o777).toBe(0o600)

      const rated = join(dir, 'export-rated.json')
      expect((await bulwark('export', '--owner', OWNER, '--output', rated, '--tql', 'rating >= 2')).result.count).toBe(
        2,
      )
      expect(
        JSON.parse(readFileSync(rated, 'utf8'))
          .indicator.map((i: { summary: string }) => i.summary)
          .sort(),
      ).toEqual(['bad.example', 'batch-one.example'])
      expect(
        await bulwark('export', '--owner', OWNER, '--output', join(dir, 'x.json'), '--tql', 'rating >>> 2'),
      ).toMatchObject({ status: 1, result: { code: 'invalid' } })
      expect(existsSync(join(dir, 'x.json'))).toBe(false)
      expect(await bulwark('export', '--owner', OWNER, '--output', rated)).toMatchObject({
        status: 1,
        result: { code: 'conflict', error: expect.stringContaining(`${rated} already exists`) },
      })
      expect((await bulwark('export', '--owner', OWNER, '--output', rated, '--force')).result.count).toBe(total)

      expect((await bulwark('users', 'create', 'importer', '--role', 'Organization Administrator')).status).toBe(0)
      expect((await bulwark('owners', 'create', 'Mirror', '--type', 'Source')).status).toBe(0)
      expect((await bulwark('memberships', 'set', 'importer', 'Mirror', 'Editor')).status).toBe(0)
      const mirrored = await bulwark('import', all, '--owner', 'Mirror', '--as', 'importer')
      expect(mirrored.result).toMatchObject({ items: total, successCount: total, errorCount: 0 })
      const again = join(dir, 'export-mirror.json')
      expect((await bulwark('export', '--owner', 'Mirror', '--output', again, '--as', 'importer')).result.count).toBe(
        total,
      )
      const key = (i: { type: string; summary: string }) => `${i.type} ${i.summary}`
      const mirror = JSON.parse(readFileSync(again, 'utf8')).indicator as { type: string; summary: string }[]
      expect(mirror.map(key).sort()).toEqual(written.map(key).sort())
      expect(mirror.find((i) => i.summary === 'bad.example')).toEqual(host)
    },
    CLI_TIMEOUT,
  )
})

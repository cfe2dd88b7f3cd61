/**
 * POST /v3/imports (beyond the interface specification): a file in any format Bulwark reads, stored as
 * it streams and imported by a worker as a job, whose status, counts and refusals (each by its place
 * in the file) the uploader reads back; refused at once when no reader takes it, when it is empty or
 * too large, or when the owner is not the caller's to write, in the interface's own envelope.
 */
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runPendingImports } from '../../domain/imports/import-jobs.js'
import { startImportWorker } from '../../worker/import-worker.js'
import { datasetFile, datasetsUnavailable } from '../../test/datasets.js'
import { ORG, type TestAccount, type TestApp, createTestApp } from '../../test/harness.js'

let t: TestApp
let reader: TestAccount
beforeAll(async () => {
  t = await createTestApp()
  reader = await t.createAccount({ role: 'Read Only User' })
})
afterAll(() => t.close())

const upload = (content: string | Buffer, query = '', as?: TestAccount) =>
  t.request({
    method: 'POST',
    url: `/api/v3/imports${query}`,
    payload: content,
    headers: { 'content-type': 'application/octet-stream' },
    ...(as ? { as } : {}),
  })

async function finished(id: number) {
  await runPendingImports(t.store, t.services, 'test-worker')
  return (await t.request({ method: 'GET', url: `/api/v3/imports/${id}` })).json().data
}

const summaries = async () =>
  (await t.store.db.selectFrom('indicator').select('summary').orderBy('id').execute()).map((r) => r.summary)

describe('POST /v3/imports', () => {
  it('stores a STIX bundle, queues it, and imports it with its counts', async () => {
    const missing = datasetsUnavailable()
    const bundle = missing
      ? JSON.stringify({
          type: 'bundle',
          id: 'bundle--1',
          objects: [
            {
              type: 'indicator',
              spec_version: '2.1',
              id: 'indicator--8e2e2d2b-17d4-4cbf-938f-98ee46b3cd3f',
              created: '2016-04-06T20:03:48.000Z',
              modified: '2016-04-06T20:03:48.000Z',
              pattern: "[ipv4-addr:value = '10.0.0.0']",
              pattern_type: 'stix',
              valid_from: '2016-01-01T00:00:00Z',
            },
          ],
        })
      : readFileSync(datasetFile('oasis-open+cti-stix2-json-schemas/examples/indicator-for-c2-ip-address.json'), 'utf8')
    const created = await upload(bundle, '?fileName=c2.json')
    expect(created.statusCode, created.body).toBe(201)
    expect(created.json()).toMatchObject({
      data: { owner: ORG, status: 'Queued', fileName: 'c2.json', bytes: Buffer.byteLength(bundle), items: 0 },
      message: 'Created',
      status: 'Success',
    })
    const job = await finished(created.json().data.id)
    expect(job).toMatchObject({
      status: 'Completed',
      format: 'stix',
      items: 1,
      jobs: 1,
      successCount: 1,
      errorCount: 0,
    })
    // The OASIS example's command-and-control address.
    expect(await summaries()).toContain('10.0.0.0')
  })

  it('lists every refusal by its place in the file, a page at a time', async () => {
    const csv = 'value,description\ngood-1.example,fine\n!!not a value!!,bad\ngood-2.example,fine\n::also bad::,bad\n'
    const id = (await upload(csv, '?fileName=feed.csv')).json().data.id
    expect(await finished(id)).toMatchObject({
      format: 'csv',
      items: 4,
      successCount: 2,
      errorCount: 2,
      errorsListed: 2,
    })
    const page = await t.request({ method: 'GET', url: `/api/v3/imports/${id}/errors?resultStart=1&resultLimit=1` })
    expect(page.json()).toEqual({
      data: [{ item: 'line 5', message: expect.any(String) }],
      count: 2,
      status: 'Success',
    })
    const all = (await t.request({ method: 'GET', url: `/api/v3/imports/${id}/errors` })).json().data
    expect(all.map((e: { item: string }) => e.item)).toEqual(['line 3', 'line 5'])
  })

  it('reads a file of many parts whole, characters split across parts included', async () => {
    // 2.5 MB of rows, each description with two-byte characters: parts of 1 MB cut some of them in two.
    const rows = Array.from({ length: 25_000 }, (_, i) => `part-${i}.example,${'é'.repeat(45)}`)
    const csv = `value,description\n${rows.join('\n')}\n`
    const id = (await upload(csv, '?fileName=big.csv')).json().data.id
    expect(await finished(id)).toMatchObject({
      status: 'Completed',
      items: 25_000,
      successCount: 25_000,
      errorCount: 0,
    })
    const damaged = await t.store.db
      .selectFrom('indicator')
      .select('summary')
      .where('summary', 'like', 'part-%')
      .where('description', '!=', 'é'.repeat(45))
      .execute()
    expect(damaged).toEqual([])
  }, 120_000)

  it('lists the caller’s imports, newest first, and hides them from others', async () => {
    const mine = (await t.request({ method: 'GET', url: '/api/v3/imports' })).json()
    expect(mine.data.length).toBe(mine.count)
    expect(mine.data[0].fileName).toBe('big.csv')
    const other = await t.request({ method: 'GET', url: `/api/v3/imports/${mine.data[0].id}`, as: reader })
    expect([other.statusCode, other.json().message]).toEqual([404, `Import ${mine.data[0].id} not found`])
  })

  it('refuses, in the v3 envelope, an owner the caller cannot write, an empty file, a file too large, a format unknown', async () => {
    const cannot = await upload('evil.example\n', '', reader)
    expect(cannot.statusCode).toBe(401)
    expect(cannot.json()).toMatchObject({
      status: 'Error',
      message: expect.stringMatching(
        /^\S+ cannot write to Test Organization: as Read Only User there they may not run batch jobs or create items or update items\. Nothing was imported\.$/,
      ),
    })
    const empty = await upload('')
    expect([empty.statusCode, empty.json().message]).toEqual([400, 'The file is empty'])
    const unknown = await upload('x', '?format=pdf')
    expect([unknown.statusCode, unknown.json().status]).toEqual([400, 'Error'])
    await t.services.settings.set('importMaxBytes', '1000')
    try {
      const large = await upload('a.example\n'.repeat(200))
      expect([large.statusCode, large.json().message]).toEqual([
        413,
        'The file is larger than 1000 bytes (setting importMaxBytes)',
      ])
    } finally {
      await t.services.settings.set('importMaxBytes', String(512 * 1024 * 1024))
    }
    const stored = await t.store.db.selectFrom('import_job').select('status').execute()
    expect(stored.every((j) => j.status === 'Completed')).toBe(true)
  })

  it('is run by a node’s import worker without anyone waiting for it', async () => {
    const worker = startImportWorker(t.store, t.services, { pollMs: 50 })
    try {
      const id = (await upload('worker-1.example\nworker-2.example\n', '?fileName=list.txt')).json().data.id
      let job: { status: string; successCount: number } | undefined
      for (let i = 0; i < 200 && job?.status !== 'Completed'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50))
        job = (await t.request({ method: 'GET', url: `/api/v3/imports/${id}` })).json().data
      }
      expect(job).toMatchObject({ status: 'Completed', successCount: 2 })
    } finally {
      await worker.stop()
    }
  })

  it('is in the v3 OpenAPI document, marked as beyond the specification', async () => {
    const doc = (await t.request({ method: 'GET', url: '/api/v3/openApi', as: null })).json()
    expect(doc.paths['/api/v3/imports'].post.summary).toMatch(/beyond the interface specification$/)
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/api/v3/imports'))).toEqual([
      '/api/v3/imports',
      '/api/v3/imports/{id}',
      '/api/v3/imports/{id}/errors',
    ])
  })
})

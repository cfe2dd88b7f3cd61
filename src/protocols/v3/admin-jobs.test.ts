/**
 * /v3/admin/jobs (beyond the interface specification): system administrators read every account's
 * batch and import jobs, newest first and paged, with each one's errors (a batch job's error-file
 * lines, an import's refusals by place); an Organization Administrator is refused; bad parameters are
 * 400s naming them. Answers are checked against the OpenAPI document.
 */
import { randomBytes } from 'node:crypto'
import { Ajv2020 } from 'ajv/dist/2020.js'
import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isoNow } from '../../core/time.js'
import { createAccount, issueApiToken } from '../../domain/access/accounts.js'
import { runPendingImports } from '../../domain/imports/import-jobs.js'
import { batchThroughApi } from '../../test/batch.js'
import { ORG, type TestAccount, type TestApp, createTestApp } from '../../test/harness.js'

let t: TestApp
let root: TestAccount
let analyst: TestAccount
let batchId: number
let importId: number
const ajv = new Ajv2020({ strict: false, allErrors: true })
let doc: {
  paths: Record<string, Record<string, { responses: Record<string, { content: Record<string, { schema: object }> }> }>>
}

async function systemAdministrator(): Promise<TestAccount> {
  const userName = `jobs-admin-${randomBytes(3).toString('hex')}`
  await createAccount(
    t.store.db,
    { userName, kind: 'api', organization: ORG, role: 'Read Only User', systemRole: 'Operations Administrator' },
    isoNow(),
  )
  const { token } = await issueApiToken(t.store.db, userName, {}, Date.now())
  return { userName, token }
}

/** The answer, after checking it against the documented schema of its path and status. */
function documented(res: LightMyRequestResponse, path: string) {
  const responses = doc.paths[path]!.get!.responses
  const schema = (responses[String(res.statusCode)] ?? responses['4XX'])!.content['application/json']!.schema
  const validate = ajv.compile(schema)
  expect(validate(res.json()) ? [] : validate.errors, `${path} ${res.statusCode}: ${res.body}`).toEqual([])
  return res.json()
}

const get = (url: string, as: TestAccount = root) => t.request({ method: 'GET', url, as })

beforeAll(async () => {
  t = await createTestApp()
  root = await systemAdministrator()
  analyst = await t.createAccount({ role: 'Standard User' })
  doc = (await t.request({ method: 'GET', url: '/api/v3/openApi', as: null })).json()

  // The analyst's batch job: two good Indicators, one bad.
  const run = await batchThroughApi(
    t,
    {
      indicator: [
        { type: 'Host', summary: 'good-1.example' },
        { type: 'Address', summary: 'not an address' },
        { type: 'Host', summary: 'good-2.example' },
      ],
    },
    {},
    ORG,
    analyst,
  )
  expect(run.status).toMatchObject({ successCount: 2, errorCount: 1 })
  batchId = run.id

  // The analyst's import: a list with two lines that are no Host.
  const upload = await t.request({
    method: 'POST',
    url: '/api/v3/imports?fileName=hosts.txt&type=Host',
    payload: 'fine-1.example\n!!nope!!\nfine-2.example\n::nope::\n',
    headers: { 'content-type': 'application/octet-stream' },
    as: analyst,
  })
  expect(upload.statusCode, upload.body).toBe(201)
  importId = upload.json().data.id
  await runPendingImports(t.store, t.services, 'test-worker')
})
afterAll(() => t.close())

describe('GET /api/v3/admin/jobs', () => {
  it("shows a system administrator another account's batch jobs, newest first, with their counts", async () => {
    const body = documented(await get('/api/v3/admin/jobs?kind=batch'), '/api/v3/admin/jobs')
    // The import ran batch jobs of its own, after the analyst's v2 job.
    expect(body.count).toBeGreaterThanOrEqual(2)
    expect(body.data.map((j: { id: number }) => j.id)).toEqual(
      [...body.data.map((j: { id: number }) => j.id)].sort((a: number, b: number) => b - a),
    )
    expect(body.data.find((j: { id: number }) => j.id === batchId)).toEqual({
      id: batchId,
      owner: ORG,
      userName: analyst.userName,
      status: 'Completed',
      action: 'Create',
      successCount: 2,
      errorCount: 1,
      unprocessCount: 0,
      dateAdded: expect.any(String),
      startedAt: expect.any(String),
      completedAt: expect.any(String),
    })
  })

  it("shows another account's imports with their counts, paged", async () => {
    const body = documented(
      await get('/api/v3/admin/jobs?kind=import&resultStart=0&resultLimit=1'),
      '/api/v3/admin/jobs',
    )
    expect(body.count).toBe(1)
    expect(body.data).toEqual([
      expect.objectContaining({
        id: importId,
        owner: ORG,
        userName: analyst.userName,
        status: 'Completed',
        fileName: 'hosts.txt',
        successCount: 2,
        errorCount: 2,
        errorsListed: 2,
      }),
    ])
    const past = documented(await get('/api/v3/admin/jobs?kind=import&resultStart=1'), '/api/v3/admin/jobs')
    expect(past).toEqual({ data: [], count: 1, status: 'Success' })
  })

  it("gives a batch job's error-file lines and an import's refusals, a page at a time", async () => {
    const path = '/api/v3/admin/jobs/{kind}/{id}/errors'
    const batch = documented(await get(`/api/v3/admin/jobs/batch/${batchId}/errors`), path)
    expect(batch).toEqual({
      data: [
        {
          code: '0x1005',
          severity: 'Error',
          errorReason: expect.any(String),
          errorMessage: expect.stringContaining('not an address'),
          errorSource: 'indicator[1]',
        },
      ],
      count: 1,
      status: 'Success',
    })
    const second = documented(
      await get(`/api/v3/admin/jobs/import/${importId}/errors?resultStart=1&resultLimit=1`),
      path,
    )
    expect(second).toEqual({
      data: [{ item: 'line 4', message: expect.stringContaining('::nope::') }],
      count: 2,
      status: 'Success',
    })
  })

  it('refuses an Organization Administrator who is no system administrator, in the v3 envelope', async () => {
    for (const url of ['/api/v3/admin/jobs?kind=batch', `/api/v3/admin/jobs/import/${importId}/errors`]) {
      const res = await get(url, t.admin)
      expect(res.statusCode).toBe(403)
      expect(res.json()).toEqual({
        status: 'Error',
        errCode: '0x1002',
        message:
          'Only system administrators (Administrator or Operations Administrator) see every job; your system role is Api User',
      })
    }
  })

  it('answers 400 naming a bad kind, page or id, and 404 for a job that does not exist', async () => {
    const cases: [string, number, string][] = [
      ['/api/v3/admin/jobs', 400, "kind must be batch or import, not ''"],
      ['/api/v3/admin/jobs?kind=feed', 400, "kind must be batch or import, not 'feed'"],
      ['/api/v3/admin/jobs?kind=batch&resultLimit=0', 400, 'resultLimit must be a whole number from 1 to 100'],
      ['/api/v3/admin/jobs?kind=batch&resultLimit=101', 400, 'resultLimit must be a whole number from 1 to 100'],
      ['/api/v3/admin/jobs?kind=import&resultStart=-1', 400, 'resultStart must be a whole number'],
      ['/api/v3/admin/jobs/feed/1/errors', 400, "kind must be batch or import, not 'feed'"],
      ['/api/v3/admin/jobs/batch/x/errors', 400, "The job id must be a number, not 'x'"],
      ['/api/v3/admin/jobs/batch/99999999999/errors', 400, "The job id must be a number, not '99999999999'"],
      ['/api/v3/admin/jobs/batch/999999/errors', 404, 'Batch job 999999 not found'],
      ['/api/v3/admin/jobs/import/999999/errors', 404, 'Import 999999 not found'],
    ]
    for (const [url, status, message] of cases) {
      const res = await get(url)
      expect([res.statusCode, res.json().message], url).toEqual([status, message])
      expect(res.json().status).toBe('Error')
    }
  })
})

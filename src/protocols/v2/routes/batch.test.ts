import { gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ORG, type TestApp, createTestApp } from '../../../test/harness.js'
import { runPendingJobs } from '../../../worker/batch-worker.js'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(async () => {
  await t.close()
})

const definition = (extra: Record<string, unknown> = {}) => ({
  version: 'V2',
  owner: ORG,
  haltOnError: false,
  action: 'Create',
  attributeWriteType: 'Append',
  ...extra,
})

async function createJob(extra: Record<string, unknown> = {}, as = t.admin) {
  const res = await t.request({ method: 'POST', url: '/api/v2/batch', payload: definition(extra), as })
  expect(res.statusCode).toBe(201)
  return res.json().data.batchId as number
}

async function upload(id: number, content: unknown, as = t.admin) {
  return t.request({
    method: 'POST',
    url: `/api/v2/batch/${id}`,
    payload: typeof content === 'string' ? content : JSON.stringify(content),
    headers: { 'content-type': 'application/octet-stream' },
    as,
  })
}

async function status(id: number, extra = '') {
  return (await t.request({ method: 'GET', url: `/api/v2/batch/${id}${extra}` })).json()
}

describe('POST /v2/batch', () => {
  it('creates a job in state Created and returns its id', async () => {
    const id = await createJob()
    expect(await status(id)).toEqual({
      status: 'Success',
      data: { batchStatus: { id, status: 'Created', errorCount: 0, successCount: 0, unprocessCount: 0 } },
    })
  })

  it('accepts booleans sent as text, as tcex does, and acts on them', async () => {
    const entries = (tag: string) => ({
      indicator: [
        { type: 'Host', summary: `bad ${tag}!` },
        { type: 'Host', summary: `${tag}.text-flag.example` },
      ],
    })
    const halting = await createJob({ haltOnError: 'true', playbookTriggersEnabled: 'false' })
    await upload(halting, entries('halt'))
    const going = await createJob({ haltOnError: 'False' })
    await upload(going, entries('go'))
    await runPendingJobs(t.store, t.services)
    expect((await status(halting)).data.batchStatus).toMatchObject({
      status: 'Completed',
      errorCount: 1,
      successCount: 0,
      unprocessCount: 1,
    })
    expect((await status(going)).data.batchStatus).toMatchObject({
      status: 'Completed',
      errorCount: 1,
      successCount: 1,
      unprocessCount: 0,
    })
    const written = await t.request({ method: 'GET', url: '/api/v2/indicators/hosts/go.text-flag.example' })
    expect(written.statusCode).toBe(200)
    expect(
      (await t.request({ method: 'GET', url: '/api/v2/indicators/hosts/halt.text-flag.example' })).statusCode,
    ).toBe(404)
  })

  it('refuses a malformed definition with 400 naming the field', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ action: 'Upsert' }, /action 'Upsert' is not valid/],
      [{ attributeWriteType: undefined }, /attributeWriteType is required/],
      [{ haltOnError: 'maybe' }, /haltOnError must be true or false/],
      [{ version: 'V1' }, /version 'V1' is not supported/],
      [{ hashCollisionMode: 'Whatever' }, /hashCollisionMode 'Whatever'/],
      [{ owner: '' }, /owner is required/],
    ]
    for (const [extra, message] of cases) {
      const res = await t.request({ method: 'POST', url: '/api/v2/batch', payload: definition(extra) })
      expect(res.statusCode).toBe(400)
      expect(res.json()).toEqual({ status: 'Error', message: expect.stringMatching(message) })
    }
  })

  it('answers 403 for an owner that does not exist or is not accessible', async () => {
    const res = await t.request({ method: 'POST', url: '/api/v2/batch', payload: definition({ owner: 'Nobody Inc' }) })
    expect(res.statusCode).toBe(403)
    expect(res.json().status).toBe('Error')
  })

  it('answers 401 listing the missing permissions for a read-only member', async () => {
    const reader = await t.createAccount({ role: 'Read Only User' })
    const res = await t.request({ method: 'POST', url: '/api/v2/batch', payload: definition(), as: reader })
    expect(res.statusCode).toBe(401)
    expect(res.json().message).toMatch(
      /^Unable to perform the requested operation due to the following error\(s\): You do not have permission to run batch jobs;.*create Indicators; Groups; Attributes; Tags;/,
    )
  })

  it('answers 503 with the platform message when batchJobEnabled is false', async () => {
    await t.services.settings.set('batchJobEnabled', 'false')
    try {
      const res = await t.request({ method: 'POST', url: '/api/v2/batch', payload: definition() })
      expect(res.statusCode).toBe(503)
      expect(res.json().message).toBe(
        'Batch job api is not available.  Ensure that batchJobEnabled is true and document storage is enabled and configured;',
      )
    } finally {
      await t.services.settings.set('batchJobEnabled', 'true')
    }
  })
})

describe('POST /v2/batch/{id}', () => {
  it('queues the job and answers 202 {status: Queued}', async () => {
    const id = await createJob()
    const res = await upload(id, { indicator: [] })
    expect(res.statusCode).toBe(202)
    expect(res.json()).toEqual({ status: 'Queued' })
    expect((await status(id)).data.batchStatus.status).toBe('Queued')
  })

  it('refuses a file over batchMaxUploadBytes with the platform body', async () => {
    await t.services.settings.set('batchMaxUploadBytes', '100')
    try {
      const id = await createJob()
      const res = await upload(id, { indicator: [{ type: 'Host', summary: `${'a'.repeat(120)}.example` }] })
      expect(res.statusCode).toBe(400)
      expect(res.json()).toEqual({ status: 'Invalid', description: 'File size greater than allowable limit of 100' })
      expect((await status(id)).data.batchStatus.status).toBe('Created')
    } finally {
      await t.services.settings.set('batchMaxUploadBytes', '2000000')
    }
  })

  it('takes an input file only once', async () => {
    const id = await createJob()
    expect((await upload(id, { indicator: [] })).statusCode).toBe(202)
    const again = await upload(id, { indicator: [] })
    expect(again.statusCode).toBe(400)
    expect(again.json().message).toMatch(/already has its input file \(status Queued\)/)
  })

  it('hides jobs from other users (404), but not from the owner administrator', async () => {
    const creator = await t.createAccount({ role: 'Standard User' })
    const other = await t.createAccount({ role: 'Standard User' })
    const id = await createJob({}, creator)
    expect((await upload(id, { indicator: [] }, other)).statusCode).toBe(404)
    expect((await t.request({ method: 'GET', url: `/api/v2/batch/${id}`, as: other })).statusCode).toBe(404)
    expect((await t.request({ method: 'GET', url: `/api/v2/batch/${id}` })).statusCode).toBe(200)
    expect((await t.request({ method: 'GET', url: '/api/v2/batch/99999' })).statusCode).toBe(404)
  })
})

describe('GET /v2/batch/{id}, /errors, /results', () => {
  it('reports counts, per-kind counts, the gzip error file and filtered results', async () => {
    const id = await createJob()
    await upload(id, {
      indicator: [
        { type: 'Host', summary: 'good.example', rating: 3 },
        { type: 'Host', summary: 'not a host!' },
        { type: 'Address', ip: '10.0.0.1', confidence: 101 },
      ],
      group: [{ type: 'Incident', name: 'Missing xid', eventDate: '2024-01-01' }],
    })
    const pending = await t.request({ method: 'GET', url: `/api/v2/batch/${id}/errors` })
    expect(pending.statusCode).toBe(400)
    expect(pending.json()).toEqual({ status: 'Invalid', description: 'Batch still in Queued state' })
    await runPendingJobs(t.store, t.services)
    expect((await status(id)).data.batchStatus).toEqual({
      id,
      status: 'Completed',
      errorCount: 3,
      successCount: 1,
      unprocessCount: 0,
    })
    expect((await status(id, '?includeAdditional=true')).data.batchStatus).toMatchObject({
      successIndicatorCount: 1,
      errorIndicatorCount: 2,
      successGroupCount: 0,
      errorGroupCount: 1,
    })

    const file = await t.request({ method: 'GET', url: `/api/v2/batch/${id}/errors` })
    expect(file.statusCode).toBe(200)
    expect(file.headers['content-type']).toBe('application/octet-stream')
    expect(file.headers['content-encoding']).toBe('gzip')
    const errors = JSON.parse(gunzipSync(file.rawPayload).toString('utf8'))
    expect(errors).toHaveLength(3)
    expect(errors[0]).toEqual({
      code: '0x1006',
      severity: 'Error',
      errorReason: 'Invalid Group: xid is required',
      errorMessage: "group[0] 'Missing xid': xid is required",
      errorSource: 'group[0]',
    })

    const results = (await t.request({ method: 'GET', url: `/api/v2/batch/${id}/results?code=0x1005` })).json()
    expect(results.map((r: { errorSource: string }) => r.errorSource)).toEqual(['indicator[1]', 'indicator[2]'])
    const contains = (
      await t.request({ method: 'GET', url: `/api/v2/batch/${id}/results?contains=CONFIDENCE&severity=err` })
    ).json()
    expect(contains).toHaveLength(1)
    expect(contains[0].errorMessage).toMatch(/confidence must be between 0 and 100/)
    expect((await t.request({ method: 'GET', url: `/api/v2/batch/${id}/results?severity=loud` })).statusCode).toBe(400)
  })

  it('answers 404 for the error file of a job without errors', async () => {
    const id = await createJob()
    await upload(id, { indicator: [{ type: 'Host', summary: 'clean.example' }] })
    await runPendingJobs(t.store, t.services)
    expect((await t.request({ method: 'GET', url: `/api/v2/batch/${id}/errors` })).statusCode).toBe(404)
    expect((await t.request({ method: 'GET', url: `/api/v2/batch/${id}/results` })).statusCode).toBe(404)
  })

  it('completes an invalid JSON file with one 0x1003 error and writes nothing', async () => {
    const id = await createJob()
    await upload(id, '{"indicator": [{"type": "Host", "summary": "x.example"')
    await runPendingJobs(t.store, t.services)
    expect((await status(id)).data.batchStatus).toEqual({
      id,
      status: 'Completed',
      errorCount: 1,
      successCount: 0,
      unprocessCount: 0,
    })
    const [error] = (await t.request({ method: 'GET', url: `/api/v2/batch/${id}/results` })).json()
    expect(error.code).toBe('0x1003')
    expect(error.errorReason).toMatch(/^Encountered an unexpected Exception while processing batch job/)
    expect(await t.store.db.selectFrom('indicator').select('id').where('summary', '=', 'x.example').execute()).toEqual(
      [],
    )
  })

  it('refuses a job over batchMaxIndicators with 0x1008 and leaves everything unprocessed', async () => {
    await t.services.settings.set('batchMaxIndicators', '2')
    try {
      const id = await createJob()
      await upload(id, {
        indicator: ['a', 'b', 'c'].map((h) => ({ type: 'Host', summary: `${h}.limit.example` })),
        group: [],
      })
      await runPendingJobs(t.store, t.services)
      expect((await status(id)).data.batchStatus).toEqual({
        id,
        status: 'Completed',
        errorCount: 1,
        successCount: 0,
        unprocessCount: 3,
      })
      const [error] = (await t.request({ method: 'GET', url: `/api/v2/batch/${id}/results` })).json()
      expect(error).toMatchObject({
        code: '0x1008',
        errorReason: expect.stringMatching(/would exceed the number of allowed indicators/),
      })
    } finally {
      await t.services.settings.set('batchMaxIndicators', '25000')
    }
  })
})

/** A multipart body as Python's requests builds it for files=(('config', …), ('content', …)). */
function multipartBody(parts: Record<string, string>) {
  const boundary = 'bulwark-test-boundary'
  const body =
    Object.entries(parts)
      .map(
        ([name, value]) =>
          `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${name}"\r\n\r\n${value}\r\n`,
      )
      .join('') + `--${boundary}--\r\n`
  return { payload: body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }
}

describe('POST /v2/batch/createAndUpload (tcex submit)', () => {
  it('defines, uploads and queues a job in one call, then runs it', async () => {
    const content = {
      indicator: [{ type: 'Host', summary: 'one-call.example', rating: 2, tag: [{ name: 'one-call' }] }],
    }
    const res = await t.request({
      method: 'POST',
      url: '/api/v2/batch/createAndUpload?includeAdditional=true',
      ...multipartBody({ config: JSON.stringify(definition()), content: JSON.stringify(content) }),
    })
    expect(res.statusCode).toBe(201)
    const batchStatus = res.json().data.batchStatus
    expect(batchStatus).toMatchObject({ status: 'Queued', errorCount: 0, successCount: 0 })
    await runPendingJobs(t.store, t.services)
    expect((await status(batchStatus.id)).data.batchStatus).toMatchObject({
      status: 'Completed',
      successCount: 1,
      errorCount: 0,
    })
    expect((await t.request({ method: 'GET', url: '/api/v2/indicators/hosts/one-call.example' })).statusCode).toBe(200)
  })

  it('refuses a missing or malformed config part, and leaves no job behind for a refused input', async () => {
    const missing = await t.request({
      method: 'POST',
      url: '/api/v2/batch/createAndUpload',
      ...multipartBody({ content: '{}' }),
    })
    expect(missing.statusCode).toBe(400)
    expect(missing.json().message).toMatch(/config part/)
    const malformed = await t.request({
      method: 'POST',
      url: '/api/v2/batch/createAndUpload',
      ...multipartBody({ config: '{', content: '{}' }),
    })
    expect(malformed.json()).toEqual({
      status: 'Error',
      message: expect.stringMatching(/^The config part is not valid JSON: /),
    })
    const before = await t.store.db
      .selectFrom('batch_job')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    const empty = await t.request({
      method: 'POST',
      url: '/api/v2/batch/createAndUpload',
      ...multipartBody({ config: JSON.stringify(definition()), content: '' }),
    })
    expect(empty.statusCode).toBe(400)
    const after = await t.store.db
      .selectFrom('batch_job')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    expect(Number(after.n)).toBe(Number(before.n))
  })

  it('is the only v2 endpoint that reads multipart: elsewhere it is an unsupported media type', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/api/v2/batch',
      ...multipartBody({ config: JSON.stringify(definition()) }),
    })
    expect(res.statusCode).toBe(415)
    expect(res.json()).toMatchObject({ status: 'Error' })
  })

  it('refuses a body that is not multipart', async () => {
    const res = await t.request({ method: 'POST', url: '/api/v2/batch/createAndUpload', payload: { config: {} } })
    expect(res.statusCode).toBe(400)
  })
})

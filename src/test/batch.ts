/**
 * A V2 batch job driven through the API as a client drives it: created, its file uploaded, then
 * run by this process's worker (the test app runs none of its own), with its status and results.
 */
import { expect } from 'vitest'
import { runPendingJobs } from '../worker/batch-worker.js'
import { ORG, type TestAccount, type TestApp } from './harness.js'

export interface BatchResultRow {
  code: string
  severity: string
  errorSource: string
  errorReason: string
}

export interface BatchRun {
  id: number
  status: { status: string; errorCount: number; successCount: number } & Record<string, unknown>
  results: BatchResultRow[]
}

/** A job created and its file uploaded, left Queued for a worker; returns its id. */
export async function queueBatchThroughApi(
  t: TestApp,
  file: unknown,
  options: Record<string, unknown> = {},
  owner = ORG,
  as?: TestAccount,
): Promise<number> {
  const created = await t.request({
    method: 'POST',
    url: '/api/v2/batch',
    payload: { version: 'V2', owner, haltOnError: false, action: 'Create', attributeWriteType: 'Append', ...options },
    as,
  })
  expect(created.statusCode, created.body.slice(0, 300)).toBeLessThan(300)
  const id = created.json().data.batchId as number
  const uploaded = await t.request({
    method: 'POST',
    url: `/api/v2/batch/${id}`,
    payload: JSON.stringify(file),
    headers: { 'content-type': 'application/octet-stream' },
    as,
  })
  expect(uploaded.statusCode, uploaded.body.slice(0, 300)).toBe(202)
  return id
}

/** `options` are the job's (action, attributeWriteType, haltOnError…), over the defaults of a plain Create. */
export async function batchThroughApi(
  t: TestApp,
  file: unknown,
  options: Record<string, unknown> = {},
  owner = ORG,
  as?: TestAccount,
): Promise<BatchRun> {
  const id = await queueBatchThroughApi(t, file, options, owner, as)
  await runPendingJobs(t.store, t.services)
  const status = (await t.request({ method: 'GET', url: `/api/v2/batch/${id}`, as })).json().data.batchStatus
  const res = await t.request({ method: 'GET', url: `/api/v2/batch/${id}/results`, as })
  return { id, status, results: res.statusCode === 200 ? (res.json() as BatchResultRow[]) : [] }
}

/** The same, failing the test with the job's results when it refused any item. */
export async function cleanBatchThroughApi(
  t: TestApp,
  file: unknown,
  options: Record<string, unknown> = {},
  owner = ORG,
): Promise<BatchRun['status']> {
  const run = await batchThroughApi(t, file, options, owner)
  if (run.status.errorCount) throw new Error(`batch ${run.id}: ${JSON.stringify(run.results).slice(0, 1000)}`)
  return run.status
}

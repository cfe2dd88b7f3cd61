/**
 * The feed scheduler in a real server process (src/main.ts starts it beside the batch worker): a due
 * feed is run on the schedule and recorded, and `POST /v3/feeds/{id}/run?wait=true` runs it on the
 * node that answers. The feed points at a cloud metadata address, which the address rules refuse
 * before any connection, so every run fails the same way and says why (src/feeds/pull-across-nodes.test.ts
 * pulls for real, and kills a node in the middle).
 */
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Store, openStore } from '../store/connect.js'
import { freeLoopbackPort } from '../test/harness.js'
import { type Deployment, NODE_HEADERS, createDeployment } from '../test/nodes.js'

let deployment: Deployment
let store: Store
let base: string

beforeAll(async () => {
  deployment = await createDeployment({ BULWARK_FEED_POLL_MS: '200', BULWARK_FEED_LEASE_MS: '3000' })
  const port = await freeLoopbackPort()
  await deployment.start(port)
  base = `http://127.0.0.1:${port}/api/v3`
  const env = deployment.env
  store = openStore(env.BULWARK_DATABASE_URL ?? `sqlite:${join(env.BULWARK_DATA_DIR!, 'bulwark.db')}`)
})
afterAll(async () => {
  await store?.close()
  await deployment?.close()
})

describe('the feed scheduler of a server', () => {
  it('runs a due feed on its schedule, backs it off, and runs it now on request', async () => {
    const admin = await store.db.selectFrom('user_account').select(['id', 'organization_id']).executeTakeFirstOrThrow()
    const now = new Date().toISOString()
    const { id } = await store.db
      .insertInto('feed')
      .values({
        name: 'scheduled',
        kind: 'taxii11',
        url: 'http://169.254.169.254/taxii',
        owner_id: admin.organization_id,
        interval_seconds: 3600,
        settings: JSON.stringify({ collection: 'default' }),
        next_run_at: now,
        created_by: admin.id,
        date_added: now,
        last_modified: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
    let runs: { status: string; trigger: string; error?: string }[] = []
    // Until the run has ended: a busy machine shows it while it is still Running.
    const ended = () => runs.length > 0 && runs.every((run) => run.status !== 'Running')
    for (let i = 0; i < 100 && !ended(); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      runs = (await (await fetch(`${base}/feeds/${id}/runs`, { headers: NODE_HEADERS })).json()).data
    }
    expect(runs).toEqual([
      expect.objectContaining({
        status: 'Failed',
        trigger: 'schedule',
        error: expect.stringMatching(/^refused-address: /),
      }),
    ])
    const feed = await store.db.selectFrom('feed').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
    expect(feed).toMatchObject({ failures: 1, lease_owner: null })
    expect(Date.parse(feed.next_run_at)).toBeGreaterThan(Date.now())

    const { 'content-type': _json, ...headers } = NODE_HEADERS
    const waited = await fetch(`${base}/feeds/${id}/run?wait=true`, { method: 'POST', headers })
    expect(waited.status).toBe(200)
    expect((await waited.json()).data).toMatchObject({ status: 'Failed', trigger: 'manual' })
  })
})

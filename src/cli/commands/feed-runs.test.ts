/** `bulwark feeds run NAME [--wait]` and `bulwark feeds history NAME [--limit N]` (docs/feeds.md, Runs). */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createAccount, createOwner } from '../../domain/access/accounts.js'
import type { Services } from '../../domain/services.js'
import { isoNow } from '../../core/time.js'
import { PULLERS } from '../../feeds/pullers.js'

import type { Store } from '../../store/connect.js'
import { createTestDomain } from '../../test/harness.js'
import { feedHistoryCommand, runFeedCommand } from './feed-runs.js'

/** The registry as it ships: a test swaps one kind's puller for its own and puts this back. */
const REAL_PULLERS = { ...PULLERS }

let store: Store
let services: Services
let drop: () => Promise<void>

async function* chunks(text: string) {
  yield text
}

beforeAll(async () => {
  ;({ store, services, drop } = await createTestDomain())
  const now = isoNow()
  const { id: ownerId } = await createOwner(store.db, { name: 'Acme', type: 'Organization' }, now)
  const { id: userId } = await createAccount(
    store.db,
    { userName: 'feed-admin', kind: 'api', organization: 'Acme', role: 'Organization Administrator' },
    now,
  )
  const later = new Date(Date.now() + 3600_000).toISOString()
  await store.db
    .insertInto('feed')
    .values({
      name: 'blocklist',
      kind: 'text',
      url: 'https://feeds.example/list.txt',
      owner_id: ownerId,
      interval_seconds: 3600,
      next_run_at: later,
      created_by: userId,
      date_added: now,
      last_modified: now,
    })
    .execute()
})
afterAll(() => drop())
afterEach(() => {
  PULLERS.text = REAL_PULLERS.text
})

describe('bulwark feeds run and history', () => {
  it('--wait runs the feed here and gives the run; history lists it', async () => {
    PULLERS.text = {
      async *pull() {
        yield {
          format: 'list',
          content: chunks('192.0.2.1\n192.0.2.2\n'),
          options: { type: 'Address' },
          name: 'blocklist.txt',
          fetched: 2,
          cursor: { etag: 'v1' },
          complete: true,
        }
      },
    }
    const run = await runFeedCommand(store, services, { name: 'blocklist', wait: true })
    expect(run).toMatchObject({
      feed: 'blocklist',
      status: 'Succeeded',
      trigger: 'manual',
      pages: 1,
      fetched: 2,
      created: 2,
      updated: 0,
      unchanged: 0,
      refused: 0,
      refusals: [],
    })
    const history = await feedHistoryCommand(store, services, { name: 'blocklist', limit: '5' })
    expect(history).toMatchObject({ feed: 'blocklist', count: 1, runs: [{ status: 'Succeeded', created: 2 }] })
  })

  it('without --wait makes the feed due now, for a server to run', async () => {
    const answer = await runFeedCommand(store, services, { name: 'blocklist', wait: false })
    expect(answer).toMatchObject({ feed: 'blocklist', requested: true })
    const row = await store.db.selectFrom('feed').select('next_run_at').executeTakeFirstOrThrow()
    expect(Date.parse(row.next_run_at)).toBeLessThanOrEqual(Date.now())
  })

  it('a failed run says why', async () => {
    // A cloud metadata address: refused by the address rules themselves, before any connection.
    await store.db.updateTable('feed').set({ url: 'http://169.254.169.254/latest/meta-data/' }).execute()
    const run = await runFeedCommand(store, services, { name: 'blocklist', wait: true })
    expect(run).toMatchObject({
      status: 'Failed',
      error: expect.stringMatching(/^refused-address: .*169\.254\.169\.254/),
    })
  })

  it('refuses an unknown feed and a bad limit', async () => {
    await expect(runFeedCommand(store, services, { name: 'nope', wait: true })).rejects.toThrow("Feed 'nope' not found")
    await expect(feedHistoryCommand(store, services, { name: 'blocklist', limit: 'all' })).rejects.toThrow(
      '--limit must be a whole number from 1 to 100',
    )
    await expect(feedHistoryCommand(store, services, { name: 'blocklist', limit: '500' })).rejects.toThrow(
      'limit must be a whole number from 1 to 100',
    )
  })
})

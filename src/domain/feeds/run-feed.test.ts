/**
 * A feed's run (docs/feeds.md, Runs), with a puller and a network defined here: each page's batch jobs
 * and its cursor commit together, so a run that stops anywhere resumes after the last stored page;
 * exactly one node runs a due feed; failures back off and Retry-After is honoured; the feed's
 * defaults fill what items lack and invent nothing; the history is bounded; the REST and the metrics.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createAccount, createOwner, issueApiToken, setMembership } from '../access/accounts.js'
import { isoNow } from '../../core/time.js'
import { PULLERS } from '../../feeds/pullers.js'

import { createMetrics } from '../../protocols/http/metrics.js'
import type { Store } from '../../store/connect.js'
import { FEED_RUNS_KEPT, insertFeedRun } from '../../store/repositories/feed-run.repository.js'
import { ORG, type TestAccount, type TestApp, createTestApp, startSharedNodes } from '../../test/harness.js'
import { startFeedScheduler } from '../../worker/feed-scheduler.js'
import type { Services } from '../services.js'
import type { FeedDefaults, FeedDefinition, FeedKind } from './feed.js'
import { sealCredentials } from './feed-records.js'
import { type FeedHttp, FeedFetchError, type PullContext, type PullPage, type Puller } from './pull.js'
import {
  type FeedRunDeps,
  dueFeedIds,
  feedRunHistory,
  retryDelayMs,
  runFeed,
  safeMessage,
  startFeedRun,
  sweepInterruptedFeedRuns,
  withDefaults,
} from './run-feed.js'

/** The registry as it ships: a test swaps one kind's puller for its own and puts this back. */
const REAL_PULLERS = { ...PULLERS }

const MINUTE = 60_000

/** A network that must not be used: the fake pullers below read no URL. */
const noHttp: FeedHttp = {
  request: async () => {
    throw new Error('no network in this test')
  },
}

async function* chunks(text: string) {
  yield text
}

/** One page of a plain list of Addresses, whose cursor is its number. */
function listPage(n: number, values: string[]): PullPage {
  return {
    format: 'list',
    content: chunks(values.join('\n')),
    options: { type: 'Address' },
    name: `page ${n}`,
    fetched: values.length,
    cursor: { page: n },
  }
}

/**
 * A feed of numbered pages: it starts after the cursor's page, and `before(n)` may throw or wait
 * before page n is given. `seen` records the cursor each pull started from.
 */
function pagedPuller(pages: string[][], before?: (n: number, ctx: PullContext) => Promise<void> | void) {
  const seen: (number | null)[] = []
  const puller: Puller = {
    async *pull(ctx) {
      const from = ctx.cursor === null ? 0 : (ctx.cursor.page as number)
      seen.push(ctx.cursor === null ? null : from)
      for (let n = from + 1; n <= pages.length; n++) {
        await before?.(n, ctx)
        yield listPage(n, pages[n - 1])
      }
    },
  }
  return { puller, seen }
}

const depsOf = (puller: Puller): FeedRunDeps => ({ pullerOf: () => puller, http: () => noHttp })

interface FeedSpec {
  name: string
  kind?: FeedKind
  owner?: number
  createdBy: number
  intervalSeconds?: number
  failures?: number
  nextRunAt?: string
  defaults?: FeedDefaults
  maxObjectsPerRun?: number
  credentials?: string | null
}

async function insertFeed(store: Store, spec: FeedSpec): Promise<number> {
  const now = isoNow()
  const row = await store.db
    .insertInto('feed')
    .values({
      name: spec.name,
      kind: spec.kind ?? 'text',
      url: 'https://feeds.example/list.txt',
      owner_id: spec.owner!,
      credentials_sealed: spec.credentials ?? null,
      interval_seconds: spec.intervalSeconds ?? 3600,
      defaults: JSON.stringify(spec.defaults ?? {}),
      max_objects_per_run: spec.maxObjectsPerRun ?? null,
      next_run_at: spec.nextRunAt ?? now,
      failures: spec.failures ?? 0,
      created_by: spec.createdBy,
      date_added: now,
      last_modified: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

const feedRow = (store: Store, id: number) =>
  store.db.selectFrom('feed').selectAll().where('id', '=', id).executeTakeFirstOrThrow()

const summaries = async (store: Store, ownerId: number) =>
  (await store.db.selectFrom('indicator').select('summary').where('owner_id', '=', ownerId).execute())
    .map((r) => r.summary)
    .sort()

const batchJobsOf = async (store: Store, ownerId: number) =>
  Number(
    (
      await store.db
        .selectFrom('batch_job')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('owner_id', '=', ownerId)
        .executeTakeFirstOrThrow()
    ).n,
  )

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

let t: TestApp
let adminId: number
/** Runs are the installation's business: a system Administrator asks for them over REST. */
let sysadmin: TestAccount
let feedCount = 0

/** A new owner for a feed's items, so each test counts only its own. */
async function freshOwner(): Promise<number> {
  const name = `Feed Source ${++feedCount}`
  const id = await t.createOwner(name, 'Source')
  const admin = await t.store.db
    .selectFrom('user_account')
    .select('user_name')
    .where('id', '=', adminId)
    .executeTakeFirstOrThrow()
  await setMembership(t.store.db, admin.user_name, name, 'Director', isoNow())
  return id
}

beforeAll(async () => {
  t = await createTestApp()
  const row = await t.store.db
    .selectFrom('user_account')
    .select('id')
    .where('user_name', '=', t.admin.userName)
    .executeTakeFirstOrThrow()
  adminId = row.id
  await createAccount(
    t.store.db,
    { userName: 'sysadmin', kind: 'api', organization: ORG, role: 'Standard User', systemRole: 'Administrator' },
    isoNow(),
  )
  sysadmin = { userName: 'sysadmin', token: (await issueApiToken(t.store.db, 'sysadmin', {}, Date.now())).token }
})
afterAll(async () => {
  await t.close()
})

const manual = { trigger: 'manual' as const, workerId: 'node-a:1' }

describe('pages and their cursor commit together', () => {
  it('a run that fails after page 2 keeps page 2’s cursor; the next run pulls page 3 alone, nothing twice', async () => {
    const owner = await freshOwner()
    const id = await insertFeed(t.store, { name: 'three-pages', owner, createdBy: adminId })
    let failOnce = true
    const { puller, seen } = pagedPuller(
      [
        ['10.0.1.1', '10.0.1.2'],
        ['10.0.2.1', '10.0.2.2'],
        ['10.0.3.1', '10.0.3.2'],
      ],
      (n) => {
        if (n === 3 && failOnce) {
          failOnce = false
          throw new FeedFetchError('network', 'feeds.example did not answer')
        }
      },
    )
    const before = Date.now()
    const first = (await runFeed(t.store, t.services, id, depsOf(puller), manual))!
    expect(first).toMatchObject({
      status: 'Failed',
      trigger: 'manual',
      pages: 2,
      fetched: 4,
      created: 4,
      updated: 0,
      unchanged: 0,
      refused: 0,
      error: 'network: feeds.example did not answer',
    })
    let feed = await feedRow(t.store, id)
    expect(JSON.parse(feed.cursor!)).toEqual({ page: 2 })
    expect(feed.failures).toBe(1)
    // One minute after the first failure.
    expect(Date.parse(feed.next_run_at) - before).toBeGreaterThanOrEqual(MINUTE)
    expect(Date.parse(feed.next_run_at) - Date.now()).toBeLessThanOrEqual(MINUTE)
    expect(feed.lease_owner).toBeNull()

    const second = (await runFeed(t.store, t.services, id, depsOf(puller), manual))!
    expect(second).toMatchObject({ status: 'Succeeded', pages: 1, fetched: 2, created: 2, updated: 0, unchanged: 0 })
    expect(seen).toEqual([null, 2])
    feed = await feedRow(t.store, id)
    expect(JSON.parse(feed.cursor!)).toEqual({ page: 3 })
    expect(feed.failures).toBe(0)
    expect(feed.last_success_at).not.toBeNull()
    expect(Date.parse(feed.next_run_at) - Date.parse(second.finishedAt!)).toBe(3600_000)
    expect(await summaries(t.store, owner)).toEqual([
      '10.0.1.1',
      '10.0.1.2',
      '10.0.2.1',
      '10.0.2.2',
      '10.0.3.1',
      '10.0.3.2',
    ])
    expect(await batchJobsOf(t.store, owner)).toBe(3)
  })

  it('when a page’s cursor cannot be stored, its batch job is not stored either', async () => {
    const owner = await freshOwner()
    const id = await insertFeed(t.store, { name: 'bad-cursor', owner, createdBy: adminId })
    const puller: Puller = {
      async *pull() {
        yield listPage(1, ['10.1.1.1'])
        yield listPage(2, ['10.1.2.1'])
        // JSON cannot hold a BigInt: storing this cursor fails inside the page's transaction.
        yield { ...listPage(3, ['10.1.3.1']), cursor: { page: 3n } }
      },
    }
    const run = (await runFeed(t.store, t.services, id, depsOf(puller), manual))!
    expect(run.status).toBe('Failed')
    expect(run.pages).toBe(2)
    expect(run.error).toMatch(/BigInt/)
    expect(JSON.parse((await feedRow(t.store, id)).cursor!)).toEqual({ page: 2 })
    expect(await summaries(t.store, owner)).toEqual(['10.1.1.1', '10.1.2.1'])
    expect(await batchJobsOf(t.store, owner)).toBe(2)
  })

  it('stores a page larger than one job a job at a time, before reading the rest of it; the cursor with its last job', async () => {
    const owner = await freshOwner()
    const id = await insertFeed(t.store, { name: 'long-list', owner, createdBy: adminId })
    const lines = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => `10.9.${(from + i) >> 8}.${(from + i) & 255}\n`).join('')
    let jobsWhenHalfRead = 0
    // The list's second half is given only once its first half's jobs are in the database: a run that
    // held the page's jobs until the page was read whole would store none by then.
    async function* content() {
      yield lines(0, 250)
      for (let wait = 0; wait < 100 && (jobsWhenHalfRead = await batchJobsOf(t.store, owner)) === 0; wait++)
        await new Promise((resolve) => setTimeout(resolve, 20))
      yield lines(250, 50)
    }
    const puller: Puller = {
      async *pull() {
        yield { ...listPage(1, []), content: content(), fetched: 300 }
      },
    }
    // Jobs of a few kilobytes: the one page becomes several jobs.
    await t.services.settings.set('batchMaxUploadBytes', '4000')
    try {
      const run = (await runFeed(t.store, t.services, id, depsOf(puller), manual))!
      expect(run).toMatchObject({ status: 'Succeeded', pages: 1, fetched: 300, created: 300, refused: 0 })
    } finally {
      await t.services.settings.set('batchMaxUploadBytes', '2000000')
    }
    expect(jobsWhenHalfRead).toBeGreaterThan(0)
    expect(await batchJobsOf(t.store, owner)).toBeGreaterThanOrEqual(3)
    expect(JSON.parse((await feedRow(t.store, id)).cursor!)).toEqual({ page: 1 })
    expect((await summaries(t.store, owner)).length).toBe(300)
  })

  it('names a refusal by its page and line, and stops at the feed’s cap per run', async () => {
    const owner = await freshOwner()
    const id = await insertFeed(t.store, { name: 'capped', owner, createdBy: adminId, maxObjectsPerRun: 3 })
    const remaining: number[] = []
    const { puller } = pagedPuller(
      [['10.2.1.1', 'not-an-address'], ['10.2.2.1', '10.2.2.2'], ['10.2.3.1']],
      (_n, ctx) => void remaining.push(ctx.remaining),
    )
    const run = (await runFeed(t.store, t.services, id, depsOf(puller), manual))!
    expect(run).toMatchObject({ status: 'Succeeded', pages: 2, fetched: 4, created: 3, refused: 1 })
    expect(run.refusals).toHaveLength(1)
    expect(run.refusals[0].item).toBe('page 1, line 2')
    expect(remaining).toEqual([3, 1])
    expect(JSON.parse((await feedRow(t.store, id)).cursor!)).toEqual({ page: 2 })
  })
})

describe('failures', () => {
  it('honours a 429’s Retry-After: the next run comes no sooner', async () => {
    const owner = await freshOwner()
    const id = await insertFeed(t.store, { name: 'rate-limited', owner, createdBy: adminId })
    const puller: Puller = {
      // biome-ignore lint/correctness/useYield: it fails before its first page
      async *pull() {
        throw new FeedFetchError('status', 'feeds.example answered 429', { status: 429, retryAfterMs: 20 * MINUTE })
      },
    }
    const run = (await runFeed(t.store, t.services, id, depsOf(puller), manual))!
    expect(run).toMatchObject({ status: 'Failed', error: 'status: feeds.example answered 429' })
    const feed = await feedRow(t.store, id)
    expect(feed.failures).toBe(1)
    expect(Date.parse(feed.next_run_at) - Date.parse(run.finishedAt!)).toBe(20 * MINUTE)
    // Due later, so not among the due feeds now.
    expect(await dueFeedIds(t.store, 100)).not.toContain(id)
  })

  it('backs off one minute doubled per failure in a row, at most the interval; a success starts over', async () => {
    expect([1, 2, 3, 4].map((f) => retryDelayMs(new Error('x'), f, 3600_000))).toEqual([
      MINUTE,
      2 * MINUTE,
      4 * MINUTE,
      8 * MINUTE,
    ])
    expect(retryDelayMs(new Error('x'), 10, 300_000)).toBe(300_000)
    // A Retry-After shorter than the back-off does not bring the run sooner than the back-off.
    expect(retryDelayMs(new FeedFetchError('status', '503', { status: 503, retryAfterMs: 1000 }), 3, 3600_000)).toBe(
      4 * MINUTE,
    )
    const owner = await freshOwner()
    const id = await insertFeed(t.store, { name: 'failing', owner, createdBy: adminId, failures: 3 })
    const puller: Puller = {
      // biome-ignore lint/correctness/useYield: it fails before its first page
      async *pull() {
        throw new Error('the list moved')
      },
    }
    const run = (await runFeed(t.store, t.services, id, depsOf(puller), manual))!
    const feed = await feedRow(t.store, id)
    expect(feed.failures).toBe(4)
    expect(Date.parse(feed.next_run_at) - Date.parse(run.finishedAt!)).toBe(8 * MINUTE)
  })

  it('keeps the feed’s credentials out of the run’s error', async () => {
    const owner = await freshOwner()
    const credentials = sealCredentials({ kind: 'basic', user: 'reader', password: 's3cret-pw' }, t.services.secretBox)
    const id = await insertFeed(t.store, { name: 'leaky', owner, createdBy: adminId, credentials })
    const puller: Puller = {
      // biome-ignore lint/correctness/useYield: it fails before its first page
      async *pull(ctx) {
        const { user, password } = ctx.feed.credentials as { user: string; password: string }
        throw new Error(`GET https://${user}:${password}@feeds.example/x failed; password was ${password}`)
      },
    }
    const run = (await runFeed(t.store, t.services, id, depsOf(puller), manual))!
    expect(run.error).toBe('GET https://feeds.example/x failed; password was [redacted]')
    expect(
      safeMessage(new Error('token abc'), { credentials: { kind: 'bearer', token: 'abc' } } as FeedDefinition),
    ).toBe('token [redacted]')
  })

  it('fails clearly for a kind this server has no puller for', async () => {
    const owner = await freshOwner()
    const id = await insertFeed(t.store, { name: 'no-puller', owner, createdBy: adminId, kind: 'taxii11' })
    const run = (await runFeed(t.store, t.services, id, { pullerOf: () => undefined, http: () => noHttp }, manual))!
    expect(run).toMatchObject({ status: 'Failed', error: 'This server has no puller for taxii11 feeds' })
  })
})

describe('defaults', () => {
  it('adds rating, confidence and tags an item lacks, and no security label when the feed sets none', async () => {
    const shape = withDefaults({ rating: 3, confidence: 60, tags: ['from-feed'] })
    expect(shape('indicator', { type: 'Address', summary: '10.3.0.1', rating: 5, tag: [{ name: 'own' }] })).toEqual({
      type: 'Address',
      summary: '10.3.0.1',
      rating: 5,
      confidence: 60,
      tag: [{ name: 'own' }, { name: 'from-feed' }],
    })
    expect(shape('association', { ref_1: 'x' })).toEqual({ ref_1: 'x' })
    expect(withDefaults({})('indicator', { type: 'Address', summary: '10.3.0.2' })).toEqual({
      type: 'Address',
      summary: '10.3.0.2',
    })

    const owner = await freshOwner()
    const id = await insertFeed(t.store, {
      name: 'defaults',
      owner,
      createdBy: adminId,
      defaults: { rating: 3, confidence: 60, tags: ['from-feed'] },
    })
    const puller: Puller = {
      async *pull() {
        const batch = {
          indicator: [
            { type: 'Address', summary: '10.3.1.1', rating: 5 },
            { type: 'Address', summary: '10.3.1.2' },
          ],
        }
        yield { format: 'batch', content: chunks(JSON.stringify(batch)), name: 'page 1', fetched: 2, cursor: { p: 1 } }
      },
    }
    const run = (await runFeed(t.store, t.services, id, depsOf(puller), manual))!
    expect(run).toMatchObject({ status: 'Succeeded', created: 2 })
    const rows = await t.store.db
      .selectFrom('indicator')
      .select(['id', 'summary', 'rating', 'confidence'])
      .where('owner_id', '=', owner)
      .orderBy('summary')
      .execute()
    expect(rows.map((r) => [r.summary, Number(r.rating), r.confidence])).toEqual([
      ['10.3.1.1', 5, 60],
      ['10.3.1.2', 3, 60],
    ])
    const ownerName = `Feed Source ${feedCount}`
    for (const row of rows) {
      const got = await t.request({
        method: 'GET',
        url: `/api/v3/indicators/${row.id}?owner=${encodeURIComponent(ownerName)}&fields=tags&fields=securityLabels`,
      })
      expect(got.statusCode).toBe(200)
      const data = got.json().data
      expect((data.tags?.data ?? []).map((tag: { name: string }) => tag.name)).toEqual(['from-feed'])
      expect(data.securityLabels?.data ?? []).toEqual([])
    }
  })

  it('gives items without a security label the feed’s', async () => {
    const owner = await freshOwner()
    const id = await insertFeed(t.store, {
      name: 'labelled',
      owner,
      createdBy: adminId,
      defaults: { securityLabel: 'TLP:AMBER' },
    })
    const { puller } = pagedPuller([['10.4.1.1']])
    expect((await runFeed(t.store, t.services, id, depsOf(puller), manual))!.status).toBe('Succeeded')
    const row = await t.store.db
      .selectFrom('indicator')
      .select('id')
      .where('owner_id', '=', owner)
      .executeTakeFirstOrThrow()
    const got = await t.request({
      method: 'GET',
      url: `/api/v3/indicators/${row.id}?owner=${encodeURIComponent(`Feed Source ${feedCount}`)}&fields=securityLabels`,
    })
    expect(got.json().data.securityLabels.data.map((l: { name: string }) => l.name)).toEqual(['TLP:AMBER'])
  })
})

describe('history', () => {
  it('keeps the newest runs of each feed, newest first', async () => {
    const owner = await freshOwner()
    const id = await insertFeed(t.store, { name: 'long-history', owner, createdBy: adminId })
    const other = await insertFeed(t.store, { name: 'other-history', owner, createdBy: adminId })
    await insertFeedRun(t.store.db, { feedId: other, trigger: 'schedule', worker: 'w', startedAt: isoNow() })
    const ids: number[] = []
    for (let i = 0; i < FEED_RUNS_KEPT + 5; i++)
      ids.push(await insertFeedRun(t.store.db, { feedId: id, trigger: 'schedule', worker: 'w', startedAt: isoNow() }))
    const { runs, count } = await feedRunHistory(t.store, id, { limit: 100 })
    expect(count).toBe(FEED_RUNS_KEPT)
    expect(runs.map((r) => r.id)).toEqual(ids.slice(5).reverse())
    const page = await feedRunHistory(t.store, id, { limit: 2, offset: 1 })
    expect(page.runs.map((r) => r.id)).toEqual([ids.at(-2), ids.at(-3)])
    expect((await feedRunHistory(t.store, other)).count).toBe(1)
  })
})

describe('a node that died mid-run', () => {
  it('its run becomes Interrupted and the feed resumes after its last stored page once the lease ran out', async () => {
    const owner = await freshOwner()
    const past = new Date(Date.now() - MINUTE).toISOString()
    const id = await insertFeed(t.store, { name: 'killed', owner, createdBy: adminId, nextRunAt: past })
    // As a node killed after storing page 1 leaves it: its lease (run out), its Running run, page 1's cursor.
    await t.store.db
      .updateTable('feed')
      .set({ lease_owner: 'dead-node:1', lease_expires: past, cursor: JSON.stringify({ page: 1 }) })
      .where('id', '=', id)
      .execute()
    const dead = await insertFeedRun(t.store.db, {
      feedId: id,
      trigger: 'schedule',
      worker: 'dead-node:1',
      startedAt: past,
    })
    expect(await sweepInterruptedFeedRuns(t.store)).toBeGreaterThanOrEqual(1)
    expect((await feedRunHistory(t.store, id)).runs[0]).toMatchObject({ id: dead, status: 'Interrupted' })

    const { puller, seen } = pagedPuller([['10.5.1.1'], ['10.5.2.1']])
    const run = (await runFeed(t.store, t.services, id, depsOf(puller), { trigger: 'schedule', workerId: 'node-b:1' }))!
    expect(run).toMatchObject({ status: 'Succeeded', trigger: 'schedule', pages: 1, created: 1 })
    expect(seen).toEqual([1])
    expect(await summaries(t.store, owner)).toEqual(['10.5.2.1'])
  })

  it('a lease still held is not taken: a scheduled run passes, a manual one says who holds it', async () => {
    const owner = await freshOwner()
    const id = await insertFeed(t.store, { name: 'held', owner, createdBy: adminId })
    const future = new Date(Date.now() + 10 * MINUTE).toISOString()
    await t.store.db
      .updateTable('feed')
      .set({ lease_owner: 'node-z:9', lease_expires: future })
      .where('id', '=', id)
      .execute()
    const { puller } = pagedPuller([['10.6.1.1']])
    expect(await runFeed(t.store, t.services, id, depsOf(puller), { trigger: 'schedule', workerId: 'node-b:1' })).toBe(
      undefined,
    )
    await expect(runFeed(t.store, t.services, id, depsOf(puller), manual)).rejects.toThrow(
      "Feed 'held' is being run now by another worker (node-z:9)",
    )
  })
})

describe('stopping and losing the lease', () => {
  it('a node that stops ends the run at a page boundary: Interrupted, the feed due again at once and free', async () => {
    const owner = await freshOwner()
    const id = await insertFeed(t.store, { name: 'stopped', owner, createdBy: adminId })
    const stopping = new AbortController()
    const { puller } = pagedPuller([['10.10.1.1'], ['10.10.2.1']], (n) => {
      if (n === 2) stopping.abort()
    })
    const run = (await runFeed(t.store, t.services, id, depsOf(puller), { ...manual, signal: stopping.signal }))!
    expect(run).toMatchObject({ status: 'Interrupted', pages: 1, created: 1 })
    const feed = await feedRow(t.store, id)
    expect(JSON.parse(feed.cursor!)).toEqual({ page: 1 })
    expect(feed.lease_owner).toBeNull()
    expect(feed.failures).toBe(0)
    expect(Date.parse(feed.next_run_at)).toBeLessThanOrEqual(Date.now())
    expect(await summaries(t.store, owner)).toEqual(['10.10.1.1'])
  })

  it('a node whose lease went to another stores nothing more: neither the page’s jobs nor its cursor', async () => {
    const owner = await freshOwner()
    const id = await insertFeed(t.store, { name: 'taken-over', owner, createdBy: adminId })
    const { puller } = pagedPuller([['10.11.1.1'], ['10.11.2.1']], async (n) => {
      // As when this node paused past its lease and another node claimed the feed.
      if (n === 2)
        await t.store.db.updateTable('feed').set({ lease_owner: 'node-thief:1' }).where('id', '=', id).execute()
    })
    const run = (await runFeed(t.store, t.services, id, depsOf(puller), manual))!
    expect(run).toMatchObject({ status: 'Interrupted', pages: 1, created: 1 })
    expect(run.error).toMatch(/taken over by another node/)
    const feed = await feedRow(t.store, id)
    expect(JSON.parse(feed.cursor!)).toEqual({ page: 1 })
    // The other node's lease is left as it is.
    expect(feed.lease_owner).toBe('node-thief:1')
    expect(await summaries(t.store, owner)).toEqual(['10.11.1.1'])
    expect(await batchJobsOf(t.store, owner)).toBe(1)
  })
})

describe('REST', () => {
  const kind: FeedKind = 'csv'
  afterEach(() => {
    PULLERS[kind] = REAL_PULLERS[kind]
  })

  it('POST /v3/feeds/{id}/run?wait=true runs it and answers the run; without wait, 202 and its id; GET …/runs lists them', async () => {
    const owner = await freshOwner()
    const id = await insertFeed(t.store, { name: 'rest-run', owner, createdBy: adminId, kind })
    PULLERS[kind] = {
      async *pull() {
        yield listPage(1, ['10.7.1.1', '10.7.1.2', 'nope'])
      },
    }
    const waited = await t.request({ method: 'POST', url: `/api/v3/feeds/${id}/run?wait=true`, as: sysadmin })
    expect(waited.statusCode).toBe(200)
    expect(waited.json()).toMatchObject({
      status: 'Success',
      data: { feed: 'rest-run', status: 'Succeeded', trigger: 'manual', pages: 1, fetched: 3, created: 2, refused: 1 },
    })
    expect(waited.json().data.refusals[0].item).toBe('page 1, line 3')

    const started = await t.request({ method: 'POST', url: `/api/v3/feeds/${id}/run`, as: sysadmin })
    expect(started.statusCode).toBe(202)
    const runId = started.json().data.id
    let runs: { id: number; status: string; unchanged: number }[] = []
    for (let i = 0; i < 100; i++) {
      runs = (await t.request({ method: 'GET', url: `/api/v3/feeds/${id}/runs`, as: sysadmin })).json().data
      if (runs[0]?.id === runId && runs[0].status !== 'Running') break
      await sleep(50)
    }
    // The same list again: its values are met again (the batch job counts them as updated, seen again).
    expect(runs[0]).toMatchObject({ id: runId, status: 'Succeeded', created: 0, updated: 2, refused: 1 })
    expect(runs).toHaveLength(2)

    // While another node runs it, a run now is refused and says so.
    const until = new Date(Date.now() + 10 * MINUTE).toISOString()
    await t.store.db
      .updateTable('feed')
      .set({ lease_owner: 'node-c:7', lease_expires: until })
      .where('id', '=', id)
      .execute()
    const busy = await t.request({ method: 'POST', url: `/api/v3/feeds/${id}/run?wait=true`, as: sysadmin })
    expect(busy.statusCode).toBe(400)
    expect(busy.json()).toEqual({
      errCode: '0x100A',
      message: "Feed 'rest-run' is being run now by another worker (node-c:7); its run shows in the feed's history",
      status: 'Error',
    })
  })

  it('refuses anyone but an administrator, in the v3 envelope, before saying whether the feed exists', async () => {
    const owner = await freshOwner()
    const id = await insertFeed(t.store, { name: 'rest-refused', owner, createdBy: adminId, kind })
    const user = await t.createAccount({ role: 'Standard User' })
    for (const [method, url] of [
      ['POST', `/api/v3/feeds/${id}/run?wait=true`],
      ['GET', `/api/v3/feeds/${id}/runs`],
    ] as const) {
      const res = await t.request({ method, url, as: user })
      // v3 answers a refusal of the caller's rights as the platform does: 401 with its envelope.
      expect(res.statusCode).toBe(401)
      expect(res.json()).toEqual({
        errCode: '0x1002',
        message: expect.stringMatching(
          /^Only system administrators \(Administrator or Operations Administrator\) manage feeds;/,
        ),
        status: 'Error',
      })
    }
    expect((await t.request({ method: 'GET', url: '/api/v3/feeds/999999/runs', as: sysadmin })).statusCode).toBe(404)
  })
})

describe('the scheduler and the metrics', () => {
  const kind: FeedKind = 'misp'
  afterEach(() => {
    PULLERS[kind] = REAL_PULLERS[kind]
  })

  it('runs due feeds two at a time, a slow one holding up no other; the metrics read each feed’s figures', async () => {
    const owner = await freshOwner()
    const slow = await insertFeed(t.store, { name: 'sched-slow', owner, createdBy: adminId, kind })
    const quick = await insertFeed(t.store, { name: 'sched-quick', owner, createdBy: adminId, kind })
    let release!: () => void
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    PULLERS[kind] = {
      async *pull(ctx) {
        if (ctx.feed.name === 'sched-slow') await held
        yield listPage(1, [ctx.feed.name === 'sched-slow' ? '10.8.1.1' : '10.8.2.1'])
      },
    }
    const scheduler = startFeedScheduler(t.store, t.services, { pollMs: 50 })
    try {
      for (let i = 0; i < 200 && (await feedRow(t.store, quick)).last_success_at === null; i++) await sleep(25)
      expect((await feedRow(t.store, quick)).last_success_at).not.toBeNull()
      expect((await feedRow(t.store, slow)).last_success_at).toBeNull()
      expect((await feedRunHistory(t.store, slow)).runs[0].status).toBe('Running')
      release()
      for (let i = 0; i < 200 && (await feedRow(t.store, slow)).last_success_at === null; i++) await sleep(25)
      expect((await feedRunHistory(t.store, slow)).runs.map((r) => r.status)).toEqual(['Succeeded'])
      expect((await feedRunHistory(t.store, quick)).runs.map((r) => r.status)).toEqual(['Succeeded'])
    } finally {
      release()
      await scheduler.stop()
    }
    const metrics = await createMetrics(t.store).registry.metrics()
    const lastSuccess = Date.parse((await feedRow(t.store, quick)).last_success_at!) / 1000
    expect(metrics).toContain(`bulwark_feed_last_success_timestamp_seconds{feed="sched-quick"} ${lastSuccess}`)
    expect(metrics).toContain('bulwark_feed_objects_last_run{feed="sched-quick",outcome="created"} 1')
    expect(metrics).toContain('bulwark_feed_objects_last_run{feed="sched-quick",outcome="refused"} 0')
    expect(metrics).toContain('bulwark_feed_failures{feed="sched-quick"} 0')
    expect(metrics).toContain('bulwark_feed_failures{feed="leaky"} 1')
  })
})

describe('two nodes', () => {
  it('racing for one due feed: exactly one runs it', async () => {
    const shared = await startSharedNodes(2)
    try {
      const [a, b] = shared.nodes
      const now = isoNow()
      const { id: ownerId } = await createOwner(a.store.db, { name: 'Race Source', type: 'Source' }, now)
      await createOwner(a.store.db, { name: 'Race Org', type: 'Organization' }, now)
      const { id: userId } = await createAccount(
        a.store.db,
        { userName: 'race-admin', kind: 'api', organization: 'Race Org', role: 'Organization Administrator' },
        now,
      )
      await setMembership(a.store.db, 'race-admin', 'Race Source', 'Director', now)
      const id = await insertFeed(a.store, { name: 'raced', owner: ownerId, createdBy: userId })
      const pulls: string[] = []
      const pullerFor = (node: string): Puller => ({
        async *pull() {
          pulls.push(node)
          await sleep(100)
          yield listPage(1, ['10.9.1.1'])
        },
      })
      const run = (node: { store: Store; services: Services }, name: string) =>
        startFeedRun(node.store, node.services, id, depsOf(pullerFor(name)), { trigger: 'schedule', workerId: name })
      const started = await Promise.all([run(a, 'node-a'), run(b, 'node-b'), run(a, 'node-a2'), run(b, 'node-b2')])
      const winners = started.filter((s) => s !== undefined)
      expect(winners).toHaveLength(1)
      expect((await winners[0]!.done).status).toBe('Succeeded')
      expect(pulls).toHaveLength(1)
      const history = await feedRunHistory(b.store, id)
      expect(history.count).toBe(1)
      // Ran and rescheduled: no longer due for anyone.
      expect(await run(b, 'node-b3')).toBeUndefined()
    } finally {
      await shared.close()
    }
  })
})

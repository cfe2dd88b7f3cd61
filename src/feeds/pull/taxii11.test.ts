/**
 * The TAXII 1.1 puller against another Bulwark over real HTTPS: discovery and collection
 * information find the poll service, windows of 24 hours are polled oldest first, results in
 * several parts are fetched with Poll_Fulfillment, and a pull killed after any page and resumed
 * from that page's cursor misses nothing.
 */
import { XMLParser } from 'fast-xml-parser'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FeedCursor, FeedDefinition } from '../../domain/feeds/feed.js'
import type { FeedHttp, PullPage } from '../../domain/feeds/pull.js'
import { ORG, type TestApp, createTestApp } from '../../test/harness.js'
import { type LoopbackHttpLog, loopbackFeedHttp } from '../../test/loopback-feed-http.js'
import { PULLERS } from '../pullers.js'
import { DEFAULT_LOOKBACK_DAYS, createTaxii11Puller } from './taxii11.js'

const DAY = 24 * 3_600_000
const BASE = Date.parse('2026-03-01T00:00:00.000Z')
/** 1,200 Indicators over four days (one each 288 s), and 100 more all changed at the end of the first day. */
const SPREAD = 1200
const AT_BOUNDARY = 100
/** The run's start: five days after BASE, so the pull polls five windows. */
const NOW = new Date(BASE + 5 * DAY).toISOString()
const iso = (ms: number) => new Date(ms).toISOString()

function feed(url: string, settings: FeedDefinition['settings'], extra: Partial<FeedDefinition> = {}): FeedDefinition {
  return {
    id: 1,
    name: 'taxii11 test feed',
    kind: 'taxii11',
    url,
    owner: 'Feed Source',
    ownerId: 1,
    intervalSeconds: 3600,
    enabled: true,
    settings,
    defaults: {},
    nextRunAt: NOW,
    failures: 0,
    dateAdded: NOW,
    lastModified: NOW,
    cursor: null,
    importFrom: iso(BASE),
    ...extra,
  }
}

interface Pulled {
  pages: PullPage[]
  /** The Bulwark Indicator ids of each page, as its packages hold them. */
  ids: string[][]
  texts: string[]
}

async function pull(
  definition: FeedDefinition,
  http: FeedHttp,
  options: { cursor?: FeedCursor | null; remaining?: number; now?: string } = {},
): Promise<Pulled> {
  const out: Pulled = { pages: [], ids: [], texts: [] }
  for await (const page of createTaxii11Puller().pull({
    feed: definition,
    cursor: options.cursor ?? null,
    http,
    now: options.now ?? NOW,
    signal: new AbortController().signal,
    remaining: options.remaining ?? Number.MAX_SAFE_INTEGER,
  })) {
    let text = ''
    for await (const chunk of page.content) text += chunk
    out.pages.push(page)
    out.texts.push(text)
    out.ids.push([...text.matchAll(/<stix:Indicator [^>]*id="bulwark:indicator-(\d+)"/g)].map((m) => m[1]))
    expect(out.ids.at(-1)).toHaveLength(page.fetched)
  }
  return out
}

const flat = (pulled: Pulled, from = 0, to = pulled.ids.length) => pulled.ids.slice(from, to).flat()

describe('TAXII 1.1 feed from another Bulwark', () => {
  let t: TestApp
  let http: FeedHttp
  let discovery: string
  let pollUrl: string
  const log: LoopbackHttpLog[] = []
  const password = 'feed-reader-password-11'
  let full: Pulled
  let all: string[]

  beforeAll(async () => {
    t = await createTestApp({ listen: true, taxii11Poll: { partSize: 200, blockSize: 10 } })
    const org = (await t.store.db.selectFrom('owner').select('id').where('name', '=', ORG).executeTakeFirstOrThrow())
      .id
    const account = await t.createAccount({ kind: 'taxii', password })
    http = loopbackFeedHttp({ user: account.userName, password }, log)
    discovery = `${t.baseUrl}/api/taxii/discovery/`
    pollUrl = `${t.baseUrl}/api/taxii/poll/`
    const rows = Array.from({ length: SPREAD + AT_BOUNDARY }, (_, k) => ({
      owner_id: org,
      type: 'Host',
      summary: `p${k}.example`,
      value1: `p${k}.example`,
      date_added: iso(BASE),
      // The first 1,200 one each 288 s after BASE (the last 4 days less 288 s on), the others all at the first window's inclusive end.
      last_modified: k < SPREAD ? iso(BASE + (k + 1) * 288_000) : iso(BASE + DAY),
    }))
    for (let i = 0; i < rows.length; i += 500)
      await t.store.db
        .insertInto('indicator')
        .values(rows.slice(i, i + 500))
        .execute()
    full = await pull(feed(discovery, { collection: ORG }), http)
    all = flat(full)
  })
  afterAll(() => t?.close())

  it('is the registered taxii11 puller', () => {
    expect(PULLERS.taxii11).toBeDefined()
  })

  it('finds the poll service through discovery and collection information', () => {
    const services = log.slice(0, 3).map((l) => new URL(l.url).pathname)
    expect(services).toEqual(['/api/taxii/discovery/', '/api/taxii/collection-management/', '/api/taxii/poll/'])
  })

  it('brings every Indicator exactly once, window after window, in parts', () => {
    expect(all).toHaveLength(SPREAD + AT_BOUNDARY)
    expect(new Set(all).size).toBe(SPREAD + AT_BOUNDARY)
    // Day 1: 300 by time + 100 at its end = 400 = 2 parts; days 2–4: 300 each = 2 parts; day 5: nothing.
    expect(full.pages.map((p) => p.fetched)).toEqual([200, 200, 200, 100, 200, 100, 200, 100, 0])
    for (const page of full.pages) expect(page.format).toBe('stix1')
  })

  it('moves the cursor to a window’s end only with its last part, and past empty windows with an empty page', () => {
    const ends = full.pages.map((p) => p.cursor)
    // Part 1 of a two-part window keeps the window's begin; its last part moves the cursor to the window's end.
    expect(ends).toEqual([0, 1, 1, 2, 2, 3, 3, 4, 5].map((day) => ({ collection: ORG, end: iso(BASE + day * DAY) })))
    expect(full.pages.at(-1)).toMatchObject({ fetched: 0, cursor: { collection: ORG, end: NOW } })
    expect(full.texts.at(-1)).toBe('')
  })

  it('gives each content block’s STIX_Package whole, declaring the namespaces it uses', () => {
    const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@' })
    const packages = full.texts[0].split(/(?=<stix:STIX_Package )/)
    expect(packages).toHaveLength(20) // blocks of 10 Indicators
    for (const text of packages) {
      expect(text).toMatch(/^<stix:STIX_Package [^>]*xmlns:stix="http:\/\/stix\.mitre\.org\/stix-1"/)
      expect(text).toMatch(/^<stix:STIX_Package [^>]*xmlns:indicator="http:\/\/stix\.mitre\.org\/Indicator-2"/)
      expect(text).toMatch(/^<stix:STIX_Package [^>]*xmlns:xsi="http:\/\/www\.w3\.org\/2001\/XMLSchema-instance"/)
      const doc = parser.parse(text)
      expect(doc['stix:STIX_Package']['stix:Indicators']['stix:Indicator']).toHaveLength(10)
    }
  })

  it('resumed from the cursor of any page after a kill, misses nothing', async () => {
    for (let k = 0; k < full.pages.length - 1; k++) {
      const resumed = await pull(feed(discovery, { collection: ORG }), http, { cursor: full.pages[k].cursor })
      const union = new Set([...flat(full, 0, k + 1), ...flat(resumed)])
      expect(union.size, `killed after page ${k + 1}`).toBe(SPREAD + AT_BOUNDARY)
    }
  })

  it('after a whole pull, the next run polls only since, and brings what changed', async () => {
    const later = BASE + 5 * DAY + 3_600_000
    const org = (await t.store.db.selectFrom('owner').select('id').where('name', '=', ORG).executeTakeFirstOrThrow())
      .id
    const [{ id }] = await t.store.db
      .insertInto('indicator')
      .values({
        owner_id: org,
        type: 'Host',
        summary: 'later.example',
        value1: 'later.example',
        date_added: iso(later),
        last_modified: iso(later),
      })
      .returning('id')
      .execute()
    const next = await pull(feed(discovery, { collection: ORG }), http, {
      cursor: full.pages.at(-1)!.cursor,
      now: iso(later + 60_000),
    })
    expect(flat(next)).toEqual([String(id)])
    expect(next.pages.at(-1)!.cursor).toEqual({ collection: ORG, end: iso(later + 60_000) })
  })

  it('polls the poll URL directly when settings name it, and stops at a window boundary once past the cap', async () => {
    const before = log.length
    const first = await pull(feed('https://127.0.0.1:9/unused', { collection: ORG, pollUrl }), http, { remaining: 250 })
    expect(log.slice(before).every((l) => l.url === pollUrl)).toBe(true)
    // The first window is 400 Indicators in two parts: past 250 only after it, so the run ends at its end.
    expect(first.pages.map((p) => p.fetched)).toEqual([200, 200])
    expect(first.pages.at(-1)!.cursor).toEqual({ collection: ORG, end: iso(BASE + DAY) })
    const rest = await pull(feed(discovery, { collection: ORG, pollUrl }), http, { cursor: first.pages.at(-1)!.cursor })
    expect(new Set([...flat(first), ...flat(rest)]).size).toBe(SPREAD + AT_BOUNDARY)
  })

  it('starts DEFAULT_LOOKBACK_DAYS back without importFrom', async () => {
    const before = log.length
    const now = iso(BASE + DEFAULT_LOOKBACK_DAYS * DAY - 1)
    const pulled = await pull(feed(discovery, { collection: ORG }, { importFrom: undefined }), http, { now })
    // Everything from BASE on (the later Indicator too), in one poll a day, plus the second parts of four days.
    expect(new Set(flat(pulled)).size).toBe(SPREAD + AT_BOUNDARY + 1)
    expect(log.slice(before).filter((l) => l.url.endsWith('/poll/'))).toHaveLength(DEFAULT_LOOKBACK_DAYS + 4)
    expect(pulled.pages.at(-1)!.cursor).toEqual({ collection: ORG, end: now })
  })

  it('says clearly when the collection is not there', async () => {
    await expect(pull(feed(discovery, { collection: 'No Such Feed' }), http)).rejects.toMatchObject({
      code: 'not_found',
      message: expect.stringMatching(/collection 'No Such Feed' is not at .*\/api\/taxii\/discovery\/: it offers .*Test Organization/),
    })
    await expect(pull(feed(discovery, { collection: 'No Such Feed', pollUrl }), http)).rejects.toMatchObject({
      code: 'not_found',
      message: expect.stringMatching(/poll of 'No Such Feed' at .*\/api\/taxii\/poll\/ answered NOT_FOUND/),
    })
    await expect(pull(feed(discovery, {}), http)).rejects.toMatchObject({ code: 'invalid' })
  })
})

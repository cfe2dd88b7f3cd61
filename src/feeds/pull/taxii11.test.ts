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
  /** The Indicator ids of each page, as its packages hold them (Bulwark's without their prefix). */
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
    out.ids.push([...text.matchAll(/<stix:Indicator [^>]*?\bid="(?:bulwark:indicator-)?([^"]+)"/g)].map((m) => m[1]))
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
    const org = (await t.store.db.selectFrom('owner').select('id').where('name', '=', ORG).executeTakeFirstOrThrow()).id
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
    const org = (await t.store.db.selectFrom('owner').select('id').where('name', '=', ORG).executeTakeFirstOrThrow()).id
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
      message: expect.stringMatching(
        /collection 'No Such Feed' is not at .*\/api\/taxii\/discovery\/: it offers .*Test Organization/,
      ),
    })
    await expect(pull(feed(discovery, { collection: 'No Such Feed', pollUrl }), http)).rejects.toMatchObject({
      code: 'not_found',
      message: expect.stringMatching(/poll of 'No Such Feed' at .*\/api\/taxii\/poll\/ answered NOT_FOUND/),
    })
    await expect(pull(feed(discovery, {}), http)).rejects.toMatchObject({ code: 'invalid' })
  })
})

describe('TAXII 1.1 messages as other servers write them', () => {
  const NS = 'xmlns:taxii_11="http://taxii.mitre.org/messages/taxii_xml_binding-1.1"'
  const STIX_NS =
    'xmlns:stix="http://stix.mitre.org/stix-1" xmlns:indicator="http://stix.mitre.org/Indicator-2" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:ex="http://example.com/"'
  // The STIX namespaces declared on the message, not the package; a second package carried as escaped text.
  const RESPONSE = `<?xml version="1.0" encoding="UTF-8"?>
<taxii_11:Poll_Response ${NS} ${STIX_NS} message_id="r1" in_response_to="q1" collection_name="c" more="false">
  <taxii_11:Inclusive_End_Timestamp>2026-03-01T12:00:00Z</taxii_11:Inclusive_End_Timestamp>
  <taxii_11:Content_Block>
    <taxii_11:Content_Binding binding_id="urn:stix.mitre.org:xml:1.1.1"/>
    <taxii_11:Content>
      <stix:STIX_Package id="ex:Package-1" version="1.1.1"><stix:Indicators><stix:Indicator xsi:type="indicator:IndicatorType" id="ex:indicator-1"><indicator:Title>a &lt;b&gt; &amp; c&#13;d "q"</indicator:Title></stix:Indicator></stix:Indicators></stix:STIX_Package>
    </taxii_11:Content>
  </taxii_11:Content_Block>
  <taxii_11:Content_Block>
    <taxii_11:Content_Binding binding_id="urn:stix.mitre.org:xml:1.1.1"/>
    <taxii_11:Content>&lt;?xml version="1.0"?&gt;&lt;stix:STIX_Package xmlns:stix="http://stix.mitre.org/stix-1" id="p2"&gt;&lt;stix:Indicators&gt;&lt;stix:Indicator id="i2"/&gt;&lt;stix:Indicator id="i3"/&gt;&lt;/stix:Indicators&gt;&lt;/stix:STIX_Package&gt;</taxii_11:Content>
  </taxii_11:Content_Block>
</taxii_11:Poll_Response>`
  const EMPTY = `<taxii_11:Poll_Response ${NS} message_id="r2" in_response_to="q2" collection_name="c" more="false"/>`

  function canned(answers: string[], sent: { headers: Record<string, string>; body: string }[]): FeedHttp {
    return {
      async request(url, init = {}) {
        sent.push({ headers: init.headers ?? {}, body: init.body ?? '' })
        const text = answers.shift() ?? EMPTY
        return {
          status: 200,
          url,
          header: () => undefined,
          async *chunks() {
            yield Buffer.from(text)
          },
          text: async () => text,
        }
      },
    }
  }

  it('copies the namespaces in scope onto each package, keeps every character, reads escaped packages, and ends where the server says it served', async () => {
    const sent: { headers: Record<string, string>; body: string }[] = []
    const pulled = await pull(
      feed(
        'https://feed.example/taxii-discovery-service',
        { collection: 'c', pollUrl: 'https://feed.example/poll' },
        { importFrom: '2026-03-01T00:00:00.000Z' },
      ),
      canned([RESPONSE], sent),
      { now: '2026-03-01T23:00:00.000Z' },
    )
    expect(sent[0].headers).toMatchObject({
      'content-type': 'application/xml',
      'x-taxii-content-type': 'urn:taxii.mitre.org:message:xml:1.1',
      'x-taxii-services': 'urn:taxii.mitre.org:services:1.1',
      'x-taxii-protocol': 'urn:taxii.mitre.org:protocol:https:1.0',
    })
    expect(sent[0].body).toMatch(
      /<taxii_11:Poll_Request xmlns:taxii_11="http:\/\/taxii\.mitre\.org\/messages\/taxii_xml_binding-1\.1" message_id="[0-9a-f-]{36}" collection_name="c"><taxii_11:Exclusive_Begin_Timestamp>2026-03-01T00:00:00\.000Z<\/taxii_11:Exclusive_Begin_Timestamp><taxii_11:Inclusive_End_Timestamp>2026-03-01T23:00:00\.000Z<\/taxii_11:Inclusive_End_Timestamp><taxii_11:Poll_Parameters allow_asynch="false"><taxii_11:Response_Type>FULL<\/taxii_11:Response_Type><taxii_11:Content_Binding binding_id="urn:stix\.mitre\.org:xml:1\.1\.1"\/>/,
    )
    // The server served the first window only to 12:00, so the next poll begins there.
    expect(sent[1].body).toContain('<taxii_11:Exclusive_Begin_Timestamp>2026-03-01T12:00:00.000Z<')
    expect(pulled.pages.map((p) => [p.fetched, p.cursor])).toEqual([
      [3, { collection: 'c', end: '2026-03-01T12:00:00.000Z' }],
      [0, { collection: 'c', end: '2026-03-01T23:00:00.000Z' }],
    ])
    const [first, second] = pulled.texts[0].split(/(?=<stix:STIX_Package )/)
    expect(first).toBe(
      '<stix:STIX_Package xmlns:taxii_11="http://taxii.mitre.org/messages/taxii_xml_binding-1.1" xmlns:stix="http://stix.mitre.org/stix-1" xmlns:indicator="http://stix.mitre.org/Indicator-2" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:ex="http://example.com/" id="ex:Package-1" version="1.1.1"><stix:Indicators><stix:Indicator xsi:type="indicator:IndicatorType" id="ex:indicator-1"><indicator:Title>a &lt;b&gt; &amp; c&#13;d "q"</indicator:Title></stix:Indicator></stix:Indicators></stix:STIX_Package>',
    )
    expect(second).toBe(
      '<stix:STIX_Package xmlns:stix="http://stix.mitre.org/stix-1" id="p2"><stix:Indicators><stix:Indicator id="i2"/><stix:Indicator id="i3"/></stix:Indicators></stix:STIX_Package>',
    )
  })

  it('refuses a DTD and names a Status_Message', async () => {
    const dtd = `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><taxii_11:Poll_Response ${NS} message_id="r" in_response_to="q" collection_name="c"/>`
    const options = { now: '2026-03-01T23:00:00.000Z' }
    const definition = feed('https://feed.example/d', { collection: 'c', pollUrl: 'https://feed.example/poll' })
    await expect(pull(definition, canned([dtd], []), options)).rejects.toMatchObject({
      code: 'invalid',
      message: expect.stringContaining('holds a DTD'),
    })
    const status = `<taxii_11:Status_Message ${NS} message_id="s" in_response_to="q" status_type="UNAUTHORIZED"><taxii_11:Message>who are you</taxii_11:Message></taxii_11:Status_Message>`
    await expect(pull(definition, canned([status], []), options)).rejects.toMatchObject({
      code: 'invalid',
      message: "the poll of 'c' at https://feed.example/poll answered UNAUTHORIZED: who are you",
    })
  })
})

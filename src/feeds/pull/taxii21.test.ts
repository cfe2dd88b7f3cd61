/**
 * The TAXII 2.1 puller against another Bulwark over real HTTPS, and against OASIS medallion (the
 * reference TAXII 2.1 server) when the machine has it: every object arrives, exactly once in one
 * pull, and a pull killed after any page and resumed from that page's cursor misses nothing, also
 * where thousands of objects share one date_added across page boundaries, and where the server
 * serves its Groups and relationships after all its Indicators (the sweep).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FeedCursor, FeedDefinition } from '../../domain/feeds/feed.js'
import type { FeedHttp, PullPage } from '../../domain/feeds/pull.js'
import { ORG, type TestApp, createTestApp } from '../../test/harness.js'
import { type LoopbackHttpLog, loopbackFeedHttp } from '../../test/loopback-feed-http.js'
import { CLIENTS_DIR, PYTHON } from '../../test/real-clients.js'
import { findFormat } from '../../formats/index.js'
import { PULLERS } from '../pullers.js'
import { SWEEP_TYPES, createTaxii21Puller, microseconds, newestBelow } from './taxii21.js'

const ROOT_PATH = '/api/services/taxii/v2/taxii/svc_taxii/'
const INDICATORS = 3000
/** Indicators 1000–1249 share one last change (their date_added): pages 11 to 13 of 100 cut through them. */
const SHARED_FROM = 1000
const SHARED_COUNT = 250
const BASE = Date.parse('2026-03-01T00:00:00.000Z')
const SHARED_AT = new Date(BASE + SHARED_FROM * 1000).toISOString()
const taxiiTime = (ms: number) => `${new Date(ms).toISOString().slice(0, 23)}000Z`
/**
 * Groups and their relationships, which Bulwark serves after all its Indicators though most are
 * dated among them: Group j is dated as h(50+100j), its relationship to h(100j) as h(75+100j), its
 * relationship to Group j+1 as h(80+100j). One more Group is dated after the last Indicator.
 */
const GROUP_TYPES = ['Adversary', 'Campaign', 'Incident', 'Intrusion Set', 'Malware', 'Tool', 'Attack Pattern']
const GROUPS = 30
const GRAPH = GROUPS + 1 + GROUPS + (GROUPS - 1)
const LAST_GROUP_AT = BASE + (INDICATORS - 1) * 1000 + 500
const ALL = INDICATORS + 4 + GRAPH
const isGraph = (o: { type: string }) => o.type !== 'indicator' && o.type !== 'marking-definition'
/** Requests of the sweep: the only ones with match[type] where the feed sets no types. */
const sweepRequests = (log: LoopbackHttpLog[]) =>
  log.filter((l) => l.url.includes('/objects/') && new URL(l.url).searchParams.has('match[type]'))

function feed(url: string, settings: FeedDefinition['settings'], extra: Partial<FeedDefinition> = {}): FeedDefinition {
  return {
    id: 1,
    name: 'taxii21 test feed',
    kind: 'taxii21',
    url,
    owner: 'Feed Source',
    ownerId: 1,
    intervalSeconds: 3600,
    enabled: true,
    settings,
    defaults: {},
    nextRunAt: '2026-03-01T00:00:00.000Z',
    failures: 0,
    dateAdded: '2026-03-01T00:00:00.000Z',
    lastModified: '2026-03-01T00:00:00.000Z',
    cursor: null,
    ...extra,
  }
}

interface Pulled {
  pages: PullPage[]
  /** The objects of each page, as its bundle text holds them. */
  objects: { id: string; type: string }[][]
  texts: string[]
}

async function pull(
  definition: FeedDefinition,
  http: FeedHttp,
  options: {
    cursor?: FeedCursor | null
    pageSize?: number
    remaining?: number
    between?: () => Promise<void>
    signal?: AbortSignal
  } = {},
): Promise<Pulled> {
  const puller = createTaxii21Puller({ pageSize: options.pageSize ?? 100 })
  const out: Pulled = { pages: [], objects: [], texts: [] }
  for await (const page of puller.pull({
    feed: definition,
    cursor: options.cursor ?? null,
    http,
    now: new Date().toISOString(),
    signal: options.signal ?? new AbortController().signal,
    remaining: options.remaining ?? Number.MAX_SAFE_INTEGER,
  })) {
    let text = ''
    for await (const chunk of page.content) text += chunk
    const bundle = JSON.parse(text)
    expect(bundle.type).toBe('bundle')
    expect(bundle.id).toMatch(/^bundle--[0-9a-f-]{36}$/)
    expect(bundle.objects).toHaveLength(page.fetched)
    out.pages.push(page)
    out.objects.push(bundle.objects)
    out.texts.push(text)
    await options.between?.()
  }
  return out
}

const idsOf = (pulled: Pulled, from = 0, to = pulled.objects.length) =>
  pulled.objects.slice(from, to).flatMap((objects) => objects.map((o) => o.id))

function countsOf(ids: string[]): Map<string, number> {
  const counts = new Map<string, number>()
  for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1)
  return counts
}

describe('cursor arithmetic', () => {
  it('microseconds compare TAXII timestamps of any precision and zone, cutting what is finer', () => {
    expect(microseconds('2026-03-01T00:00:00.000001Z')! - microseconds('2026-03-01T00:00:00Z')!).toBe(1)
    expect(microseconds('2026-03-01T01:00:00.5+01:00')).toBe(microseconds('2026-03-01T00:00:00.500000Z'))
    expect(microseconds('2026-03-01T00:00:00.0000019Z')).toBe(microseconds('2026-03-01T00:00:00.000001Z'))
    expect(microseconds('yesterday')).toBeUndefined()
  })

  it('the newest known date strictly below the page’s last, or none', () => {
    const last = '2026-03-01T00:00:05.000000Z'
    expect(newestBelow(last, ['2026-03-01T00:00:01.000000Z', '2026-03-01T00:00:04.999999Z', undefined])).toBe(
      '2026-03-01T00:00:04.999999Z',
    )
    expect(newestBelow(last, [last, '2026-03-01T00:00:05.0000001Z'])).toBeUndefined()
    expect(newestBelow(undefined, ['2026-03-01T00:00:01.000000Z'])).toBeUndefined()
  })
})

describe('TAXII 2.1 feed from another Bulwark', () => {
  let t: TestApp
  let http: FeedHttp
  let root: string
  const log: LoopbackHttpLog[] = []
  const password = 'feed-reader-password-1'
  let readerName: string
  let all: string[]
  let full: Pulled

  beforeAll(async () => {
    t = await createTestApp({ listen: true })
    const org = (await t.store.db.selectFrom('owner').select('id').where('name', '=', ORG).executeTakeFirstOrThrow()).id
    readerName = (await t.createAccount({ kind: 'taxii', password })).userName
    http = loopbackFeedHttp({ user: readerName, password }, log)
    root = `${t.baseUrl}${ROOT_PATH}`
    const rows = Array.from({ length: INDICATORS }, (_, k) => {
      const shared = k >= SHARED_FROM && k < SHARED_FROM + SHARED_COUNT
      return {
        owner_id: org,
        type: 'Host',
        summary: `h${k}.example`,
        value1: `h${k}.example`,
        date_added: new Date(BASE).toISOString(),
        last_modified: shared ? SHARED_AT : new Date(BASE + k * 1000).toISOString(),
      }
    })
    const indicatorIds: number[] = []
    for (let i = 0; i < rows.length; i += 500)
      indicatorIds.push(
        ...(
          await t.store.db
            .insertInto('indicator')
            .values(rows.slice(i, i + 500))
            .returning('id')
            .execute()
        ).map((r) => r.id),
      )
    const at = (ms: number) => new Date(ms).toISOString()
    const groupIds: number[] = []
    for (let j = 0; j <= GROUPS; j++) {
      const date = j < GROUPS ? at(BASE + (50 + 100 * j) * 1000) : at(LAST_GROUP_AT)
      const row = await t.store.db
        .insertInto('intel_group')
        .values({
          owner_id: org,
          type: GROUP_TYPES[j % GROUP_TYPES.length],
          name: `group ${j}`,
          date_added: date,
          last_modified: date,
        })
        .returning('id')
        .executeTakeFirstOrThrow()
      groupIds.push(row.id)
    }
    const link = (fromKind: string, fromId: number, toKind: string, toId: number, ms: number) => ({
      from_kind: fromKind,
      from_id: fromId,
      to_kind: toKind,
      to_id: toId,
      association_type_id: 0,
      source: 'API',
      date_added: at(ms),
    })
    const links = []
    for (let j = 0; j < GROUPS; j++) {
      const [g, i] = [groupIds[j], indicatorIds[100 * j]]
      links.push(link('group', g, 'indicator', i, BASE + (75 + 100 * j) * 1000))
      links.push(link('indicator', i, 'group', g, BASE + (75 + 100 * j) * 1000))
      if (j + 1 < GROUPS) {
        links.push(link('group', g, 'group', groupIds[j + 1], BASE + (80 + 100 * j) * 1000))
        links.push(link('group', groupIds[j + 1], 'group', g, BASE + (80 + 100 * j) * 1000))
      }
    }
    await t.store.db.insertInto('association').values(links).execute()
    full = await pull(feed(root, { collection: ORG }), http)
    all = idsOf(full)
  })
  afterAll(() => t?.close())

  it('is the registered taxii21 puller', () => {
    expect(PULLERS.taxii21).toBeDefined()
  })

  it('brings every object exactly once, a page per envelope, each within the limit', () => {
    // The four TLP marking definitions come first, then the Indicators, then the Groups and relationships.
    expect(all).toHaveLength(ALL)
    expect(new Set(all).size).toBe(ALL)
    expect(full.pages).toHaveLength(Math.ceil(ALL / 100))
    const graph = full.objects.flat().filter(isGraph)
    expect(graph.filter((o) => o.type === 'relationship')).toHaveLength(GRAPH - GROUPS - 1)
    expect(full.objects.at(-1)!.slice(-GRAPH)).toEqual(graph)
    expect(full.pages.map((p) => p.name).slice(0, 2)).toEqual(['page 1', 'page 2'])
    for (const page of full.pages) {
      expect(page.format).toBe('stix')
      expect(page.fetched).toBeLessThanOrEqual(100)
    }
    expect(full.objects[0].slice(0, 4).map((o) => o.type)).toEqual(Array(4).fill('marking-definition'))
    // Every request carried limit; the walk after the first followed `next` with the same added_after.
    const objectRequests = log.filter((l) => l.url.includes('/objects/'))
    expect(objectRequests.every((l) => new URL(l.url).searchParams.get('limit') === '100')).toBe(true)
    expect(objectRequests.slice(1).every((l) => new URL(l.url).searchParams.has('next'))).toBe(true)
    // A pull that ran unbroken makes no sweep.
    expect(sweepRequests(log)).toEqual([])
  })

  it('gives pages the stix reader reads', async () => {
    const reader = findFormat(full.pages[0].format)!.reader!
    const events = []
    for await (const event of reader.read(
      (async function* () {
        yield full.texts[0]
      })(),
      { name: full.pages[0].name },
    ))
      events.push(event)
    const indicators = events.flatMap((e) => (e.kind === 'element' ? e.indicators : []))
    expect(indicators).toHaveLength(96)
    expect(events.filter((e) => e.kind === 'input' || (e.kind === 'element' && e.error))).toEqual([])
  })

  it('keeps a cursor below each page’s last date, and the walk’s last date once it is whole', () => {
    const collection = full.pages[0].cursor.collection
    expect(typeof collection).toBe('string')
    // The cursor of an unfinished pull keeps where it began: here the beginning (null).
    expect(full.pages[0].cursor).toMatchObject({ collection, pullFrom: null })
    // Page 11 (h996…h1095) ends inside the run of equal dates: its cursor is its first date, the newest it knows below the run.
    expect(full.pages[10].cursor).toEqual({ collection, addedAfter: taxiiTime(BASE + 996 * 1000), pullFrom: null })
    // Page 12 is all one date: nothing on it is below its last, the cursor stays.
    expect(full.pages[11].cursor).toEqual(full.pages[10].cursor)
    // The last page ends with the newest Group; the whole pull's cursor is that date, without pullFrom.
    expect(full.pages.at(-1)!.cursor).toEqual({ collection, addedAfter: taxiiTime(LAST_GROUP_AT) })
    let previous = -1
    for (const page of full.pages) {
      const at = microseconds(page.cursor.addedAfter as string)!
      expect(at).toBeGreaterThanOrEqual(previous)
      previous = at
    }
  })

  it('resumed from the cursor of any page after a kill, misses nothing, re-reading at most the boundary and the sweep', async () => {
    for (const k of [0, 9, 10, 11, 12, 13, 20]) {
      const resumed = await pull(feed(root, { collection: ORG }), http, { cursor: full.pages[k].cursor })
      const union = new Set([...idsOf(full, 0, k + 1), ...idsOf(resumed)])
      expect(union.size, `killed after page ${k + 1}`).toBe(ALL)
      const reread = idsOf(resumed).length - idsOf(full, k + 1).length
      expect(reread, `killed after page ${k + 1}`).toBeGreaterThanOrEqual(0)
      expect(reread, `killed after page ${k + 1}`).toBeLessThanOrEqual(100 + SHARED_COUNT + GRAPH + 4)
      expect(resumed.pages.at(-1)!.cursor, `killed after page ${k + 1}`).toEqual(full.pages.at(-1)!.cursor)
    }
  })

  it('a pull killed among the Indicators and resumed gets every Group and relationship, through the sweep', async () => {
    const graphIds = new Set(
      full.objects
        .flat()
        .filter(isGraph)
        .map((o) => o.id),
    )
    const collection = full.pages[0].cursor.collection
    for (const k of [4, 20, 29]) {
      const before = log.length
      const resumed = await pull(feed(root, { collection: ORG }), http, { cursor: full.pages[k].cursor })
      const killedAt = full.pages[k].cursor.addedAfter as string
      // The walk resumed: its pages end with the one whose cursor starts the sweep from where the pull began.
      const walkEnd = resumed.pages.findIndex((p) => p.cursor.sweep !== undefined)
      expect(resumed.pages[walkEnd].cursor).toEqual({
        collection,
        addedAfter: taxiiTime(LAST_GROUP_AT),
        pullFrom: null,
        sweep: {},
      })
      // Alone, it would have lost the Groups and relationships dated at or before the kill's cursor…
      const walked = new Set([...idsOf(full, 0, k + 1), ...idsOf(resumed, 0, walkEnd + 1)])
      const lost = [...graphIds].filter((id) => !walked.has(id))
      expect(lost.length, `killed after page ${k + 1} (${killedAt})`).toBeGreaterThanOrEqual(
        Math.floor((k * 100) / 100),
      )
      // …which the sweep brings: every one of them, and every Indicator, arrives.
      const union = new Set([...idsOf(full, 0, k + 1), ...idsOf(resumed)])
      for (const id of graphIds) expect(union.has(id), `${id} after a kill after page ${k + 1}`).toBe(true)
      expect(union.size).toBe(ALL)
      expect(idsOf(resumed, walkEnd + 1).filter((id) => id.startsWith('indicator--'))).toEqual([])
      // One sweep, from the beginning (where the pull began), naming every type but indicator.
      const sweeps = sweepRequests(log.slice(before))
      expect(sweeps).toHaveLength(1)
      const query = new URL(sweeps[0].url).searchParams
      expect(query.has('added_after')).toBe(false)
      expect(query.get('match[type]')!.split(',')).toEqual([...SWEEP_TYPES])
      expect(SWEEP_TYPES).not.toContain('indicator')
      expect(SWEEP_TYPES).toEqual(expect.arrayContaining(['threat-actor', 'relationship', 'sighting', 'report']))
      // Once the sweep is whole, the cursor is the walk's last date and forgets where the pull began.
      expect(resumed.pages.at(-1)!.cursor).toEqual({ collection, addedAfter: taxiiTime(LAST_GROUP_AT) })
    }
  })

  it('a pull killed during its sweep resumes the sweep, from the sweep’s own cursor, and completes', async () => {
    // A pull from importFrom (its pullFrom), pages of 10: killed after its 20th page, then again during the sweep.
    const from = new Date(BASE + 2000.5 * 1000).toISOString()
    const definition = feed(root, { collection: ORG }, { importFrom: from })
    const collection = full.pages[0].cursor.collection
    const control = await pull(definition, http, { pageSize: 10 })
    const expected = new Set(idsOf(control))
    const beforeFirst = log.length
    const first = await pull(definition, http, { pageSize: 10, remaining: 200 })
    expect(first.pages).toHaveLength(20)
    expect(first.pages.at(-1)!.cursor).toMatchObject({ collection, pullFrom: taxiiTime(BASE + 2000.5 * 1000) })
    expect(sweepRequests(log.slice(beforeFirst))).toEqual([])
    const second = await pull(definition, http, { pageSize: 10, cursor: first.pages.at(-1)!.cursor })
    const sweepPages = second.pages.filter((p) => (p.cursor.sweep as { addedAfter?: string } | undefined)?.addedAfter)
    const sweepFrom = { addedAfter: taxiiTime(BASE + 2000.5 * 1000) }
    expect(sweepPages.length).toBeGreaterThanOrEqual(3)
    // The page that ends the walk starts the sweep at pullFrom; the sweep's pages move only its own cursor.
    expect(sweepPages[0].cursor).toEqual({
      collection,
      addedAfter: taxiiTime(LAST_GROUP_AT),
      pullFrom: sweepFrom.addedAfter,
      sweep: sweepFrom,
    })
    const kill = sweepPages[2]
    const killedAt = second.pages.indexOf(kill)
    expect((kill.cursor.sweep as { addedAfter: string }).addedAfter > sweepFrom.addedAfter).toBe(true)
    const beforeThird = log.length
    const third = await pull(definition, http, { pageSize: 10, cursor: kill.cursor })
    const requests = log.slice(beforeThird).filter((l) => l.url.includes('/objects/'))
    // Only the sweep is walked again, from the sweep's cursor, not the Indicators.
    expect(sweepRequests(requests)).toEqual(requests)
    expect(new URL(requests[0].url).searchParams.get('added_after')).toBe(
      (kill.cursor.sweep as { addedAfter: string }).addedAfter,
    )
    expect(idsOf(third).filter((id) => id.startsWith('indicator--'))).toEqual([])
    expect(third.pages.at(-1)!.cursor).toEqual({ collection, addedAfter: taxiiTime(LAST_GROUP_AT) })
    const union = new Set([...idsOf(first), ...idsOf(second, 0, killedAt + 1), ...idsOf(third)])
    expect(union).toEqual(expected)
    expect([...expected].filter((id) => !id.startsWith('indicator--')).length).toBeGreaterThan(20)
  })

  it('would lose the rest of a shared date were the cursor the page’s last date (what the cursor avoids)', async () => {
    const naive = { ...full.pages[11].cursor, addedAfter: `${SHARED_AT.slice(0, 23)}000Z` }
    const resumed = await pull(feed(root, { collection: ORG }), http, { cursor: naive })
    const union = new Set([...idsOf(full, 0, 12), ...idsOf(resumed)])
    expect(ALL - union.size).toBe(SHARED_FROM + SHARED_COUNT + 4 - 1200)
  })

  it('after a whole pull, the next pull brings only what came since', async () => {
    const again = await pull(feed(root, { collection: ORG }), http, { cursor: full.pages.at(-1)!.cursor })
    expect(again.pages).toEqual([])
    const org = (await t.store.db.selectFrom('owner').select('id').where('name', '=', ORG).executeTakeFirstOrThrow()).id
    await t.store.db
      .insertInto('indicator')
      .values({
        owner_id: org,
        type: 'Host',
        summary: 'later.example',
        value1: 'later.example',
        date_added: new Date(BASE).toISOString(),
        last_modified: new Date(BASE + INDICATORS * 1000).toISOString(),
      })
      .execute()
    const later = await pull(feed(root, { collection: ORG }), http, { cursor: full.pages.at(-1)!.cursor })
    expect(later.objects.flat().map((o) => (o as { name?: string }).name)).toEqual(['later.example'])
    expect(later.pages.map((p) => p.cursor)).toEqual([
      { collection: full.pages[0].cursor.collection, addedAfter: taxiiTime(BASE + INDICATORS * 1000) },
    ])
  })

  it('starts at importFrom on a first pull', async () => {
    const from = new Date(BASE + 2899.5 * 1000).toISOString()
    const pulled = await pull(feed(root, { collection: ORG }, { importFrom: from }), http)
    // h2900…h2999, later.example, Group 29 and its relationship to h2900, and the last Group.
    expect(idsOf(pulled)).toHaveLength(104)
  })

  it('stops at a page boundary once past the run’s cap, and the next run goes on from there', async () => {
    const first = await pull(feed(root, { collection: ORG }), http, { remaining: 250 })
    expect(first.pages).toHaveLength(3)
    const rest = await pull(feed(root, { collection: ORG }), http, { cursor: first.pages[2].cursor })
    expect(new Set([...idsOf(first), ...idsOf(rest)]).size).toBe(ALL + 1)
  })

  it('stops at the page boundary where the run is aborted', async () => {
    const stop = new AbortController()
    let pages = 0
    const before = log.length
    const pulled = await pull(feed(root, { collection: ORG }), http, {
      signal: stop.signal,
      between: async () => {
        if (++pages === 2) stop.abort()
      },
    })
    expect(pulled.pages).toHaveLength(2)
    expect(log.slice(before).filter((l) => l.url.includes('/objects/'))).toHaveLength(2)
  })

  it('does not stop inside a run of equal dates it could not move past', async () => {
    // Resumed just before the shared run with a cap of one object: pages 1 and 2 are all one date, so
    // the cursor cannot move until page 3 reaches past the run; a run stopped earlier would be cut there for ever.
    const collection = full.pages[0].cursor.collection
    const cursor = { collection, addedAfter: taxiiTime(BASE + 999 * 1000) }
    const pulled = await pull(feed(root, { collection: ORG }), http, { cursor, remaining: 1 })
    const unfinished = { ...cursor, pullFrom: cursor.addedAfter }
    expect(pulled.pages.map((p) => p.cursor)).toEqual([
      unfinished,
      unfinished,
      { ...unfinished, addedAfter: taxiiTime(Date.parse(SHARED_AT)) },
    ])
  })

  it('walks again from the stored cursor when a next has expired, and loses nothing', async () => {
    let pages = 0
    let refused: string | undefined
    const expiringLog: LoopbackHttpLog[] = []
    const expiring = loopbackFeedHttp({ user: readerName, password }, expiringLog, (url) => {
      // The request after page 5 finds its next gone, as medallion answers one it no longer holds.
      if (refused === undefined && pages === 5 && new URL(url).searchParams.has('next')) {
        refused = url
        return { status: 400, body: "'next' not valid" }
      }
      return undefined
    })
    const pulled = await pull(feed(root, { collection: ORG }), expiring, {
      between: async () => {
        pages++
      },
    })
    expect(refused).toBeDefined()
    expect(new Set(idsOf(pulled)).size).toBe(ALL + 1)
    // The walk restarted from page 5's cursor, re-reading the end of page 5. Begun again above
    // Groups and relationships it had not reached, it swept from the beginning: those dated
    // below page 5's cursor came by the sweep alone, the markings and the rest came twice.
    expect(sweepRequests(expiringLog)).toHaveLength(1)
    const reread = countsOf(idsOf(pulled))
    expect([...reread.values()].every((n) => n <= 2)).toBe(true)
    const twice = [...reread].filter(([, n]) => n === 2).map(([id]) => id)
    const indicatorsTwice = twice.filter((id) => id.startsWith('indicator--')).length
    expect(indicatorsTwice).toBeGreaterThan(0)
    expect(indicatorsTwice).toBeLessThanOrEqual(100)
    const restartedAt = pulled.pages[4].cursor.addedAfter as string
    const graphBelow = [...Array(GROUPS).keys()]
      .flatMap((j) => [50 + 100 * j, 75 + 100 * j, ...(j + 1 < GROUPS ? [80 + 100 * j] : [])])
      .filter((k) => taxiiTime(BASE + k * 1000) <= restartedAt).length
    expect(graphBelow).toBeGreaterThan(0)
    expect(twice.length - indicatorsTwice).toBe(4 + GRAPH - graphBelow)
  })

  it('sweeps only the types the feed asks for, and not at all for Indicators alone', async () => {
    const cursor = full.pages[20].cursor
    for (const [types, swept] of [
      [['indicator', 'relationship', 'identity'], 'relationship'],
      [['indicator'], undefined],
    ] as const) {
      const before = log.length
      const resumed = await pull(feed(root, { collection: ORG, types: [...types] }), http, { cursor })
      const sweeps = log
        .slice(before)
        .filter(
          (l) => l.url.includes('/objects/') && new URL(l.url).searchParams.get('match[type]') !== types.join(','),
        )
      expect(sweeps.map((l) => new URL(l.url).searchParams.get('match[type]'))).toEqual(swept ? [swept] : [])
      expect(resumed.pages.at(-1)!.cursor).toEqual({
        collection: cursor.collection,
        addedAfter: expect.any(String),
      })
      const relationships = new Set(
        resumed.objects
          .flat()
          .filter((o) => o.type === 'relationship')
          .map((o) => o.id),
      )
      expect(relationships.size).toBe(swept ? GRAPH - GROUPS - 1 : 0)
    }
    // A sweep under way when the feed's types changed to leave it nothing: the pull is whole, asking nothing.
    const before = log.length
    const sweeping = { collection: cursor.collection, addedAfter: taxiiTime(LAST_GROUP_AT), pullFrom: null, sweep: {} }
    const ended = await pull(feed(root, { collection: ORG, types: ['indicator'] }), http, { cursor: sweeping })
    expect(ended.pages.map((p) => [p.fetched, p.cursor])).toEqual([
      [0, { collection: cursor.collection, addedAfter: taxiiTime(LAST_GROUP_AT) }],
    ])
    expect(log.slice(before).filter((l) => l.url.includes('/objects/'))).toEqual([])
  })

  it('narrows to match[type]', async () => {
    const pulled = await pull(feed(root, { collection: ORG, types: ['marking-definition'] }), http)
    expect(pulled.objects.flat().map((o) => o.type)).toEqual(Array(4).fill('marking-definition'))
    const requests = log.filter((l) => l.url.includes('match%5Btype%5D=marking-definition'))
    expect(requests.length).toBeGreaterThan(0)
  })

  it('finds the collection by id, alias or title, in any case', async () => {
    const id = full.pages[0].cursor.collection as string
    for (const name of [id, ORG, ORG.toUpperCase()]) {
      const pulled = await pull(feed(root, { collection: name, types: ['marking-definition'] }), http)
      expect(pulled.pages[0].cursor.collection).toBe(id)
    }
  })

  it('says clearly when the collection is not there, naming what is', async () => {
    await expect(pull(feed(root, { collection: 'No Such Collection' }), http)).rejects.toMatchObject({
      code: 'not_found',
      message: expect.stringMatching(/'No Such Collection' is not at .*svc_taxii\/: it offers .*Test Organization/),
    })
    await expect(
      pull(feed(`${t.baseUrl}/api/services/taxii/v2/taxii/nowhere/`, { collection: ORG }), http),
    ).rejects.toMatchObject({ code: 'not_found', message: expect.stringMatching(/is not a TAXII 2.1 API root/) })
  })
})

/** medallion is installed with the other real clients (../shared/clients/README.md). */
const MEDALLION = join(CLIENTS_DIR, 'medallion-tls.py')
const noMedallion = !existsSync(MEDALLION) || !existsSync(join(CLIENTS_DIR, 'medallion'))
if (noMedallion) console.warn(`medallion feed tests skipped: ${CLIENTS_DIR} has no medallion-tls.py and medallion/`)

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

interface Medallion {
  root: string
  stop(): Promise<void>
}

/** Starts medallion over HTTPS on loopback with `data`, waiting until it answers. */
async function startMedallion(dir: string, data: object, backend: Record<string, unknown>): Promise<Medallion> {
  const port = await freePort()
  const dataFile = join(dir, `data-${port}.json`)
  const confFile = join(dir, `conf-${port}.json`)
  writeFileSync(dataFile, JSON.stringify(data))
  writeFileSync(
    confFile,
    JSON.stringify({
      backend: { module_class: 'MemoryBackend', filename: dataFile, ...backend },
      users: { feeder: 'feeder-password' },
      taxii: { max_page_size: 100 },
    }),
  )
  const child: ChildProcess = spawn(
    PYTHON,
    [
      MEDALLION,
      '--port',
      String(port),
      '--conf-file',
      confFile,
      '--cert',
      join(dir, 'cert.pem'),
      '--key',
      join(dir, 'key.pem'),
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } },
  )
  let stderr = ''
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
  })
  const deadline = Date.now() + 30_000
  while (!stderr.includes('listening on')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`medallion did not start:\n${stderr}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return {
    root: `https://127.0.0.1:${port}/api1/`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  }
}

const COLLECTION_ID = '91a7b528-80eb-42ed-a74d-c6fbd5a26116'
const MEDALLION_OBJECTS = 230

/**
 * 230 indicators whose date_added runs in groups: 40 share one date (positions 15–54, across the
 * pages of 10 from 2 to 6), another 30 share the last date.
 */
function medallionData(): { data: object; ids: string[] } {
  const objects: object[] = []
  const manifest: object[] = []
  const ids: string[] = []
  for (let k = 0; k < MEDALLION_OBJECTS; k++) {
    const group = k < 15 ? k : k < 55 ? 15 : k < 200 ? k - 39 : 161
    const dateAdded = new Date(Date.parse('2026-02-01T00:00:00Z') + group * 1000).toISOString()
    const id = `indicator--${String(k).padStart(8, '0')}-1111-4111-8111-111111111111`
    ids.push(id)
    const modified = '2026-01-01T00:00:00.000Z'
    objects.push({
      type: 'indicator',
      spec_version: '2.1',
      id,
      created: modified,
      modified,
      name: `m${k}.example`,
      pattern: `[domain-name:value = 'm${k}.example']`,
      pattern_type: 'stix',
      valid_from: modified,
    })
    manifest.push({
      id,
      date_added: `${dateAdded.slice(0, 23)}456Z`,
      version: modified,
      media_type: 'application/stix+json;version=2.1',
    })
  }
  ids.push('identity--00000000-2222-4222-8222-222222222222')
  objects.push({
    type: 'identity',
    spec_version: '2.1',
    id: ids.at(-1),
    created: '2026-01-01T00:00:00.000Z',
    modified: '2026-01-01T00:00:00.000Z',
    name: 'Feed author',
  })
  manifest.push({
    id: ids.at(-1),
    date_added: '2026-02-01T00:00:00.000000Z',
    version: '2026-01-01T00:00:00.000Z',
    media_type: 'application/stix+json;version=2.1',
  })
  const data = {
    '/discovery': {
      title: 'medallion for Bulwark feed tests',
      default: 'https://127.0.0.1/api1/',
      api_roots: ['https://127.0.0.1/api1/'],
    },
    api1: {
      information: {
        title: 'Feed root',
        versions: ['application/taxii+json;version=2.1'],
        max_content_length: 10_000_000,
      },
      status: [],
      collections: [
        {
          id: COLLECTION_ID,
          title: 'Shared Dates',
          alias: 'shared-dates',
          can_read: true,
          can_write: false,
          media_types: ['application/stix+json;version=2.1'],
          objects,
          manifest,
        },
      ],
    },
  }
  return { data, ids }
}

describe.skipIf(noMedallion)('TAXII 2.1 feed from medallion', () => {
  let dir: string
  let medallion: Medallion
  let expiring: Medallion
  let ids: string[]
  const http = loopbackFeedHttp({ user: 'feeder', password: 'feeder-password' })

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'bulwark-medallion-'))
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1'].concat([
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ]),
      { stdio: 'ignore' },
    )
    const built = medallionData()
    ids = built.ids
    ;[medallion, expiring] = await Promise.all([
      startMedallion(dir, built.data, { session_timeout: 600 }),
      startMedallion(dir, built.data, { session_timeout: 1, check_interval: 1 }),
    ])
  }, 60_000)
  afterAll(async () => {
    await Promise.all([medallion?.stop(), expiring?.stop()])
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('brings every object exactly once with a small limit, and resumes after any page without a loss', async () => {
    const definition = feed(medallion.root, { collection: 'shared-dates' })
    const full = await pull(definition, http, { pageSize: 10 })
    expect(full.pages).toHaveLength(Math.ceil(ids.length / 10))
    expect([...countsOf(idsOf(full)).values()].every((n) => n === 1)).toBe(true)
    expect(new Set(idsOf(full))).toEqual(new Set(ids))
    expect(full.pages.at(-1)!.cursor).toEqual({ collection: COLLECTION_ID, addedAfter: '2026-02-01T00:02:41.000456Z' })
    // Pages 2 to 6 cut through the 40 objects of one date; page 23 ends inside the last date's 30.
    for (const k of [0, 1, 2, 3, 4, 5, 9, 21, 22]) {
      const resumed = await pull(definition, http, { pageSize: 10, cursor: full.pages[k].cursor })
      const union = new Set([...idsOf(full, 0, k + 1), ...idsOf(resumed)])
      expect(union.size, `killed after page ${k + 1}`).toBe(ids.length)
    }
  }, 120_000)

  it('narrows to match[type] and finds the collection by title', async () => {
    const pulled = await pull(feed(medallion.root, { collection: 'Shared Dates', types: ['identity'] }), http)
    expect(idsOf(pulled)).toEqual(['identity--00000000-2222-4222-8222-222222222222'])
  })

  it('a collection medallion does not hold is a clear error', async () => {
    await expect(pull(feed(medallion.root, { collection: 'elsewhere' }), http)).rejects.toMatchObject({
      code: 'not_found',
      message: expect.stringMatching(
        /'elsewhere' is not at https:\/\/127\.0\.0\.1:\d+\/api1\/: it offers Shared Dates/,
      ),
    })
  })

  it('when medallion has forgotten a next (1 s here), walks again from the stored cursor and loses nothing', async () => {
    const definition = feed(expiring.root, { collection: COLLECTION_ID })
    let pages = 0
    const pulled = await pull(definition, http, {
      pageSize: 10,
      between: async () => {
        // After page 3 the run takes its time storing: medallion drops the walk's next meanwhile.
        if (++pages === 3) await new Promise((resolve) => setTimeout(resolve, 2500))
      },
    })
    expect(new Set(idsOf(pulled))).toEqual(new Set(ids))
    expect(idsOf(pulled).length).toBeGreaterThan(ids.length)
  }, 60_000)
})

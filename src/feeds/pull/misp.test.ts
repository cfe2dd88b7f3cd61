/**
 * A MISP feed pulled over HTTPS (a loopback server with a certificate made for the test), built from
 * the real MISP events of the shared data sets (ESET's, BSD-2-Clause: one `<uuid>.json` a event as
 * `{"Event": …}`, and the manifest MISP writes beside them). The first pull fetches every event,
 * oldest first, one page each, the manifest's ETag only on the last; a pull with that cursor asks
 * the manifest conditionally and gets nothing; an event whose timestamp changed is fetched alone; a
 * pull stopped between events resumes after the stored ones; importFrom and the cap per run hold.
 */
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { FeedCursor, FeedDefinition } from '../../domain/feeds/feed.js'
import type { PullPage } from '../../domain/feeds/pull.js'
import type { ReadEvent } from '../../formats/format.js'
import { findFormat } from '../../formats/index.js'
import { datasetFile, datasetsUnavailable } from '../../test/datasets.js'
import { type FeedServer, startFeedServer } from '../../test/feed-server.js'
import { mispPuller } from './misp.js'

const EVENT_FILES = [
  'eset+malware-ioc/sednit/2017-05-09_Trump_Attack_on_Syria_IoCs.json',
  'eset+malware-ioc/sednit/2018-11-20_Zebrocy.json',
  'eset+malware-ioc/oceanlotus/oceanlotus.misp.event.json',
  'eset+malware-ioc/kryptocibule/misp-kryptocibule.json',
  'eset+malware-ioc/swc-candiru/swc-candiru_misp.json',
  'eset+malware-ioc/sshdoor/misp-events/mimban.json',
  'eset+malware-ioc/sshdoor/misp-events/polismassa.json',
  'eset+malware-ioc/sshdoor/misp-events/coruscant.json',
]

type MispEvent = Record<string, unknown> & { uuid: string; timestamp: string; info: string }

/** The events as the data sets hold them (a search response or a bare `{"Event": …}`). */
function loadEvents(): MispEvent[] {
  return EVENT_FILES.map((path) => {
    const doc = JSON.parse(readFileSync(datasetFile(path), 'utf8'))
    return (doc.response ? doc.response[0].Event : doc.Event) as MispEvent
  })
}

const skip = datasetsUnavailable()

describe.skipIf(skip)('the MISP feed puller', () => {
  let server: FeedServer
  let events: MispEvent[]
  /** The events' uuids, oldest timestamp first, as the pull is to give them. */
  let oldestFirst: string[]
  let etagVersion = 0

  /** Publishes the feed as MISP writes one: each event's file and the manifest naming them, with a new ETag. */
  function publish() {
    const manifest: Record<string, unknown> = {}
    for (const e of events) {
      server.files.set(`/feeds/eset/${e.uuid}.json`, { body: JSON.stringify({ Event: e }) })
      manifest[e.uuid] = {
        info: e.info,
        date: e.date,
        timestamp: e.timestamp,
        analysis: e.analysis,
        threat_level_id: e.threat_level_id,
        Orgc: e.Orgc,
        Tag: e.Tag ?? [],
      }
    }
    server.files.set('/feeds/eset/manifest.json', { body: JSON.stringify(manifest), etag: `"m${++etagVersion}"` })
  }

  function feedOf(extra: Partial<FeedDefinition> = {}): FeedDefinition {
    return {
      id: 1,
      name: 'ESET events',
      kind: 'misp',
      url: `${server.url}/feeds/eset/`,
      owner: 'ESET',
      ownerId: 1,
      intervalSeconds: 3600,
      enabled: true,
      settings: {},
      defaults: {},
      nextRunAt: '2026-11-27T00:00:00.000Z',
      failures: 0,
      dateAdded: '2026-11-27T00:00:00.000Z',
      lastModified: '2026-11-27T00:00:00.000Z',
      cursor: null,
      ...extra,
    }
  }

  /** Pulls as a run does: each page's content read through its format's reader before the next page is asked. */
  async function pull(cursor: FeedCursor | null, extra: Partial<FeedDefinition> = {}, remaining = 1_000) {
    const pages: { page: PullPage; read: ReadEvent[] }[] = []
    for await (const page of mispPuller.pull({
      feed: feedOf(extra),
      cursor,
      http: server.http,
      now: '2026-11-27T05:00:00.000Z',
      signal: new AbortController().signal,
      remaining,
    })) {
      const read: ReadEvent[] = []
      for await (const e of findFormat(page.format)!.reader!.read(page.content, { name: page.name, ...page.options }))
        read.push(e)
      pages.push({ page, read })
    }
    return pages
  }

  beforeAll(async () => {
    server = await startFeedServer()
  })
  afterAll(() => server?.close())
  beforeEach(() => {
    events = loadEvents()
    oldestFirst = [...events].sort((a, b) => Number(a.timestamp) - Number(b.timestamp)).map((e) => e.uuid)
    server.files.clear()
    server.requests.length = 0
    etagVersion = 0
    publish()
  })

  it('first pull: every event, oldest first, one page each, read by the misp reader; the ETag on the last page only', async () => {
    const pages = await pull(null)
    expect(pages.map((p) => p.page.name)).toEqual(oldestFirst.map((u) => `${u}.json`))
    expect(oldestFirst[0]).toBe('5908888b-0154-4a69-b0b2-72090a016219')
    expect(pages.every((p) => p.page.format === 'misp' && p.page.fetched === 1 && !p.page.complete)).toBe(true)
    expect(server.requests[0]).toEqual({ path: '/feeds/eset/manifest.json', status: 200 })
    expect(server.requests).toHaveLength(1 + events.length)

    // Each page is the event as the reader takes one file: its Event Group, then its attributes' Indicators.
    for (const { page, read } of pages) {
      const uuid = page.name.replace('.json', '')
      const groups = read.flatMap((e) => (e.kind === 'element' ? (e.groups ?? []) : []))
      expect(groups.map((g) => (g.item as { xid: string }).xid)).toContain(uuid)
    }
    const indicators = (uuid: string) =>
      pages.find((p) => p.page.name === `${uuid}.json`)!.read.flatMap((e) => (e.kind === 'element' ? e.indicators : []))
        .length
    // Coruscant: 4 attributes; Candiru: 79 objects, no bare attributes.
    expect(indicators('5bbe58cb-eb4c-48ea-9cbc-79220a016219')).toBeGreaterThanOrEqual(3)
    expect(indicators('86375dc4-8c95-469a-aaf2-e20b0dfefb41')).toBeGreaterThan(50)

    // A page's cursor is what is stored once its event is: the events so far, by uuid → timestamp.
    const third = pages[2].page.cursor as { etag?: string; events: Record<string, number> }
    expect(third.etag).toBeUndefined()
    expect(Object.keys(third.events).sort()).toEqual(oldestFirst.slice(0, 3).sort())
    const last = pages.at(-1)!.page.cursor as { etag?: string; events: Record<string, number> }
    expect(last.etag).toBe('"m1"')
    expect(last.events).toEqual(Object.fromEntries(events.map((e) => [e.uuid, Number(e.timestamp)])))
  })

  it('a pull with the cursor asks the manifest with its ETag and gets nothing (304)', async () => {
    const cursor = (await pull(null)).at(-1)!.page.cursor
    server.requests.length = 0
    expect(await pull(cursor)).toEqual([])
    expect(server.requests).toEqual([{ path: '/feeds/eset/manifest.json', ifNoneMatch: '"m1"', status: 304 }])
  })

  it('an event whose timestamp changed is the only one fetched', async () => {
    const cursor = (await pull(null)).at(-1)!.page.cursor
    const zebrocy = events.find((e) => e.uuid === '5be1e65d-8198-497b-bdf5-5ec20a016219')!
    zebrocy.timestamp = '1700000000'
    zebrocy.info = `${zebrocy.info} (updated)`
    publish()
    server.requests.length = 0

    const pages = await pull(cursor)
    expect(pages.map((p) => p.page.name)).toEqual(['5be1e65d-8198-497b-bdf5-5ec20a016219.json'])
    expect(server.requests.map((r) => `${r.path} ${r.status}`)).toEqual([
      '/feeds/eset/manifest.json 200',
      '/feeds/eset/5be1e65d-8198-497b-bdf5-5ec20a016219.json 200',
    ])
    const group = pages[0].read.flatMap((e) => (e.kind === 'element' ? (e.groups ?? []) : []))[0].item
    expect(group).toMatchObject({ xid: zebrocy.uuid, name: zebrocy.info })
    const after = pages[0].page.cursor as { etag: string; events: Record<string, number> }
    expect(after.etag).toBe('"m2"')
    expect(after.events[zebrocy.uuid]).toBe(1_700_000_000)
    expect(Object.keys(after.events)).toHaveLength(events.length)
  })

  it('a pull stopped between events resumes after the stored ones, asking the manifest again', async () => {
    const first = await pull(null)
    // The run stored three pages, then stopped: the third page's cursor is the feed's.
    const stored = first[2].page.cursor
    server.requests.length = 0
    const rest = await pull(stored)
    expect(server.requests[0]).toEqual({ path: '/feeds/eset/manifest.json', status: 200 })
    expect(rest.map((p) => p.page.name)).toEqual(oldestFirst.slice(3).map((u) => `${u}.json`))
    expect((rest.at(-1)!.page.cursor as { etag?: string }).etag).toBe('"m1"')
  })

  it('importFrom: events last changed before it are not fetched', async () => {
    // Between Oceanlotus (2018-03-16) and the SSHDoor events (2018-10-11).
    const pages = await pull(null, { importFrom: '2018-06-01T00:00:00.000Z' })
    expect(pages.map((p) => p.page.name)).toEqual(oldestFirst.slice(2).map((u) => `${u}.json`))
    expect(server.requests.some((r) => r.path.includes(oldestFirst[0]) || r.path.includes(oldestFirst[1]))).toBe(false)
    // The skipped ones are not in the cursor: they are not held.
    const last = pages.at(-1)!.page.cursor as { etag?: string; events: Record<string, number> }
    expect(Object.keys(last.events).sort()).toEqual(oldestFirst.slice(2).sort())
    expect(last.etag).toBe('"m1"')
  })

  it('the cap per run stops at an event boundary, without the ETag; the next run fetches the rest', async () => {
    const capped = await pull(null, {}, 3)
    expect(capped.map((p) => p.page.name)).toEqual(oldestFirst.slice(0, 3).map((u) => `${u}.json`))
    expect(capped.every((p) => (p.page.cursor as { etag?: string }).etag === undefined)).toBe(true)
    const rest = await pull(capped.at(-1)!.page.cursor)
    expect(rest.map((p) => p.page.name)).toEqual(oldestFirst.slice(3).map((u) => `${u}.json`))
    expect((rest.at(-1)!.page.cursor as { etag?: string }).etag).toBe('"m1"')
  })

  it('a new ETag with nothing new: one page without items that only moves the cursor', async () => {
    const cursor = (await pull(null)).at(-1)!.page.cursor
    publish()
    const pages = await pull(cursor)
    expect(pages).toHaveLength(1)
    expect(pages[0].page).toMatchObject({ fetched: 0, name: 'manifest.json' })
    expect(pages[0].page.complete).toBeUndefined()
    expect(pages[0].read).toEqual([])
    expect(pages[0].page.cursor).toEqual({ ...cursor, etag: '"m2"' })
  })

  it('an event gone from the manifest leaves the cursor', async () => {
    const cursor = (await pull(null)).at(-1)!.page.cursor
    events = events.filter((e) => e.uuid !== oldestFirst[0])
    server.files.clear()
    publish()
    const pages = await pull(cursor)
    expect(pages.map((p) => p.page.fetched)).toEqual([0])
    expect(Object.keys((pages[0].page.cursor as { events: object }).events)).not.toContain(oldestFirst[0])
  })

  it('stops when the run is aborted', async () => {
    const controller = new AbortController()
    const pages: string[] = []
    const pulling = (async () => {
      for await (const page of mispPuller.pull({
        feed: feedOf(),
        cursor: null,
        http: server.http,
        now: '2026-11-27T05:00:00.000Z',
        signal: controller.signal,
        remaining: 1_000,
      })) {
        pages.push(page.name)
        if (pages.length === 2) controller.abort(new Error('the node is stopping'))
      }
    })()
    await expect(pulling).rejects.toThrow('the node is stopping')
    expect(pages).toHaveLength(2)
  })

  it('a manifest that is not JSON fails the pull with a domain error', async () => {
    server.files.set('/feeds/eset/manifest.json', { body: '<html>maintenance</html>' })
    await expect(pull(null)).rejects.toMatchObject({
      code: 'invalid',
      message: expect.stringMatching(/^manifest.json is not JSON/),
    })
  })
})

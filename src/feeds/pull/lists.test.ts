/**
 * CSV and text lists pulled over HTTPS (a loopback server with a certificate made for the test): the
 * CSV is SEKOIA.IO's StealC list from the shared data sets (Detection Rule License 1.1), the text
 * list its values one a line. A changed list is one `complete` page whose content is the body as
 * served, with the cursor {etag, lastModified, sha256}; a pull with the cursor asks conditionally
 * (304: nothing); the same bytes under a new ETag are not read again, only the cursor moves.
 */
import { createHash } from 'node:crypto'
import { readFileSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { FeedCursor, FeedDefinition, FeedKind } from '../../domain/feeds/feed.js'
import type { PullPage } from '../../domain/feeds/pull.js'
import type { ReadEvent } from '../../formats/format.js'
import { findFormat } from '../../formats/index.js'
import { datasetFile, datasetsUnavailable } from '../../test/datasets.js'
import { type FeedServer, startFeedServer } from '../../test/feed-server.js'
import { csvListPuller, textListPuller } from './lists.js'

const STEALC_CSV = 'SEKOIA-IO+Community/IOCs/stealc/stealc_iocs_20230220.csv'
const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex')
const listDirs = () => readdirSync(tmpdir()).filter((n) => n.startsWith('bulwark-feed-list-')).length

describe.skipIf(datasetsUnavailable())('the CSV and text list pullers', () => {
  let server: FeedServer
  let csv: string
  let text: string

  function feedOf(kind: FeedKind, path: string, settings: FeedDefinition['settings'] = {}): FeedDefinition {
    return {
      id: 2,
      name: `list ${path}`,
      kind,
      url: `${server.url}${path}?key=not-in-names`,
      owner: 'SEKOIA',
      ownerId: 1,
      intervalSeconds: 3600,
      enabled: true,
      settings,
      defaults: {},
      nextRunAt: '2026-11-27T00:00:00.000Z',
      failures: 0,
      dateAdded: '2026-11-27T00:00:00.000Z',
      lastModified: '2026-11-27T00:00:00.000Z',
      cursor: null,
    }
  }

  /** Pulls as a run does, reading each page's content (as text, and through its format's reader) before the next. */
  async function pull(feed: FeedDefinition, cursor: FeedCursor | null, remaining = 1_000_000) {
    const puller = feed.kind === 'csv' ? csvListPuller : textListPuller
    const pages: { page: PullPage; body: string; read: ReadEvent[] }[] = []
    for await (const page of puller.pull({
      feed,
      cursor,
      http: server.http,
      now: '2026-11-27T05:00:00.000Z',
      signal: new AbortController().signal,
      remaining,
    })) {
      let body = ''
      for await (const chunk of page.content) body += chunk
      const read: ReadEvent[] = []
      const again = (async function* () {
        yield body
      })()
      for await (const e of findFormat(page.format)!.reader!.read(again, {
        name: page.name,
        ...page.options,
        now: '2026-11-27T05:00:00.000Z',
      }))
        read.push(e)
      pages.push({ page, body, read })
    }
    return pages
  }

  beforeAll(async () => {
    server = await startFeedServer()
    csv = readFileSync(datasetFile(STEALC_CSV), 'utf8')
    // The same values as a plain list: a comment, then one value a line (defanged as SEKOIA writes them).
    text = `# StealC IOCs, SEKOIA.IO 2023-02-20\n${csv
      .split('\n')
      .slice(1)
      .filter(Boolean)
      .map((line) => line.split(',')[0])
      .join('\n')}\n`
  })
  afterAll(() => server?.close())
  beforeEach(() => {
    server.files.clear()
    server.requests.length = 0
  })

  describe('a CSV list', () => {
    beforeEach(() => {
      server.files.set('/lists/stealc.csv', {
        body: csv,
        etag: '"v1"',
        lastModified: 'Mon, 20 Feb 2023 10:00:00 GMT',
      })
    })

    it('first pull: one complete page, the body as served, read by the CSV reader; its cursor holds ETag, date and SHA-256', async () => {
      const before = listDirs()
      const pages = await pull(feedOf('csv', '/lists/stealc.csv'), null)
      expect(pages).toHaveLength(1)
      const { page, body, read } = pages[0]
      expect(page).toMatchObject({ format: 'csv', name: 'stealc.csv', fetched: 152, complete: true })
      expect(page.options).toBeUndefined()
      expect(body).toBe(csv)
      expect(page.cursor).toEqual({ etag: '"v1"', lastModified: 'Mon, 20 Feb 2023 10:00:00 GMT', sha256: sha256(csv) })
      const items = read.flatMap((e) => (e.kind === 'element' ? e.indicators : []))
      expect(items).toHaveLength(152)
      expect(items[0].indicator).toMatchObject({ type: 'Address', summary: '91.215.85.188' })
      // The list's temporary copy is gone once the pull is over.
      expect(listDirs()).toBe(before)
    })

    it('the column map of the settings is the reader’s map', async () => {
      const pages = await pull(feedOf('csv', '/lists/stealc.csv', { columns: 'value=IOC,source=Link' }), null)
      expect(pages[0].page.options).toEqual({ map: 'value=IOC,source=Link' })
      expect(pages[0].read.filter((e) => e.kind === 'element' && e.indicators.length)).toHaveLength(152)
    })

    it('a pull with the cursor asks with If-None-Match and If-Modified-Since; 304 gives no page', async () => {
      const feed = feedOf('csv', '/lists/stealc.csv')
      const cursor = (await pull(feed, null))[0].page.cursor
      server.requests.length = 0
      expect(await pull(feed, cursor)).toEqual([])
      expect(server.requests).toEqual([
        {
          path: '/lists/stealc.csv',
          ifNoneMatch: '"v1"',
          ifModifiedSince: 'Mon, 20 Feb 2023 10:00:00 GMT',
          status: 304,
        },
      ])
    })

    it('the same bytes under a new ETag are not read again: one page without items moves the cursor', async () => {
      const feed = feedOf('csv', '/lists/stealc.csv')
      const cursor = (await pull(feed, null))[0].page.cursor
      server.files.set('/lists/stealc.csv', { body: csv, etag: '"v2"', lastModified: 'Tue, 21 Feb 2023 10:00:00 GMT' })
      const pages = await pull(feed, cursor)
      expect(pages).toHaveLength(1)
      expect(pages[0].page).toMatchObject({ fetched: 0, name: 'stealc.csv' })
      expect(pages[0].page.complete).toBeUndefined()
      expect(pages[0].body).toBe('')
      expect(pages[0].read).toEqual([])
      expect(pages[0].page.cursor).toEqual({
        etag: '"v2"',
        lastModified: 'Tue, 21 Feb 2023 10:00:00 GMT',
        sha256: sha256(csv),
      })
      // Asked again with that cursor, the server has nothing new.
      server.requests.length = 0
      expect(await pull(feed, pages[0].page.cursor)).toEqual([])
      expect(server.requests.map((r) => r.status)).toEqual([304])
    })

    it('the same bytes, same ETag-less answer: no page at all', async () => {
      server.files.set('/lists/stealc.csv', { body: csv })
      const feed = feedOf('csv', '/lists/stealc.csv')
      const cursor = (await pull(feed, null))[0].page.cursor
      expect(cursor).toEqual({ sha256: sha256(csv) })
      expect(await pull(feed, cursor)).toEqual([])
      expect(server.requests.map((r) => r.status)).toEqual([200, 200])
    })

    it('a changed list is read again, whole', async () => {
      const feed = feedOf('csv', '/lists/stealc.csv')
      const cursor = (await pull(feed, null))[0].page.cursor
      const shorter = csv.split('\n').slice(0, 101).join('\n') + '\n'
      server.files.set('/lists/stealc.csv', { body: shorter, etag: '"v3"' })
      const pages = await pull(feed, cursor)
      expect(pages.map((p) => [p.page.fetched, p.page.complete])).toEqual([[100, true]])
      expect(pages[0].body).toBe(shorter)
      expect(pages[0].page.cursor).toEqual({ etag: '"v3"', sha256: sha256(shorter) })
    })

    it('a list served empty (its header alone) is read but not complete: mirror mode retires nothing after it', async () => {
      const feed = feedOf('csv', '/lists/stealc.csv')
      const cursor = (await pull(feed, null))[0].page.cursor
      const header = `${csv.split('\n')[0]}\n`
      server.files.set('/lists/stealc.csv', { body: header, etag: '"empty"' })
      const pages = await pull(feed, cursor)
      expect(pages).toHaveLength(1)
      expect(pages[0].page).toMatchObject({ fetched: 0, cursor: { etag: '"empty"', sha256: sha256(header) } })
      expect(pages[0].page.complete).toBeUndefined()
      expect(pages[0].read).toEqual([])
    })

    it('a run that may fetch nothing does not ask', async () => {
      expect(await pull(feedOf('csv', '/lists/stealc.csv'), null, 0)).toEqual([])
      expect(server.requests).toEqual([])
    })

    it('a list the server does not have fails the pull with its status', async () => {
      await expect(pull(feedOf('csv', '/lists/gone.csv'), null)).rejects.toMatchObject({
        name: 'FeedFetchError',
        code: 'status',
        details: { status: 404 },
      })
    })
  })

  describe('a text list', () => {
    beforeEach(() => {
      server.files.set('/lists/stealc.txt', { body: text, lastModified: 'Mon, 20 Feb 2023 10:00:00 GMT' })
    })

    it('one page in the plain list format, the values counted without the comment', async () => {
      const pages = await pull(feedOf('text', '/lists/stealc.txt'), null)
      expect(pages).toHaveLength(1)
      expect(pages[0].page).toMatchObject({ format: 'list', name: 'stealc.txt', fetched: 152, complete: true })
      expect(pages[0].page.options).toBeUndefined()
      expect(pages[0].body).toBe(text)
      expect(pages[0].page.cursor).toEqual({ lastModified: 'Mon, 20 Feb 2023 10:00:00 GMT', sha256: sha256(text) })
      const items = pages[0].read.flatMap((e) => (e.kind === 'element' ? e.indicators : []))
      expect(items).toHaveLength(152)
      expect(items.map((i) => (i.indicator as { type: string }).type)).toEqual(
        expect.arrayContaining(['Address', 'Host', 'URL', 'File']),
      )
    })

    it('the indicatorType of the settings is the reader’s type', async () => {
      server.files.set('/lists/hosts.txt', { body: 'evil.example\nc2.example.net\n' })
      const pages = await pull(feedOf('text', '/lists/hosts.txt', { indicatorType: 'Host' }), null)
      expect(pages[0].page.options).toEqual({ type: 'Host' })
      expect(pages[0].read.flatMap((e) => (e.kind === 'element' ? e.indicators : []))).toEqual([
        { where: 'line 1', indicator: { type: 'Host', summary: 'evil.example' } },
        { where: 'line 2', indicator: { type: 'Host', summary: 'c2.example.net' } },
      ])
    })

    it('Last-Modified alone: asked with If-Modified-Since, 304 gives no page', async () => {
      const feed = feedOf('text', '/lists/stealc.txt')
      const cursor = (await pull(feed, null))[0].page.cursor
      server.requests.length = 0
      expect(await pull(feed, cursor)).toEqual([])
      expect(server.requests).toEqual([
        { path: '/lists/stealc.txt', ifModifiedSince: 'Mon, 20 Feb 2023 10:00:00 GMT', status: 304 },
      ])
    })

    it('a long list streams through a temporary copy: 200,000 values, each counted, the hash of the whole', async () => {
      const lines: string[] = []
      for (let i = 0; i < 200_000; i++) lines.push(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`)
      const big = `${lines.join('\n')}\n`
      server.files.set('/lists/big.txt', { body: big, etag: '"big"' })
      const puller = textListPuller.pull({
        feed: feedOf('text', '/lists/big.txt'),
        cursor: null,
        http: server.http,
        now: '2026-11-27T05:00:00.000Z',
        signal: new AbortController().signal,
        remaining: 1,
      })
      let count = 0
      for await (const page of puller) {
        expect(page).toMatchObject({ fetched: 200_000, cursor: { etag: '"big"', sha256: sha256(big) } })
        let length = 0
        for await (const chunk of page.content) length += chunk.length
        expect(length).toBe(big.length)
        count++
      }
      expect(count).toBe(1)
    })
  })
})

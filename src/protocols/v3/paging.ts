/**
 * next and prev links of a v3 list page: full URLs under the public URL, the request's own
 * query with resultStart moved and resultLimit kept, so a client can follow them as given.
 */
import { createHash } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import { type Query, single } from '../http/query.js'

/**
 * The `cursor` of a next link: the new resultStart, the last id of the page and a digest of
 * the filter, so it is used only while the query it came from is unchanged (resultStart, tql,
 * sorting, owner); otherwise resultStart alone applies. Walking in order then costs the same
 * on every page instead of growing with resultStart.
 */
function cursorDigest(q: Query): string {
  return createHash('sha1')
    .update(['tql', 'sorting', 'owner'].map((n) => single(q, n) ?? '').join('\u0000'))
    .digest('hex')
    .slice(0, 10)
}

export function encodeCursor(q: Query, resultStart: number, lastId: number): string {
  return Buffer.from(`${resultStart}.${lastId}.${cursorDigest(q)}`).toString('base64url')
}

/** The last id to continue after, or undefined when the cursor is absent, malformed or stale. */
export function decodeCursor(q: Query, resultStart: number): number | undefined {
  const text = single(q, 'cursor')
  if (!text) return undefined
  const [start, lastId, digest] = Buffer.from(text, 'base64url').toString().split('.')
  if (
    Number(start) !== resultStart ||
    !/^\d{1,15}$/.test(lastId ?? '') ||
    digest !== cursorDigest(q) ||
    single(q, 'sorting')
  )
    return undefined
  return Number(lastId)
}

function pageUrl(
  publicUrl: string,
  req: FastifyRequest,
  resultStart: number,
  resultLimit: number,
  lastId?: number,
): string {
  const raw = req.raw.url ?? req.url
  const question = raw.indexOf('?')
  const path = question === -1 ? raw : raw.slice(0, question)
  const params = new URLSearchParams(question === -1 ? '' : raw.slice(question + 1))
  params.set('resultStart', String(resultStart))
  params.set('resultLimit', String(resultLimit))
  params.delete('cursor')
  if (lastId !== undefined && !params.get('sorting'))
    params.set('cursor', encodeCursor(Object.fromEntries(params), resultStart, lastId))
  return `${publicUrl}${path}?${params.toString().replace(/\+/g, '%20')}`
}

export interface PageLinks {
  next?: string
  prev?: string
}

export function pageLinks(
  publicUrl: string,
  req: FastifyRequest,
  page: { resultStart: number; resultLimit: number; hasMore: boolean; lastId?: number },
): PageLinks {
  const links: PageLinks = {}
  if (page.hasMore)
    links.next = pageUrl(publicUrl, req, page.resultStart + page.resultLimit, page.resultLimit, page.lastId)
  if (page.resultStart > 0)
    links.prev = pageUrl(publicUrl, req, Math.max(0, page.resultStart - page.resultLimit), page.resultLimit)
  return links
}

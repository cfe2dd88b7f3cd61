/**
 * next and prev links of a v3 list page: full URLs under the public URL, the request's own
 * query with resultStart moved and resultLimit kept, so a client can follow them as given.
 */
import type { FastifyRequest } from 'fastify'

function pageUrl(publicUrl: string, req: FastifyRequest, resultStart: number, resultLimit: number): string {
  const raw = req.raw.url ?? req.url
  const question = raw.indexOf('?')
  const path = question === -1 ? raw : raw.slice(0, question)
  const params = new URLSearchParams(question === -1 ? '' : raw.slice(question + 1))
  params.set('resultStart', String(resultStart))
  params.set('resultLimit', String(resultLimit))
  return `${publicUrl}${path}?${params.toString().replace(/\+/g, '%20')}`
}

export interface PageLinks {
  next?: string
  prev?: string
}

export function pageLinks(publicUrl: string, req: FastifyRequest, page: { resultStart: number; resultLimit: number; hasMore: boolean }): PageLinks {
  const links: PageLinks = {}
  if (page.hasMore) links.next = pageUrl(publicUrl, req, page.resultStart + page.resultLimit, page.resultLimit)
  if (page.resultStart > 0) links.prev = pageUrl(publicUrl, req, Math.max(0, page.resultStart - page.resultLimit), page.resultLimit)
  return links
}

/**
 * The v2 API's links (`legacyLink`, webLink in v2 answers: protocols/http/links.ts) lead into the
 * console. Groups, Tasks and Victims carry their id and go straight to the item's address (the v3
 * webLink form); an Indicator's link names its type, value and owner, which the console looks up
 * (`#/lookup/indicators?…`) with the person's own session; a tag's link becomes a search for it.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { sendJsonExactly } from '../http/media-types.js'

function queryOf(req: FastifyRequest): URLSearchParams {
  const raw = req.raw.url ?? req.url
  const question = raw.indexOf('?')
  return new URLSearchParams(question === -1 ? '' : raw.slice(question + 1))
}

function notALink(reply: FastifyReply, req: FastifyRequest) {
  return sendJsonExactly(reply, 404, { status: 'Error', message: `No such link: ${req.url.split('?')[0]}` })
}

/** The TQL string literal the console's search would write for a tag name. */
const tqlString = (text: string) => `"${text.replace(/[\\"'`]/g, (c) => `\\${c}`)}"`

export function installLegacyLinks(app: FastifyInstance): void {
  app.get('/auth/indicators/details/:page', (req, reply) => {
    const entity = /^([A-Za-z]+)\.xhtml$/.exec((req.params as { page: string }).page)?.[1]
    const query = queryOf(req)
    const value = entity ? query.get(entity) : null
    if (!entity || !value) return notALink(reply, req)
    const target = new URLSearchParams({ entity, value, owner: query.get('owner') ?? '' })
    return reply.redirect(`/#/lookup/indicators?${target}`, 302)
  })
  app.get('/auth/tags/tag.xhtml', (req, reply) => {
    const name = queryOf(req).get('tag')
    if (!name) return notALink(reply, req)
    return reply.redirect(`/#/search?${new URLSearchParams({ q: `tag = ${tqlString(name)}` })}`, 302)
  })
  app.get('/auth/:entity/:page', (req, reply) => {
    const { entity, page } = req.params as { entity: string; page: string }
    const id = queryOf(req).get(entity)
    if (page !== `${entity}.xhtml` || !/^\d{1,15}$/.test(id ?? '')) return notALink(reply, req)
    const kind = entity === 'task' ? 'tasks' : entity === 'victim' ? 'victims' : 'groups'
    return reply.redirect(`/#/details/${kind}/${id}/overview`, 302)
  })
}

/**
 * The v2 envelopes, for JSON and XML from one structure:
 * success {status, data:{<entity>: …}}, list {status, data:{resultCount?, <entity>: […]}},
 * no-body {apiCalls, resultCount, status}, error {status: "Error", message}.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { renderPlainXml, renderV2Xml } from '../http/xml.js'
import type { Paging } from './params.js'
import { JSON_MEDIA_TYPE, XML_MEDIA_TYPE } from '../http/media-types.js'

export function wantsXml(req: FastifyRequest): boolean {
  const accept = req.headers.accept
  if (!accept) return false
  const xml = Math.max(accept.indexOf('application/xml'), accept.indexOf('text/xml'))
  if (xml < 0) return false
  const json = accept.indexOf('application/json')
  return json < 0 || xml < json
}

function send(req: FastifyRequest, reply: FastifyReply, status: number, json: unknown, xml: () => string) {
  if (wantsXml(req)) return reply.code(status).type(XML_MEDIA_TYPE).send(xml())
  return reply.code(status).type(JSON_MEDIA_TYPE).send(JSON.stringify(json))
}

/** One item: `data: { <entity>: item }`. */
export function sendItem(req: FastifyRequest, reply: FastifyReply, entity: string, item: unknown, status = 200) {
  const data = { [entity]: item }
  return send(req, reply, status, { status: 'Success', data }, () => renderV2Xml(entity, false, data))
}

/** A list: `resultCount` only when the page starts at 0, as the spec says. */
export function sendList(
  req: FastifyRequest,
  reply: FastifyReply,
  entity: string,
  items: unknown[],
  paging: Pick<Paging, 'resultStart'>,
  total: number,
) {
  const data: Record<string, unknown> =
    paging.resultStart === 0 ? { resultCount: total, [entity]: items } : { [entity]: items }
  return send(req, reply, 200, { status: 'Success', data }, () => renderV2Xml(entity, true, data))
}

/** Success with a free-form data object (whoami, metrics…). */
export function sendData(
  req: FastifyRequest,
  reply: FastifyReply,
  entity: string,
  data: Record<string, unknown>,
  status = 200,
) {
  return send(req, reply, status, { status: 'Success', data }, () => renderV2Xml(entity, false, data))
}

/** Operations without a body (label an item, delete…): `{apiCalls, resultCount, status}`. */
export function sendNoBody(req: FastifyRequest, reply: FastifyReply, resultCount = 0, status = 200) {
  const body = { apiCalls: 1, resultCount, status: 'Success' }
  return send(req, reply, status, body, () =>
    renderPlainXml('apiResponse', { apiCalls: 1, resultCount, status: 'Success' }),
  )
}

export function sendV2Error(req: FastifyRequest, reply: FastifyReply, status: number, message: string) {
  return send(req, reply, status, { status: 'Error', message }, () =>
    renderPlainXml('errorResponse', { status: 'Error', message }),
  )
}

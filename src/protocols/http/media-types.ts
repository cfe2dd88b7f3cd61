/**
 * Media types of the REST replies. Both platform SDKs compare Content-Type with
 * `application/json` for equality before they read a body (the v2 SDK's response handlers,
 * tcex's error check), so REST JSON replies carry exactly that: RFC 8259 defines no charset
 * parameter for it and the body is always UTF-8.
 */
import type { FastifyReply } from 'fastify'

export const JSON_MEDIA_TYPE = 'application/json'

/** What Fastify writes for a JSON reply when a route names no charset. */
export const FASTIFY_JSON = 'application/json; charset=utf-8'

/**
 * XML replies keep their charset: neither SDK asks for or compares XML, and for XML
 * (RFC 7303) the parameter is meaningful.
 */
export const XML_MEDIA_TYPE = 'application/xml; charset=utf-8'

/**
 * Sends `body` as JSON with exactly JSON_MEDIA_TYPE. Fastify appends a charset to a JSON string it
 * is given, but not to what a reply's own serializer returns, so the object goes through one. Node
 * then joins the head and a string body into one chunk for the socket; a Buffer body (what kept the
 * header exact before) cost a copy and went to TLS as a chunk of its own.
 */
export function sendJsonExactly(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply.code(status).header('content-type', JSON_MEDIA_TYPE).serializer(JSON.stringify).send(body)
}

/**
 * The v3 envelopes: {data, status, message?, count?, next?, prev?} and the error body
 * {errCode, message, status: "Error"}. The media type is exactly `application/json`: tcex
 * compares the Content-Type header to that string before it reads an error.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { ErrorCode } from '../../core/errors.js'
import { REST_STATUS, classifyError } from '../http/errors.js'
import { JSON_MEDIA_TYPE, sendJsonExactly } from '../http/media-types.js'
import type { PageLinks } from './paging.js'

export const V3_MEDIA_TYPE = JSON_MEDIA_TYPE

/** The platform documents 0x1001 as its general code; the others follow its batch code table. */
const ERR_CODES: Record<ErrorCode | 'internal', string> = {
  invalid: '0x1001',
  timeout: '0x1001',
  conflict: '0x100A',
  not_found: '0x1007',
  forbidden: '0x1002',
  owner_inaccessible: '0x1002',
  no_credentials: '0x1002',
  unauthenticated: '0x1002',
  timestamp: '0x1002',
  too_large: '0x1001',
  unavailable: '0x1001',
  try_later: '0x1001',
  internal: '0x1004',
}

export function v3ErrorBody(code: ErrorCode | 'internal', message: string) {
  return { errCode: ERR_CODES[code], message, status: 'Error' }
}

/** Answers anything thrown in v3's envelope, with the statuses of `statusTable` (the REST API's unless a route family says otherwise). */
export function v3ErrorHandler(statusTable: Record<ErrorCode, number> = REST_STATUS) {
  return (error: unknown, req: FastifyRequest, reply: FastifyReply) => {
    const classified = classifyError(error, statusTable)
    if (classified.unexpected) req.log.error({ err: error }, 'unhandled error')
    const message = classified.unexpected ? `Internal error (request ${req.id})` : classified.message
    if (classified.retryAfter) reply.header('retry-after', String(classified.retryAfter))
    return sendV3Body(reply, classified.status, v3ErrorBody(classified.code, message))
  }
}

export function sendV3Body(reply: FastifyReply, status: number, body: Record<string, unknown>) {
  return sendJsonExactly(reply, status, body)
}

const send = sendV3Body

/** A list page: links first (as the platform writes them), then data, count and status. */
export function sendV3List(reply: FastifyReply, data: unknown[], links: PageLinks, count?: number) {
  return send(reply, 200, { ...links, data, ...(count !== undefined ? { count } : {}), status: 'Success' })
}

export function sendV3Data(reply: FastifyReply, data: unknown) {
  return send(reply, 200, { data, status: 'Success' })
}

export function sendV3Created(reply: FastifyReply, data: unknown) {
  return send(reply, 201, { data, message: 'Created', status: 'Success' })
}

export function sendV3Updated(reply: FastifyReply, data: unknown) {
  return send(reply, 200, { data, message: 'Updated', status: 'Success' })
}

export function sendV3Deleted(reply: FastifyReply, count?: number) {
  return send(reply, 200, { ...(count !== undefined ? { count } : {}), message: 'Deleted', status: 'Success' })
}

/** OPTIONS lists: {data, count, status}. */
export function sendV3Options(reply: FastifyReply, data: unknown[]) {
  return send(reply, 200, { data, count: data.length, status: 'Success' })
}

/** OPTIONS /v3/<type>: the field descriptor itself, usable as a body template. */
export function sendV3Raw(reply: FastifyReply, body: Record<string, unknown>) {
  return send(reply, 200, body)
}

/**
 * The TAXII 2.1 error resource (§3.6.1) for everything the plugin throws, with the status
 * each domain error code gets on TAXII: no or wrong credentials 401 (with a Basic challenge),
 * an owner the caller may not read 404 like one that does not exist.
 */
import type { ErrorCode } from '../../core/errors.js'
import { classifyError } from '../http/errors.js'

export const TAXII_STATUS: Record<ErrorCode, number> = {
  invalid: 400,
  no_credentials: 401,
  unauthenticated: 401,
  timestamp: 401,
  forbidden: 403,
  owner_inaccessible: 404,
  not_found: 404,
  conflict: 400,
  too_large: 413,
  timeout: 503,
  unavailable: 503,
  try_later: 503,
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
}

export const BASIC_CHALLENGE = 'Basic realm="Bulwark TAXII", charset="UTF-8"'

/** An HTTP status the domain has no code for (405, 406). */
export class TaxiiHttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message)
  }
}

export interface TaxiiError {
  status: number
  /** Bytes, not a string: Fastify rewrites the Content-Type of string bodies (quoting version, adding charset), which TAXII clients refuse. */
  body: Buffer
  unexpected: boolean
  retryAfter?: number
}

/** `http_status` is a string, as §3.6.1 types it. A 500 names only the request id; the log has the rest. */
export function taxiiError(error: unknown, requestId: string): TaxiiError {
  const c = classifyError(error, TAXII_STATUS)
  const description = c.unexpected ? `Internal error (request ${requestId})` : c.message
  const body = Buffer.from(
    JSON.stringify({ title: TITLES[c.status] ?? 'Error', description, http_status: String(c.status) }),
  )
  return { status: c.status, body, unexpected: c.unexpected, retryAfter: c.retryAfter }
}

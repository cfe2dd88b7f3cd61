/**
 * Classifies anything thrown while serving a request into a status and a message, once
 * for every protocol. Domain errors carry a code; framework errors (bad JSON, body too
 * large, wrong content type) carry a status; anything else is a 500 whose details go only
 * to the log. A database that does not answer reaches here as DomainError('try_later') (the store
 * translates its driver's errors, store/engine/unavailable.ts): 503 with Retry-After. Each protocol then wraps the result in its own envelope.
 */
import type { FastifyError } from 'fastify'
import { type ErrorCode, RETRY_AFTER_SECONDS, isDomainError } from '../../core/errors.js'

export interface ClassifiedError {
  status: number
  code: ErrorCode | 'internal'
  message: string
  /** True when the error was not expected and must be logged in full. */
  unexpected: boolean
  /** Seconds for a Retry-After header: the request may succeed when tried again (the database was not answering). */
  retryAfter?: number
}

/** The REST API's table (v2 and v3 share the spec's one table). */
export const REST_STATUS: Record<ErrorCode, number> = {
  invalid: 400,
  no_credentials: 403,
  unauthenticated: 401,
  timestamp: 401,
  forbidden: 401,
  owner_inaccessible: 403,
  not_found: 404,
  conflict: 400,
  too_large: 413,
  timeout: 400,
  unavailable: 503,
  try_later: 503,
}

const FRAMEWORK_CODES: Record<string, { code: ErrorCode; message?: (e: FastifyError) => string }> = {
  FST_ERR_CTP_INVALID_JSON: { code: 'invalid', message: (e) => `Malformed JSON body: ${e.message}` },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'invalid', message: () => 'Malformed JSON body: the body is not valid JSON' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'invalid', message: () => 'Malformed JSON body: the body is empty' },
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'too_large', message: () => 'Request body is larger than this endpoint accepts' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: 'invalid',
    message: (e) => `Unsupported Content-Type: ${e.message.replace(/^Unsupported Media Type: ?/, '')}`,
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'invalid', message: () => 'Content-Length does not match the body' },
  FST_ERR_VALIDATION: { code: 'invalid' },
  FST_ERR_BAD_URL: { code: 'invalid', message: () => 'The URL is not properly encoded' },
  FST_ERR_MAX_PARAM_LENGTH: { code: 'invalid', message: () => 'A path segment is too long' },
}

export function classifyError(error: unknown, statusTable: Record<ErrorCode, number> = REST_STATUS): ClassifiedError {
  if (isDomainError(error)) {
    const classified = { status: statusTable[error.code], code: error.code, message: error.message, unexpected: false }
    return error.code === 'try_later' ? { ...classified, retryAfter: RETRY_AFTER_SECONDS } : classified
  }
  const fe = error as FastifyError
  const known = fe?.code ? FRAMEWORK_CODES[fe.code] : undefined
  if (known) {
    const status = fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' ? 415 : statusTable[known.code]
    return { status, code: known.code, message: known.message ? known.message(fe) : fe.message, unexpected: false }
  }
  // Other client errors raised by the framework or the parsers (e.g. a malformed URI).
  if (typeof fe?.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    return { status: fe.statusCode, code: 'invalid', message: fe.message, unexpected: false }
  }
  if (error instanceof URIError)
    return { status: 400, code: 'invalid', message: 'The URL is not properly encoded', unexpected: false }
  return { status: 500, code: 'internal', message: 'Internal error', unexpected: true }
}

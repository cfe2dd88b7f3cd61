/**
 * Which driver errors mean "the database does not answer now" rather than "this request is
 * wrong": a refused or lost connection, a server shutting down or restarting, a pooler that has no
 * server for us, no connection free in time. They become DomainError('try_later'), answered 503
 * with Retry-After in each interface's envelope; a node never ends on one (store/connect.ts).
 * Anything else is passed on unchanged.
 */
import { DomainError } from '../../core/errors.js'

/** SQLSTATE classes and codes of an unreachable or unwilling server. */
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[1-4]|53300|53400|58030)$/
/** Network errors of the socket under the driver. */
const UNAVAILABLE_ERRNO = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
])
/** pg's own errors, which carry no code. */
const UNAVAILABLE_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /^Client has encountered a connection error and is not queryable/,
  /^Client was closed and is not queryable/,
  /^Cannot use a pool after calling end on the pool/,
  /^Query read timeout/,
  /server conn crashed/,
  /^(pgbouncer|no more connections allowed|server login has been failing|query_wait_timeout)/,
]

export const DATABASE_UNAVAILABLE_MESSAGE = 'The database is not answering; try again shortly'

export function isDatabaseUnavailable(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false
  const { code, message } = error as { code?: unknown; message?: unknown }
  if (typeof code === 'string' && (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_ERRNO.has(code))) return true
  // SQLite: another connection held the write lock past busy_timeout, or a snapshot went stale under it.
  if (typeof code === 'string' && /^SQLITE_(BUSY|LOCKED)(_|$)/.test(code)) return true
  return typeof message === 'string' && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message))
}

/** The error a caller should see: DomainError('try_later') for an unavailable database, else the error itself. */
export function translateDatabaseError(error: unknown): unknown {
  if (error instanceof DomainError || !isDatabaseUnavailable(error)) return error
  const translated = new DomainError('try_later', DATABASE_UNAVAILABLE_MESSAGE)
  // Kept for the log line of the request (the answer names none of it).
  Object.defineProperty(translated, 'cause', { value: error, enumerable: false })
  return translated
}

/**
 * Domain errors carry a stable code; each protocol maps codes to its own status and
 * envelope in exactly one table (protocols/<name>/errors.ts). Domain code never chooses
 * an HTTP status.
 */
export type ErrorCode =
  | 'invalid' // the request is malformed or breaks a rule: 400
  | 'no_credentials' // not HTTPS, or no supported scheme: 403 on the REST API (spec), 401 on TAXII
  | 'unauthenticated' // credentials given but wrong, expired or disabled: 401
  | 'timestamp' // HMAC timestamp outside the five-minute window: 401 with a timestamp message
  | 'forbidden' // the caller lacks permission for the action: 401 on the REST API (spec)
  | 'owner_inaccessible' // the named owner does not exist or cannot be accessed: 403
  | 'not_found' // 404
  | 'conflict' // a uniqueness rule: 409 where the protocol has it, else 400
  | 'too_large' // 413
  | 'timeout' // a query ran past its time budget: 400 (v3 reports TQL timeouts as bad requests)
  | 'unavailable' // a feature switched off: 503
  | 'try_later' // the database does not answer now (down, restarting, no connection free): 503 with Retry-After

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message)
    this.name = 'DomainError'
  }
}

export const invalid = (message: string, details?: Record<string, unknown>) =>
  new DomainError('invalid', message, details)
export const notFound = (message: string) => new DomainError('not_found', message)
export const forbidden = (message: string) => new DomainError('forbidden', message)
export const conflict = (message: string) => new DomainError('conflict', message)

/** Seconds a client is asked to wait (Retry-After) before it tries a `try_later` request again. */
export const RETRY_AFTER_SECONDS = 1

export function isDomainError(error: unknown): error is DomainError {
  return error instanceof DomainError
}

/**
 * TAXII 1.1 failures are Status_Messages. A Taxii11Error names its status type directly;
 * domain errors are mapped here, in the protocol's one table. UNAUTHORIZED changes the HTTP
 * status (401), and RETRY (the database did not answer) is a 503 with Retry-After and the
 * Status_Message's ESTIMATED_WAIT; the TAXII HTTP binding carries every other one with 200.
 */
import type { ErrorCode } from '../../core/errors.js'
import type { StatusType } from './constants.js'

export class Taxii11Error extends Error {
  constructor(
    readonly statusType: StatusType,
    message: string,
    readonly details: Record<string, string[]> = {},
  ) {
    super(message)
    this.name = 'Taxii11Error'
  }
}

export const badMessage = (message: string) => new Taxii11Error('BAD_MESSAGE', message)

export const STATUS_OF_CODE: Record<ErrorCode, StatusType> = {
  invalid: 'BAD_MESSAGE',
  no_credentials: 'UNAUTHORIZED',
  unauthenticated: 'UNAUTHORIZED',
  timestamp: 'UNAUTHORIZED',
  forbidden: 'UNAUTHORIZED',
  owner_inaccessible: 'NOT_FOUND',
  not_found: 'NOT_FOUND',
  conflict: 'BAD_MESSAGE',
  too_large: 'BAD_MESSAGE',
  timeout: 'FAILURE',
  unavailable: 'FAILURE',
  try_later: 'RETRY',
}

/** HTTP status for a Status_Message of this type. */
export function httpStatusOf(statusType: StatusType, unexpected: boolean): number {
  if (statusType === 'UNAUTHORIZED') return 401
  // The database did not answer: the load balancer and the client see a 503 and retry.
  if (statusType === 'RETRY') return 503
  return unexpected ? 500 : 200
}

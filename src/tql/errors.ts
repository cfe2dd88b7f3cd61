/**
 * TQL errors are ordinary `invalid` domain errors (400 on the REST API) whose message says
 * where in the query text the problem is, counted in characters from 1.
 */
import { DomainError } from '../core/errors.js'

export class TqlError extends DomainError {
  constructor(
    message: string,
    readonly column?: number,
  ) {
    super('invalid', message, column === undefined ? undefined : { column })
    this.name = 'TqlError'
  }
}

/** A syntax error at a zero-based offset into the query text. */
export function syntaxError(offset: number, message: string): TqlError {
  return new TqlError(`TQL error at column ${offset + 1}: ${message}`, offset + 1)
}

export function isTqlError(error: unknown): error is TqlError {
  return error instanceof TqlError
}

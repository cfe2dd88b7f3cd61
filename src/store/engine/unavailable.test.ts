import { describe, expect, it } from 'vitest'
import { DomainError } from '../../core/errors.js'
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable, translateDatabaseError } from './unavailable.js'

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code })

describe('which database errors mean "try later"', () => {
  it.each([
    ['a connection failure (class 08)', withCode('08006')],
    ['a pooler refusing the protocol (08P01)', withCode('08P01', 'no more connections allowed (max_client_conn)')],
    ['an administrator shutdown (57P01)', withCode('57P01', 'terminating connection due to administrator command')],
    ['a crash shutdown (57P02)', withCode('57P02')],
    ['a server starting up (57P03)', withCode('57P03', 'the database system is starting up')],
    ['too many connections (53300)', withCode('53300')],
    ['a refused socket', withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')],
    ['a reset socket', withCode('ECONNRESET')],
    ['a lost connection (pg)', new Error('Connection terminated unexpectedly')],
    ['no pooled connection in time (pg)', new Error('timeout exceeded when trying to connect')],
    ['a dead pooled client (pg)', new Error('Client has encountered a connection error and is not queryable')],
    ['PgBouncer losing its server', withCode('08P01', 'server conn crashed?')],
    ['SQLite locked past busy_timeout', withCode('SQLITE_BUSY', 'database is locked')],
  ])('%s', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true)
    const translated = translateDatabaseError(error) as DomainError
    expect(translated).toBeInstanceOf(DomainError)
    expect(translated.code).toBe('try_later')
    expect(translated.message).toBe(DATABASE_UNAVAILABLE_MESSAGE)
    expect((translated as { cause?: unknown }).cause).toBe(error)
  })

  it.each([
    ['a unique violation (23505)', withCode('23505')],
    ['a syntax error (42601)', withCode('42601')],
    ['a cancelled statement (57014, the TQL timeout)', withCode('57014')],
    ['a plain bug', new TypeError('undefined is not a function')],
    ['a domain error', new DomainError('not_found', 'No such thing')],
  ])('not %s', (_, error) => {
    expect(isDatabaseUnavailable(error) && !(error instanceof DomainError)).toBe(false)
    expect(translateDatabaseError(error)).toBe(error)
  })
})

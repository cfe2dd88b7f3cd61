/**
 * Turns the Authorization header into a Caller. Three schemes, as the spec's
 * Authentication section says: API tokens (`Svc-Token`, or the platform's `TC-Token`),
 * access id + HMAC signature (`Svc`, or `TC`) with a Timestamp header, and HTTP Basic for
 * TAXII accounts; `Bearer <API token>` is the token scheme under the name TAXII clients use.
 * Which schemes an interface accepts is the adapter's choice.
 */
import { createHash } from 'node:crypto'
import type { AuthRow } from '../../store/repositories/account.repository.js'
import type { Caller } from '../context.js'
import { toAccount } from '../context.js'
import { constantTimeEqual, hashToken, signRequest, verifyPassword } from './credentials.js'
import { DomainError } from '../../core/errors.js'
import { toMemberships } from './callers.js'
import type { Services } from '../context.js'

export type Scheme = 'token' | 'hmac' | 'basic' | 'bearer'

export interface Credentials {
  authorization: string | undefined
  timestamp: string | undefined
  /** Path and query exactly as on the request line, `/api` included. */
  pathAndQuery: string
  method: string
  nowMs: number
}

export const TIMESTAMP_WINDOW_SECONDS = 300
const BASIC_CACHE_MS = 60_000
const BASIC_CACHE_MAX = 10_000
const SECRET_CACHE_MAX = 10_000

/** Verified Basic credentials and opened secrets, so neither costs a slow step per request. */
const verifiedBasic = new Map<string, number>()
const openedSecrets = new Map<string, string>()

const fail = (message: string) => new DomainError('unauthenticated', message)

export async function authenticate(
  services: Services,
  credentials: Credentials,
  accepted: readonly Scheme[],
): Promise<Caller> {
  const header = credentials.authorization?.trim()
  const space = header?.indexOf(' ') ?? -1
  const word = space > 0 ? header!.slice(0, space) : ''
  const value = space > 0 ? header!.slice(space + 1).trim() : ''
  const scheme = schemeOf(word)
  if (!scheme || !accepted.includes(scheme)) {
    throw new DomainError('no_credentials', `Authorization required: use ${describeSchemes(accepted)}`)
  }
  const row =
    scheme === 'token' || scheme === 'bearer'
      ? await byToken(services, value, credentials.nowMs)
      : scheme === 'hmac'
        ? await bySignature(services, value, credentials)
        : await byPassword(services, value)
  if (row.disabled) throw fail('Access Denied: the account is disabled')
  if ((row.kind === 'taxii') !== (scheme === 'basic')) {
    throw fail(
      row.kind === 'taxii'
        ? 'Access Denied: TAXII accounts may only use the TAXII services'
        : 'Access Denied: only TAXII accounts use Basic authentication',
    )
  }
  return callerFrom(row)
}

/**
 * The credential cache hands out the same row for as long as it keeps it, so the Caller made from
 * a row is kept beside it (and forgotten with it): a request with a cached credential builds no
 * account or membership objects. Callers are never changed after they are made.
 */
const callers = new WeakMap<AuthRow<object>, Caller>()

export function callerFrom(row: AuthRow<object>): Caller {
  let caller = callers.get(row)
  if (caller === undefined) {
    caller = { account: toAccount(row), memberships: toMemberships(row.memberships) }
    callers.set(row, caller)
  }
  return caller
}

function schemeOf(word: string): Scheme | undefined {
  switch (word.toLowerCase()) {
    case 'svc-token':
    case 'tc-token':
      return 'token'
    case 'svc':
    case 'tc':
      return 'hmac'
    case 'basic':
      return 'basic'
    case 'bearer':
      return 'bearer'
    default:
      return undefined
  }
}

function describeSchemes(accepted: readonly Scheme[]) {
  const names = {
    token: 'Svc-Token <token>',
    hmac: 'Svc <accessId>:<signature> with a Timestamp header',
    basic: 'Basic <credentials>',
    bearer: 'Bearer <API token>',
  }
  return accepted.map((s) => names[s]).join(' or ')
}

async function byToken(services: Services, token: string, nowMs: number): Promise<AuthRow<object>> {
  if (!token) throw fail('Unauthorized: empty token')
  const row = await services.auth.findByTokenHash(hashToken(token))
  if (!row) throw fail('Unauthorized: the token is not valid')
  if (row.expires_at && Date.parse(row.expires_at) <= nowMs) throw fail('Unauthorized: the token has expired')
  return row
}

async function bySignature(services: Services, value: string, c: Credentials): Promise<AuthRow<object>> {
  const colon = value.lastIndexOf(':')
  if (colon <= 0) throw fail('Access Denied: expected <accessId>:<signature>')
  const accessId = value.slice(0, colon)
  const signature = value.slice(colon + 1)
  if (!c.timestamp || !/^\d+$/.test(c.timestamp.trim())) {
    throw new DomainError('timestamp', 'Timestamp header required: Unix epoch seconds')
  }
  const skew = Math.abs(c.nowMs / 1000 - Number(c.timestamp))
  if (skew > TIMESTAMP_WINDOW_SECONDS) {
    throw new DomainError(
      'timestamp',
      'Timestamp Out of Acceptable Time Range: the Timestamp header must be within 5 minutes of server time',
    )
  }
  const row = await services.auth.findByAccessId(accessId)
  if (!row) throw fail('Access Denied: unknown access id')
  const expected = signRequest(
    openSecret(services, row.secret_ciphertext),
    c.pathAndQuery,
    c.method,
    c.timestamp.trim(),
  )
  if (!constantTimeEqual(expected, signature)) throw fail('Signature Data Did Not Match Expected Result')
  return row
}

function openSecret(services: Services, sealed: string): string {
  let secret = openedSecrets.get(sealed)
  if (secret === undefined) {
    secret = services.secretBox.open(sealed)
    if (openedSecrets.size >= SECRET_CACHE_MAX) openedSecrets.clear()
    openedSecrets.set(sealed, secret)
  }
  return secret
}

async function byPassword(services: Services, value: string): Promise<AuthRow<object>> {
  let decoded: string
  try {
    decoded = Buffer.from(value, 'base64').toString('utf8')
  } catch {
    throw fail('Access Denied: malformed Basic credentials')
  }
  const colon = decoded.indexOf(':')
  if (colon <= 0) throw fail('Access Denied: malformed Basic credentials')
  const row = await services.auth.findByUserName(decoded.slice(0, colon))
  if (!row?.password_hash) throw fail('Access Denied: wrong user name or password')
  // The stored hash is part of the key, so changing the password forgets the old credential at once.
  const key = createHash('sha256').update(`${value}\0${row.password_hash}`).digest('hex')
  const until = verifiedBasic.get(key)
  if (until !== undefined && until > Date.now()) return row
  if (!(await verifyPassword(decoded.slice(colon + 1), row.password_hash)))
    throw fail('Access Denied: wrong user name or password')
  if (verifiedBasic.size >= BASIC_CACHE_MAX) verifiedBasic.clear()
  verifiedBasic.set(key, Date.now() + BASIC_CACHE_MS)
  return row
}

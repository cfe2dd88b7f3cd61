/**
 * Console sessions: a person (a `human` account) signs in with user name and password and gets a
 * session, which then authenticates REST requests exactly as that account's API credentials
 * would: the same Caller, so the same roles, memberships and owner scope (owner-scope.ts).
 *
 * - The session token is 32 random bytes; the browser keeps it in an HttpOnly cookie and the
 *   database only its SHA-256, so a copy of the table signs no one in.
 * - Each session has a CSRF token of its own, which the console sends in a header on every write
 *   (the adapter checks it: protocols/http/rest-auth.ts).
 * - A session ends at sign-out, at its expiry (absolute from sign-in: SESSION_TTL_MS), when the
 *   account is disabled, when its password changes (accounts.ts setPassword) and when the same
 *   browser signs in again.
 * - Failed sign-ins are throttled per user name and per address (sign-in-throttle.ts); every
 *   refusal of credentials says the same words whichever part was wrong, and an unknown name costs
 *   the same scrypt work as a wrong password.
 */
import { randomBytes } from 'node:crypto'
import { DomainError } from '../../core/errors.js'
import { isoAt } from '../../core/time.js'
import type { Store } from '../../store/connect.js'
import * as sessions from '../../store/repositories/console-session.repository.js'
import type { Caller, Services } from '../context.js'
import { callerFrom } from './authentication.js'
import { constantTimeEqual, hashPassword, hashToken, verifyPassword } from './credentials.js'
import type { SignInThrottle } from './sign-in-throttle.js'
import { isPlatformAdministrator } from '../permissions.js'

/** Eight hours: a working day, after which the person signs in again. */
export const SESSION_TTL_MS = 8 * 3_600_000

/** The one answer to a wrong user name, a wrong password, a disabled or non-human account. */
export const SIGN_IN_REFUSED = 'Sign-in failed: the user name or password is not right'

export interface SessionInfo {
  userName: string
  firstName: string | null
  lastName: string | null
  csrfToken: string
  expiresAt: string
  systemRole: string
  /** Whether the console shows the administration pages: the same rule the server applies to them. */
  administrator: boolean
}

export type SignInResult =
  | { ok: true; token: string; session: SessionInfo }
  | { ok: false; reason: 'refused' }
  | { ok: false; reason: 'throttled'; retryAfterSeconds: number }

let dummyHash: Promise<string> | undefined

export async function signIn(
  store: Store,
  services: Services,
  throttle: SignInThrottle,
  input: { userName: unknown; password: unknown; address: string; nowMs: number; ttlMs?: number },
): Promise<SignInResult> {
  const userName = typeof input.userName === 'string' ? input.userName.trim() : ''
  const password = typeof input.password === 'string' ? input.password : ''
  if (!userName || !password) throw new DomainError('unauthenticated', 'Sign in with a user name and a password')
  if (userName.length > 200 || password.length > 1024) return { ok: false, reason: 'refused' }
  const retryAfterSeconds = throttle.wait(userName, input.address, input.nowMs)
  if (retryAfterSeconds !== undefined) return { ok: false, reason: 'throttled', retryAfterSeconds }

  const row = await services.auth.findByUserName(userName)
  // The same scrypt work whether or not the account exists, so timing does not tell names apart.
  const stored = row?.password_hash ?? (await (dummyHash ??= hashPassword(randomBytes(16).toString('hex'))))
  const matches = await verifyPassword(password, stored)
  if (!row || !row.password_hash || !matches || row.kind !== 'human' || row.disabled) {
    throttle.failed(userName, input.address, input.nowMs)
    return { ok: false, reason: 'refused' }
  }
  throttle.succeeded(userName)

  const token = randomBytes(32).toString('base64url')
  const csrfToken = randomBytes(32).toString('base64url')
  const now = isoAt(input.nowMs)
  const expiresAt = isoAt(input.nowMs + (input.ttlMs ?? SESSION_TTL_MS))
  await sessions.deleteExpiredSessions(store.db, now)
  await sessions.insertSession(store.db, {
    user_id: row.id,
    token_hash: hashToken(token),
    csrf_token: csrfToken,
    created_at: now,
    expires_at: expiresAt,
  })
  return {
    ok: true,
    token,
    session: {
      userName: row.user_name,
      firstName: row.first_name,
      lastName: row.last_name,
      csrfToken,
      expiresAt,
      ...roleOf(row.system_role),
    },
  }
}

export interface ActiveSession {
  caller: Caller
  session: SessionInfo
}

function roleOf(systemRole: string): Pick<SessionInfo, 'systemRole' | 'administrator'> {
  return { systemRole, administrator: isPlatformAdministrator({ systemRole }) }
}

const ended = () => new DomainError('unauthenticated', 'The session has ended: sign in again')

/** The caller a session token stands for; refused when the session ended or its account may no longer sign in. */
export async function resumeSession(services: Services, token: string, nowMs: number): Promise<ActiveSession> {
  if (!token) throw ended()
  const row = await services.auth.findBySessionHash(hashToken(token))
  if (!row || Date.parse(row.expires_at) <= nowMs || row.disabled || row.kind !== 'human') throw ended()
  return {
    caller: callerFrom(row),
    session: {
      userName: row.user_name,
      firstName: row.first_name,
      lastName: row.last_name,
      csrfToken: row.csrf_token,
      expiresAt: row.expires_at,
      ...roleOf(row.system_role),
    },
  }
}

/** Whether a write carries the session's CSRF token (compared in constant time). */
export function csrfTokenMatches(session: SessionInfo, sent: string | undefined): boolean {
  return typeof sent === 'string' && sent.length > 0 && constantTimeEqual(sent, session.csrfToken)
}

/** Ends a session; signing out of an ended session is not an error. */
export async function signOut(store: Store, token: string): Promise<void> {
  if (token) await sessions.deleteSessionByHash(store.db, hashToken(token))
}

/**
 * The console's session cookie and CSRF header, shared by the REST gate (rest-auth.ts) and the
 * console's own endpoints (protocols/console). `__Host-` makes browsers accept the cookie only
 * when it is Secure, for the whole site (Path=/) and for this host alone (no Domain).
 */
import type { FastifyRequest } from 'fastify'

export const SESSION_COOKIE = '__Host-bulwark-session'
/** The header the console sends its session's CSRF token in, on every write. */
export const CSRF_HEADER = 'x-csrf-token'

/** The session token the request's Cookie header carries, if any. */
export function sessionTokenOf(req: FastifyRequest): string | undefined {
  return cookieOf(req, SESSION_COOKIE)
}

/** A cookie's value from the request's Cookie header, if any. */
export function cookieOf(req: FastifyRequest, name: string): string | undefined {
  const header = req.headers.cookie
  if (!header) return undefined
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || undefined
  }
  return undefined
}

/**
 * With read replicas: the primary's WAL position after a caller's write, named in the answer (header
 * and cookie) so that the caller's next read, on any node, waits for a replica to replay it.
 */
export const WAL_POSITION_HEADER = 'bulwark-wal-position'
export const WAL_POSITION_COOKIE = 'bulwark-wal-position'

export function walPositionCookie(position: string): string {
  return `${WAL_POSITION_COOKIE}=${position}; Path=/api; HttpOnly; Secure; SameSite=Strict; Max-Age=60`
}

export function sessionCookie(token: string, maxAgeSeconds: number): string {
  return `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; Secure; SameSite=Strict; Max-Age=${maxAgeSeconds}`
}

export function clearedSessionCookie(): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; Secure; SameSite=Strict; Max-Age=0`
}

/** Methods that change nothing, and so need no CSRF token. */
export function isSafeMethod(method: string): boolean {
  return method === 'GET' || method === 'HEAD' || method === 'OPTIONS'
}

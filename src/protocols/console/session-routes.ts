/**
 * The console's sign-in, sign-out and session endpoints, under /api/v3/session (beyond the
 * platform's API: the v3 OpenAPI document lists them; docs/console.md). Answers use the v3
 * envelope and are never cached. A sign-in must come as JSON, which a cross-site form cannot
 * send, and from this site when the browser names an Origin.
 */
import type { FastifyInstance, FastifyPluginOptions, FastifyReply, FastifyRequest } from 'fastify'
import { DomainError } from '../../core/errors.js'
import {
  SESSION_TTL_MS,
  SIGN_IN_REFUSED,
  type SessionInfo,
  csrfTokenMatches,
  resumeSession,
  signIn,
  signOut,
} from '../../domain/access/sessions.js'
import type { SignInThrottle } from '../../domain/access/sign-in-throttle.js'
import type { Services } from '../../domain/services.js'
import type { Store } from '../../store/connect.js'
import { classifyError } from '../http/errors.js'
import { sendJsonExactly } from '../http/media-types.js'
import { isSecure } from '../http/rest-auth.js'
import { type RouteSchema, dateTime, jsonResponse, object, string } from '../http/route-schema.js'
import { CSRF_HEADER, clearedSessionCookie, sessionCookie, sessionTokenOf } from '../http/session-cookie.js'

export interface SessionRouteOptions extends FastifyPluginOptions {
  store: Store
  services: Services
  throttle: SignInThrottle
  /** Session lifetime (tests shorten it). */
  sessionTtlMs?: number
}

const sessionData = object(
  {
    userName: string(),
    firstName: string(),
    lastName: string(),
    csrfToken: string(`Send it in the \`${CSRF_HEADER}\` header with every write the session makes`),
    expiresAt: dateTime('When the session ends, whatever happens before'),
  },
  ['userName', 'csrfToken', 'expiresAt'],
)
const sessionAnswer = object({ status: string('Success'), data: sessionData }, ['status', 'data'])
const errorAnswer = object({ errCode: string(), message: string(), status: string('Error') })

const SIGN_IN_SCHEMA: RouteSchema = {
  summary:
    'Console sign-in of a human account: sets an HttpOnly session cookie that authenticates v2 and v3 requests as the account',
  body: object({ userName: string(), password: string() }, ['userName', 'password']),
  response: {
    200: jsonResponse('Signed in; the session cookie is set', sessionAnswer),
    401: jsonResponse('Wrong user name or password (the answer never says which)', errorAnswer),
    429: jsonResponse('Too many failed sign-ins for this name or from this address; see Retry-After', errorAnswer),
  },
}
const SESSION_SCHEMA: RouteSchema = {
  summary: 'The session the cookie names, with its CSRF token',
  response: {
    200: jsonResponse('The session', sessionAnswer),
    401: jsonResponse('No session, or it ended', errorAnswer),
  },
}
const SIGN_OUT_SCHEMA: RouteSchema = {
  summary: `Ends the cookie's session (needs the \`${CSRF_HEADER}\` header) and clears the cookie`,
  response: { 200: jsonResponse('Signed out', object({ status: string('Success') })) },
}

const errorBody = (errCode: string, message: string) => ({ errCode, message, status: 'Error' })

function present(session: SessionInfo) {
  return { status: 'Success', data: session }
}

function sameOrigin(req: FastifyRequest): boolean {
  const origin = req.headers.origin
  if (origin === undefined) return true
  try {
    return new URL(origin).host === req.headers.host
  } catch {
    return false
  }
}

export async function registerSessionRoutes(app: FastifyInstance, options: SessionRouteOptions) {
  const { store, services, throttle } = options
  const ttlMs = options.sessionTtlMs ?? SESSION_TTL_MS
  app.setErrorHandler((error, req, reply) => {
    const classified = classifyError(error)
    if (classified.unexpected) req.log.error({ err: error }, 'unhandled error')
    const message = classified.unexpected ? `Internal error (request ${req.id})` : classified.message
    return sendJsonExactly(reply, classified.status, errorBody(classified.code, message))
  })
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('cache-control', 'no-store')
    done(isSecure(req) ? undefined : new DomainError('no_credentials', 'HTTPS is required'))
  })

  app.post('/sign-in', { schema: SIGN_IN_SCHEMA }, async (req, reply) => {
    if (!sameOrigin(req)) throw new DomainError('no_credentials', 'Sign in from the console of this server')
    if (!/^application\/json\b/i.test(req.headers['content-type'] ?? ''))
      return sendJsonExactly(reply, 415, errorBody('invalid', 'Sign in with a JSON body: {"userName", "password"}'))
    const body = (req.body ?? {}) as Record<string, unknown>
    const result = await signIn(store, services, throttle, {
      userName: body.userName,
      password: body.password,
      address: req.ip,
      nowMs: Date.now(),
      ttlMs,
    })
    if (result.ok) {
      reply.header('set-cookie', sessionCookie(result.token, Math.floor(ttlMs / 1000)))
      return sendJsonExactly(reply, 200, present(result.session))
    }
    if (result.reason === 'throttled') {
      reply.header('retry-after', String(result.retryAfterSeconds))
      return sendJsonExactly(
        reply,
        429,
        errorBody('rate_limited', `Too many failed sign-ins: try again in ${result.retryAfterSeconds} s`),
      )
    }
    return sendJsonExactly(reply, 401, errorBody('unauthenticated', SIGN_IN_REFUSED))
  })

  app.get('/', { schema: SESSION_SCHEMA }, async (req, reply) => {
    const active = await resumeSession(services, sessionTokenOf(req) ?? '', Date.now())
    return sendJsonExactly(reply, 200, present(active.session))
  })

  app.post('/sign-out', { schema: SIGN_OUT_SCHEMA }, async (req, reply) => {
    const token = sessionTokenOf(req)
    if (token) {
      const active = await resumeSession(services, token, Date.now()).catch(() => undefined)
      const sent = req.headers[CSRF_HEADER]
      if (active && !csrfTokenMatches(active.session, Array.isArray(sent) ? sent[0] : sent))
        throw new DomainError('no_credentials', `Sign-out must carry the session's ${CSRF_HEADER} header`)
      await signOut(store, token)
    }
    reply.header('set-cookie', clearedSessionCookie())
    return sendJsonExactly(reply, 200, { status: 'Success' })
  })
}

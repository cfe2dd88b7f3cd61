/**
 * The console's sign-in, sign-out and session endpoints, under /api/v3/session (beyond the
 * platform's API: the v3 OpenAPI document lists them; docs/console.md). They extend v3, so they
 * answer in its envelope (its error codes), and they are never cached. A sign-in must come as JSON, which a cross-site form cannot
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
import { type RouteSchema, boolean, dateTime, jsonResponse, object, string } from '../http/route-schema.js'
import { v3ErrorBody } from '../v3/present.js'
import { V3_ERROR } from '../v3/schemas.js'
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
    systemRole: string("The account's system role"),
    administrator: boolean(
      'Whether the account runs the installation (Administrator or Operations Administrator): the console shows it the administration pages',
    ),
  },
  ['userName', 'csrfToken', 'expiresAt', 'systemRole', 'administrator'],
)
const sessionAnswer = object({ status: string('Success'), data: sessionData }, ['status', 'data'])
const REFUSED = jsonResponse('Refused: `{errCode, message, status: "Error"}`', V3_ERROR)

const SIGN_IN_SCHEMA: RouteSchema = {
  summary:
    'Console sign-in of a human account: sets an HttpOnly session cookie that authenticates v2 and v3 requests as the account',
  body: object({ userName: string(), password: string() }, ['userName', 'password']),
  response: {
    200: jsonResponse('Signed in; the session cookie is set', sessionAnswer),
    401: jsonResponse('Wrong user name or password (the answer never says which)', V3_ERROR),
    429: jsonResponse('Too many failed sign-ins for this name or from this address; see Retry-After', V3_ERROR),
    '4XX': REFUSED,
  },
}
const SESSION_SCHEMA: RouteSchema = {
  summary: 'The session the cookie names, with its CSRF token',
  response: {
    200: jsonResponse('The session', sessionAnswer),
    401: jsonResponse('No session, or it ended', V3_ERROR),
    '4XX': REFUSED,
  },
}
const SIGN_OUT_SCHEMA: RouteSchema = {
  summary: `Ends the cookie's session (needs the \`${CSRF_HEADER}\` header) and clears the cookie`,
  response: {
    200: jsonResponse('Signed out', object({ status: string('Success') })),
    401: jsonResponse('No session, or it ended (the cookie is cleared all the same)', V3_ERROR),
    '4XX': REFUSED,
  },
}

function present(session: SessionInfo) {
  return { status: 'Success', data: session }
}

/** Whether a sign-in comes from this site: the browser's Origin (when it sends one) names this host or the public URL's. */
function sameOrigin(req: FastifyRequest, publicUrl: string): boolean {
  const origin = req.headers.origin
  if (origin === undefined) return true
  try {
    const host = new URL(origin).host
    return host === req.host || host === new URL(publicUrl).host
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
    return sendJsonExactly(reply, classified.status, v3ErrorBody(classified.code, message))
  })
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('cache-control', 'no-store')
    done(isSecure(req) ? undefined : new DomainError('no_credentials', 'HTTPS is required'))
  })

  app.post('/sign-in', { schema: SIGN_IN_SCHEMA }, async (req, reply) => {
    if (!sameOrigin(req, services.publicUrl))
      throw new DomainError('no_credentials', 'Sign in from the console of this server')
    const type = req.headers['content-type']
    if (type !== undefined && !/^application\/json\b/i.test(type))
      return sendJsonExactly(reply, 415, v3ErrorBody('invalid', 'Sign in with a JSON body: {"userName", "password"}'))
    const body = (req.body ?? {}) as Record<string, unknown>
    const result = await signIn(store, services, throttle, {
      userName: body.userName,
      password: body.password,
      address: req.ip,
      nowMs: Date.now(),
      ttlMs,
    })
    if (result.ok) {
      // Signing in again replaces the session the browser held: the old one ends.
      const previous = sessionTokenOf(req)
      if (previous) await signOut(store, previous)
      reply.header('set-cookie', sessionCookie(result.token, Math.floor(ttlMs / 1000)))
      return sendJsonExactly(reply, 200, present(result.session))
    }
    if (result.reason === 'throttled') {
      reply.header('retry-after', String(result.retryAfterSeconds))
      return sendJsonExactly(
        reply,
        429,
        v3ErrorBody('invalid', `Too many failed sign-ins: try again in ${result.retryAfterSeconds} s`),
      )
    }
    return sendJsonExactly(reply, 401, v3ErrorBody('unauthenticated', SIGN_IN_REFUSED))
  })

  app.get('/', { schema: SESSION_SCHEMA }, async (req, reply) => {
    const active = await resumeSession(services, sessionTokenOf(req) ?? '', Date.now())
    return sendJsonExactly(reply, 200, present(active.session))
  })

  app.post('/sign-out', { schema: SIGN_OUT_SCHEMA }, async (req, reply) => {
    const token = sessionTokenOf(req) ?? ''
    reply.header('set-cookie', clearedSessionCookie())
    const active = await resumeSession(services, token, Date.now())
    const sent = req.headers[CSRF_HEADER]
    if (!csrfTokenMatches(active.session, Array.isArray(sent) ? sent[0] : sent)) {
      reply.removeHeader('set-cookie')
      throw new DomainError('no_credentials', `Sign-out must carry the session's ${CSRF_HEADER} header`)
    }
    await signOut(store, token)
    return sendJsonExactly(reply, 200, { status: 'Success' })
  })
}

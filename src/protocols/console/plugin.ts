/**
 * The analysts' console (docs/console.md): its static files at `/`, its session endpoints at
 * /api/v3/session, and the v2 API's legacy links (`/auth/…`) sent on to its pages. Everything else the console shows it reads from the REST API (v3 first), whose
 * gate (protocols/http/rest-auth.ts) accepts the session cookie.
 */
import type { FastifyInstance } from 'fastify'
import { type SignInThrottle, createSignInThrottle } from '../../domain/access/sign-in-throttle.js'
import type { Services } from '../../domain/services.js'
import type { Store } from '../../store/connect.js'
import { registerSessionRoutes } from './session-routes.js'
import { installConsoleFiles } from './static.js'
import { installLegacyLinks } from './legacy-links.js'

export interface ConsoleOptions {
  store: Store
  services: Services
  /** The built console (dist/console); without it `/` says how to build it. */
  dir?: string
  throttle?: SignInThrottle
  sessionTtlMs?: number
}

export async function registerConsole(app: FastifyInstance, options: ConsoleOptions): Promise<void> {
  await app.register(registerSessionRoutes, {
    prefix: '/api/v3/session',
    store: options.store,
    services: options.services,
    throttle: options.throttle ?? createSignInThrottle(),
    sessionTtlMs: options.sessionTtlMs,
  })
  installConsoleFiles(app, options.dir)
  installLegacyLinks(app)
}

/**
 * The console's built files (dist/console, made by scripts/build.mjs with Vite), served at `/`.
 * index.html is never cached, so a new build is picked up at the next load; everything under
 * /assets/ carries a content hash in its name and is cached for a year, immutable. Every console
 * page goes out with a Content-Security-Policy that allows scripts, styles and connections to
 * this origin only: no inline script, no eval, no plug-ins, no framing.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { extname, join } from 'node:path'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { sendJsonExactly } from '../http/media-types.js'

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.map': 'application/json; charset=utf-8',
}

export const IMMUTABLE = 'public, max-age=31536000, immutable'

function withSecurityHeaders(reply: FastifyReply): FastifyReply {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) reply.header(name, value)
  return reply
}

/** The console at `/`: its page, its hashed assets; without a build, an answer that says how to make one. */
export function installConsoleFiles(app: FastifyInstance, dir: string | undefined): void {
  const indexPath = dir ? join(dir, 'index.html') : undefined
  const built = indexPath !== undefined && existsSync(indexPath)
  const index = built ? readFileSync(indexPath) : undefined
  const assets = new Map<string, Buffer>()
  if (built && existsSync(join(dir!, 'assets')))
    for (const name of readdirSync(join(dir!, 'assets'))) assets.set(name, readFileSync(join(dir!, 'assets', name)))

  app.get('/', (_req, reply) => {
    withSecurityHeaders(reply).header('cache-control', 'no-cache')
    if (!index)
      return sendJsonExactly(reply, 404, {
        status: 'Error',
        message: 'The console is not built: run `npm install` (or `node scripts/build.mjs`) and restart Bulwark',
      })
    return reply.type('text/html; charset=utf-8').send(index)
  })
  app.get('/assets/:file', (req, reply) => {
    const file = (req.params as { file: string }).file
    const body = assets.get(file)
    if (!body) return sendJsonExactly(reply, 404, { status: 'Error', message: `No such console file: ${file}` })
    return withSecurityHeaders(reply)
      .type(TYPES[extname(file)] ?? 'application/octet-stream')
      .header('cache-control', IMMUTABLE)
      .send(body)
  })
}

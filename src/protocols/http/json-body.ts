/**
 * The one JSON body parser of every protocol. SDKs send Content-Type: application/json on
 * bodiless requests (activate, add a tag, OPTIONS), so an empty body means "no body"; anything
 * else goes through Fastify's own parser, which refuses `__proto__` and `constructor.prototype`
 * keys (prototype poisoning) rather than handing them to the domain.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'

type Done = (error: Error | null, value?: unknown) => void

export function createJsonBodyParser(app: FastifyInstance): (req: FastifyRequest, body: string | Buffer, done: Done) => void {
  const parseJson = app.getDefaultJsonParser('error', 'error')
  return (req, body, done) => {
    const text = body.toString()
    if (text.trim() === '') return done(null, undefined)
    return parseJson(req, text, done)
  }
}
